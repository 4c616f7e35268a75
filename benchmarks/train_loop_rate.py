"""Pairs (examples) per second of `biorag train`'s own loops: a benchmark, not a test.

    python -m benchmarks.train_loop_rate --input pubmed_xml/ --tokenizer DIR --arch minilm-l6 [--json]

`training.gpu_train` times the training step fed by tokenizer processes. This runs the loops
that `biorag train embedder` and `biorag train mesh` (classifier head) run, unchanged:
`training.embedder.train_embedder` and `training.mesh_train.train_mesh`, with tokenization on
the main thread, checkpoints and the settings tree. On an accelerator this is also
their check there.

In --work (a temporary folder unless given) it builds:
- a training-data directory from --input (`training.prepare`, as `biorag train prepare`);
- a sentence-transformers folder of the --arch shape (`indexing.gpu_embed.ARCHS`), with random
  weights and the --tokenizer's files. Throughput does not depend on the weights.

Each loop runs twice: first on two batches, untimed (CUDA context, kernels, allocator), then
on --pairs pairs (--examples examples) for one epoch, without evaluation. Rates:
- embedder: pairs / the loop's own `metrics.train.seconds`. That includes the end-of-epoch
  checkpoint save, as in production.
- mesh: examples / the seconds of its optimizer loop (`mesh_train._train_loop`) alone. The
  threshold tuning and the held-out evaluation around it are not counted.

Compare a rate with `training.gpu_train`'s end-to-end row of the same shape and batch size.
The gap is what main-thread tokenization costs (the step itself is the same code,
`training.steps`).

It needs pydantic (the settings tree). The accelerator machines lack it:
the prepared device script's `real` run (DEVELOPERS.md, "The accelerator machine") puts carried
wheels on PYTHONPATH first.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

LOOPS = ("embedder", "mesh")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    from indexing.gpu_embed import ARCHS

    p = argparse.ArgumentParser(prog="python -m benchmarks.train_loop_rate", description=__doc__.split("\n\n")[0])
    p.add_argument("--input", nargs="+", required=True, help="PubMed XML files/folders (as `biorag train prepare`)")
    p.add_argument("--tokenizer", required=True, help="folder with a BERT tokenizer's files (tokenizer.json, ...)")
    p.add_argument("--arch", choices=sorted(ARCHS), default="minilm-l6", help="the encoder's shape, random weights")
    p.add_argument("--loop", nargs="+", choices=LOOPS, default=list(LOOPS), help="which loops, in order")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--pairs", type=int, default=20000, help="embedder: pairs in the timed epoch (fewer if the input has fewer)")
    p.add_argument("--examples", type=int, default=20000, help="mesh: examples in the timed epoch (likewise)")
    p.add_argument("--max-seq-length", type=int, default=256, help="embedder: tokens per text")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    p.add_argument("--work", help="folder for the training data, the model and the outputs (default: a temporary one, removed)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    return p.parse_args(argv)


def random_sentence_transformer(arch: str, tokenizer_dir: str, out: Path, max_seq_length: int) -> Path:
    """A sentence-transformers folder (Transformer at the root, mean pooling) of `arch`'s
    shape with seeded random weights: `biorag train`'s loops load it as they load a real base."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from indexing.gpu_embed import ARCHS

    overrides, _ = ARCHS[arch]
    torch.manual_seed(0)
    config = BertConfig(**overrides)
    BertModel(config).save_pretrained(str(out))
    AutoTokenizer.from_pretrained(tokenizer_dir).save_pretrained(str(out))
    (out / "1_Pooling").mkdir(exist_ok=True)
    (out / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": config.hidden_size, "pooling_mode_mean_tokens": True,
         "pooling_mode_cls_token": False, "pooling_mode_max_tokens": False}))
    (out / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": max_seq_length, "do_lower_case": False}))
    (out / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    return out


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def embedder_rate(prepared, base: Path, work: Path, a: argparse.Namespace, device: str) -> dict:
    from biorag.settings import EmbedderTrainingSettings
    from training.embedder import train_embedder

    def run(pairs: int, out: Path) -> dict:  # a fresh output folder: never a resume
        cfg = EmbedderTrainingSettings(base=str(base), epochs=1, batch_size=a.batch_size, max_pairs=pairs,
                                       max_seq_length=a.max_seq_length, evaluate=False, device=device)
        return train_embedder(prepared, out, cfg, progress=False, log=lambda _m: None).metrics["train"]

    run(2 * a.batch_size, work / f"embedder-warmup-{a.arch}")
    train = run(a.pairs, work / f"embedder-{a.arch}")
    return {"loop": "embedder", "unit": "pairs", "items": train["pairs"], "optimizer_steps": train["optimizer_steps"],
            "seconds": train["seconds"], "per_s": round(train["pairs"] / max(train["seconds"], 1e-9), 1),
            "loss_first": train["loss_first"], "loss_last": train["loss_last"]}


def mesh_rate(prepared, base: Path, work: Path, a: argparse.Namespace, device: str) -> dict:
    from biorag.settings import MeshTrainingSettings
    from training import mesh_train

    timed: list[float] = []
    inner = mesh_train._train_loop

    def timed_loop(*args, **kw):
        _sync(device)
        t0 = time.perf_counter()
        losses = inner(*args, **kw)  # its loss read-out at the end waits for the last step
        timed.append(time.perf_counter() - t0)
        return losses

    def run(examples: int, out: Path):
        cfg = MeshTrainingSettings(base=str(base), epochs=1, batch_size=a.batch_size, max_train=examples,
                                   filtered_eval=False, eval_limit=64, device=device)
        return mesh_train.train_mesh(prepared, out, cfg, progress=False, log=lambda _m: None)

    mesh_train._train_loop = timed_loop
    try:
        run(2 * a.batch_size, work / f"mesh-warmup-{a.arch}")
        manifest = run(a.examples, work / f"mesh-{a.arch}")
    finally:
        mesh_train._train_loop = inner
    train = manifest.metrics["train"]
    return {"loop": "mesh", "unit": "examples", "items": train["examples"], "labels": manifest.dim,
            "seconds": round(timed[-1], 3), "per_s": round(train["examples"] / timed[-1], 1),
            "loss_first": train["loss_first"], "loss_last": train["loss_last"]}


def run(a: argparse.Namespace) -> dict:
    import torch

    from biorag.host.device import pick_device
    from training.prepare import Prepared, prepare

    device = pick_device(a.device, "--device")
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="train-loop-rate-"))
    try:
        t0 = time.perf_counter()
        if not (work / "prepared" / "biorag_manifest.json").is_file():  # one per --work: shapes share it
            prepare(a.input, work / "prepared", progress=False)
        prepared = Prepared.open(work / "prepared")
        base = random_sentence_transformer(a.arch, a.tokenizer, work / f"base-{a.arch}", a.max_seq_length)
        setup_s = round(time.perf_counter() - t0, 1)
        rates = [(embedder_rate if loop == "embedder" else mesh_rate)(prepared, base, work, a, device) for loop in a.loop]
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    where = f"{device} ({torch.cuda.get_device_name(torch.device(device))})" if device.startswith("cuda") else device
    return {"arch": a.arch, "device": where, "torch": torch.__version__, "batch_size": a.batch_size,
            "setup_s": setup_s, "rates": rates}


def report(r: dict) -> str:
    lines = [f"biorag train loops, {r['arch']} shape (random weights), batch {r['batch_size']}, on {r['device']}:"]
    for x in r["rates"]:
        lines.append(f"  {x['loop']}: {x['per_s']} {x['unit']}/s ({x['items']} {x['unit']} in {x['seconds']} s); "
                     f"loss {x['loss_first']} -> {x['loss_last']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from biorag.contracts.errors import BioragError

    a = parse_args(argv)
    if not (Path(a.tokenizer) / "tokenizer.json").is_file() and not (Path(a.tokenizer) / "vocab.txt").is_file():
        print(f"error: --tokenizer {a.tokenizer} holds no tokenizer.json or vocab.txt: give a model or tokenizer "
              "folder (benchmarks/device/minilm_tokenizer is one)", file=sys.stderr)
        return 2
    try:
        r = run(a)
    except BioragError as e:  # bad input or settings: say what, not a traceback
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(report(r), file=sys.stderr if a.json else sys.stdout)
    if a.json:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
