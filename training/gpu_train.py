"""Accelerator entry point for both training loops: the steps `biorag train` runs
(`training/steps.py`) on real abstracts, tokenized in worker processes, timed end to end
beside the raw step rate of the same batches already on the device.

    python -m training.gpu_train contrastive --input pubmed_xml/ --arch bert-base --tokenizer DIR
    python -m training.gpu_train mesh-lora --input pubmed_xml/ --arch bert-base --tokenizer DIR

`biorag train` imports the settings tree (pydantic), which the accelerator machines lack;
this module needs only torch, transformers (its `tokenizers`), peft and, from this
repository, the XML reader and encoder pieces of `indexing.gpu_embed` and the pydantic-free
training modules (pairs, records, mesh_data, runtime, steps).

- contrastive: pairs as `biorag train prepare` builds them (`training.pairs`: title,
  question-like title and MeSH question -> abstract), PMID-unique batches, queries cut to
  --query-length tokens and abstracts to --doc-length, symmetric in-batch InfoNCE, AdamW on
  every weight (as `biorag train embedder`).
- mesh-lora: title + abstract (--max-length tokens) -> the record's topical MeSH headings
  (check tags dropped; names are not checked against the MeSH vocabulary, which throughput
  does not need), LoRA on the encoder's query/key/value/dense layers under a --labels-wide
  multi-label head, BCE (as `biorag train mesh`'s classifier).

Both: bf16 autocast on CUDA (fp32 on CPU); --warmup untimed steps, then --steps timed steps
end to end (tokenization in --workers processes, padding there, pinned host-to-device
copies, the step), then the same --steps batches replayed from device memory (the raw step
rate), same model, same run. Each phase is timed between torch.cuda.synchronize() calls.
`--arch bert-base|minilm-l6|tiny` is that shape randomly initialised (throughput does not
depend on the weights); `--model DIR` loads real ones.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import multiprocessing as mp
import os
import random
import sys
import time
from collections.abc import Callable, Iterator

from biorag.ml.encoder_classifier import build_encoder_classifier
from indexing.encode import on_device, pad_ids, tokenize
from indexing.gpu_embed import (
    PooledEncoder,
    add_arch_options,
    ahead,
    build_encoder,
    pick,
    read_records,
    record_text,
    tokenizer_of,
)
from training.mesh_data import MeshExample, label_counts, top_labels
from training.pairs import build_pairs, pmid_unique_batches, topical_mesh
from training.records import normalise
from training.runtime import autocast, grad_scaler
from training.steps import (
    LossLog,
    backward,
    contrastive_loss,
    decay_groups,
    linear_schedule,
    lora,
    multi_hot,
    multilabel_loss,
    optimizer_step,
    prior_bias_,
)

LOOPS = ("contrastive", "mesh-lora")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m training.gpu_train", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="loop", required=True)
    for loop in LOOPS:
        s = sub.add_parser(loop)
        s.add_argument("--input", nargs="+", required=True, help="PubMed XML files/folders (or Parquet shards)")
        s.add_argument("--model", help="sentence-transformers/HF encoder directory (with --arch model)")
        add_arch_options(s)
        s.add_argument("--batch-size", type=int, default=256)
        s.add_argument("--steps", type=int, default=50, help="timed steps, end to end and raw")
        s.add_argument("--warmup", type=int, default=10, help="untimed steps before each timed phase")
        s.add_argument("--lr", type=float, default=2e-5 if loop == "contrastive" else 5e-4)
        s.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
        s.add_argument("--workers", type=int, default=max(1, min(8, (os.cpu_count() or 2) - 1)),
                       help="tokenizer processes")
        s.add_argument("--max-records", type=int, default=0, help="use at most this many citations (0: all)")
        s.add_argument("--seed", type=int, default=0)
        s.add_argument("--json", action="store_true", help="print the figures as one JSON object")
        s.add_argument("--profile-out", metavar="FILE", help="after the timed phases, profile 5 more end-to-end "
                       "steps and 5 raw ones (torch.profiler) and write both op tables to FILE: where a step's "
                       "time goes when the ratio is low")
        if loop == "contrastive":
            s.add_argument("--query-length", type=int, default=64)
            s.add_argument("--doc-length", type=int, default=256)
            s.add_argument("--scale", type=float, default=20.0, help="similarity scale (1 / temperature)")
            s.add_argument("--kinds", default="title,question,mesh", help="pair kinds (training.pairs)")
        else:
            s.add_argument("--labels", type=int, default=5000, help="outputs of the multi-label head")
            s.add_argument("--max-length", type=int, default=256)
            s.add_argument("--lora-r", type=int, default=8)
            s.add_argument("--lora-alpha", type=int, default=16)
    a = p.parse_args(argv)
    if not (a.tokenizer or a.model):
        p.error("give --model DIR, or --tokenizer DIR with a random --arch")
    if a.arch == "model" and not a.model:
        p.error("--arch model needs --model DIR")
    if a.batch_size < 2 or a.steps < 1 or a.warmup < 0:
        p.error("--batch-size must be >= 2, --steps >= 1 and --warmup >= 0")
    return a


# ---- tokenizer processes: token ids padded there, so the main process only copies ----------

_SPEC = None
_TOKS: dict = {}


def _init_worker(spec) -> None:
    global _SPEC
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    _SPEC = spec


def _padded(texts: list[str], length: int):
    if length not in _TOKS:
        _TOKS[length] = dataclasses.replace(_SPEC, max_length=length).load()
    return pad_ids(tokenize(_TOKS[length], _SPEC, texts) or [[0]])


def _tokenize_pairs(queries: list[str], docs: list[str], q_len: int, d_len: int):
    return _padded(queries, q_len) + _padded(docs, d_len)


def _tokenize_texts(texts: list[str], length: int):
    return _padded(texts, length)


# ---- the two loops: batches (host jobs), device batches, and the loss ----------------------


@dataclasses.dataclass
class Loop:
    """What the timing harness needs of a training loop."""

    unit: str  # what a batch row is: pairs | examples
    corpus: dict
    jobs: Iterator  # (key, worker args) per batch, cycling over the corpus
    worker: Callable  # runs in a tokenizer process: args -> padded int64 arrays
    to_device: Callable  # (key, arrays) -> the device batch
    loss_of: Callable  # device batch -> loss
    model: object
    groups: list  # what AdamW optimizes
    widths: Callable  # arrays -> padded widths


def contrastive_setup(a, records: list[dict], model, pooling: str, device) -> Loop:
    kinds = tuple(k.strip() for k in a.kinds.split(",") if k.strip())
    pairs = [p for r in records for p in build_pairs(normalise(r), kinds)]
    batches = [b for b in pmid_unique_batches(pairs, a.batch_size, a.seed) if len(b) == a.batch_size]
    if not batches:
        raise SystemExit(f"error: {len(pairs)} pairs give no batch of {a.batch_size} distinct PMIDs: "
                         "give more --input or a smaller --batch-size")
    jobs = ((None, ([pairs[i].query for i in b], [pairs[i].positive for i in b], a.query_length, a.doc_length))
            for b in itertools.cycle(batches))
    pooled = PooledEncoder(model, pooling, mask_4d=True)  # no host sync per forward

    def embed(feats):
        return pooled.forward(feats)["sentence_embedding"]

    def to_device(_key, arrays):
        q_ids, q_mask, d_ids, d_mask = (on_device(x, device) for x in arrays)
        return {"input_ids": q_ids, "attention_mask": q_mask}, {"input_ids": d_ids, "attention_mask": d_mask}

    def loss_of(batch):
        return contrastive_loss(embed, batch[0], batch[1], a.scale)

    return Loop("pairs", {"records": len(records), "pairs": len(pairs), "batches": len(batches)}, jobs,
                _tokenize_pairs, to_device, loss_of, model, decay_groups(model, 0.01),
                lambda arrays: (arrays[0].shape[1], arrays[2].shape[1]))


def mesh_setup(a, records: list[dict], model, pooling: str, device) -> Loop:
    examples = [MeshExample(r["pmid"], "title", record_text(r), [m.name for m in topical_mesh(normalise(r).mesh)])
                for r in records]
    examples = [e for e in examples if e.labels]
    labels = top_labels(examples, a.labels, min_count=1)
    index = {name: i for i, name in enumerate(labels)}
    random.Random(a.seed).shuffle(examples)
    batches = [examples[s : s + a.batch_size] for s in range(0, len(examples) - a.batch_size + 1, a.batch_size)]
    if not batches:
        raise SystemExit(f"error: {len(examples)} citations with MeSH headings give no batch of {a.batch_size}: "
                         "give more --input or a smaller --batch-size")
    encoder = lora(model, ["query", "key", "value", "dense"], a.lora_r, a.lora_alpha, 0.05)
    clf = build_encoder_classifier(encoder, a.labels).to(device)
    counts = label_counts(examples)
    # outputs past the labels seen start at the lowest prior, as a label never seen would
    prior_bias_(clf.head, [counts[lab] for lab in labels] + [0] * (a.labels - len(labels)), len(examples))
    jobs = (([[index[x] for x in e.labels if x in index] for e in b], ([e.text for e in b], a.max_length))
            for b in itertools.cycle(batches))

    def to_device(rows, arrays):
        ids, mask = (on_device(x, device) for x in arrays)
        return ids, mask, multi_hot(rows, a.labels, device)

    def loss_of(batch):
        return multilabel_loss(clf, *batch)

    corpus = {"records": len(records), "examples": len(examples), "labels_seen": len(labels), "batches": len(batches)}
    return Loop("examples", corpus, jobs, _tokenize_texts, to_device, loss_of, clf,
                [p for p in clf.parameters() if p.requires_grad], lambda arrays: (arrays[0].shape[1],))


# ---- the run ---------------------------------------------------------------------------------


PROFILED_STEPS = 5


def profiled(cuda: bool, fn: Callable) -> str:
    """The op table (top 30 by self CPU time, with CUDA times on a GPU) of running `fn`."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        fn()
    return prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=30)


def run(a: argparse.Namespace) -> dict:
    import torch

    records = read_records(a.input, a.max_records)
    if not records:
        raise SystemExit("error: the input holds no citation with an abstract")
    spec = tokenizer_of(a)
    device, _ = pick(a.device, "float32")
    cuda, dev = device.type == "cuda", str(device)
    if cuda:  # the host's cores are the tokenizer processes': no idle intra-op threads spinning beside them
        torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    model, pooling, what = build_encoder(a.arch, a.model)
    setup = (contrastive_setup if a.loop == "contrastive" else mesh_setup)(a, records, model.to(device), pooling, device)
    net = setup.model.train()
    optimizer = torch.optim.AdamW(setup.groups, lr=a.lr)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    scheduler = linear_schedule(optimizer, 2 * (a.warmup + a.steps), 0.1)
    scaler = grad_scaler(dev, True)
    losses = LossLog()  # read after the run: no host sync per step

    def step(batch) -> None:
        with autocast(dev, True):
            loss = setup.loss_of(batch)
        backward(loss, scaler)
        optimizer_step(optimizer, scheduler, scaler, params)
        losses.add(loss)

    def phase(batches) -> tuple[float, float]:
        """(seconds, seconds the host spent producing batches) for running every batch."""
        if cuda:
            torch.cuda.synchronize()
        host, t0 = 0.0, time.perf_counter()
        while True:
            th = time.perf_counter()
            batch = next(batches, None)
            host += time.perf_counter() - th
            if batch is None:
                break
            step(batch)
        if cuda:
            torch.cuda.synchronize()
        return time.perf_counter() - t0, host

    kept: list = []

    def end_to_end(stream, n: int, keep: bool):
        for key, arrays in itertools.islice(stream, n):
            if keep:
                kept.append((key, arrays))
            yield setup.to_device(key, arrays)

    with mp.get_context("spawn").Pool(a.workers, initializer=_init_worker, initargs=(spec,)) as pool:
        stream = ahead(pool, setup.worker, setup.jobs, 2 * a.workers + 2)
        phase(end_to_end(stream, a.warmup, False))  # untimed: worker start, kernels, allocator
        e2e_s, host_s = phase(end_to_end(stream, a.steps, True))
        if a.profile_out:
            e2e_table = profiled(cuda, lambda: phase(end_to_end(stream, PROFILED_STEPS, False)))
    resident = [setup.to_device(key, arrays) for key, arrays in kept]  # the same batches, on the device
    phase(iter(resident[: a.warmup]))
    raw_s, _ = phase(iter(resident))
    if a.profile_out:
        raw_table = profiled(cuda, lambda: phase(iter(resident[:PROFILED_STEPS])))
        with open(a.profile_out, "w") as f:
            f.write(f"{a.loop} {what}: {PROFILED_STEPS} end-to-end steps\n{e2e_table}\n\n"
                    f"the same loop: {PROFILED_STEPS} raw steps (batches already on the device)\n{raw_table}\n")

    per_step = a.batch_size * a.steps
    values = losses.values()
    k = max(1, min(5, len(values) // 4))
    widths = [setup.widths(arrays) for _, arrays in kept]
    e2e, raw = per_step / e2e_s, per_step / raw_s
    return {
        "loop": a.loop, "torch": torch.__version__,
        "device": f"{dev} bf16 autocast ({torch.cuda.get_device_name(device)})" if cuda else f"{dev} float32",
        "model": what, "params_m": round(sum(p.numel() for p in net.parameters()) / 1e6, 3),
        "trainable_params_m": round(sum(p.numel() for p in params) / 1e6, 3),
        "batch_size": a.batch_size, "warmup": a.warmup, "steps": a.steps, "tokenizer_processes": a.workers,
        "corpus": setup.corpus, "mean_padded_width": [round(sum(w) / len(w), 1) for w in zip(*widths, strict=True)],
        "unit": setup.unit, "end_to_end_per_s": round(e2e, 2), "raw_per_s": round(raw, 2),
        "ratio": round(e2e / raw, 3), "end_to_end_step_ms": round(1000 * e2e_s / a.steps, 2),
        "raw_step_ms": round(1000 * raw_s / a.steps, 2), "host_batch_ms": round(1000 * host_s / a.steps, 2),
        "peak_gib": round(torch.cuda.max_memory_allocated(device) / 2**30, 2) if cuda else None,
        "loss_first": round(sum(values[:k]) / k, 4), "loss_last": round(sum(values[-k:]) / k, 4), "losses": values,
    }


def report(r: dict) -> str:
    return "\n".join([
        f"{r['loop']} on {r['device']}; model: {r['model']} ({r['params_m']}M params, "
        f"{r['trainable_params_m']}M trained); torch {r['torch']}",
        f"corpus: {r['corpus']}; batch {r['batch_size']}, mean padded width {r['mean_padded_width']}, "
        f"{r['tokenizer_processes']} tokenizer process(es); {r['warmup']} warm-up + {r['steps']} timed steps",
        f"end-to-end {r['end_to_end_per_s']} {r['unit']}/s ({r['end_to_end_step_ms']} ms/step, host "
        f"{r['host_batch_ms']} ms/step on batches) vs raw {r['raw_per_s']} {r['unit']}/s ({r['raw_step_ms']} ms/step, "
        f"same batches on the device): ratio {r['ratio']}; loss {r['loss_first']} -> {r['loss_last']}",
    ])


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    r = run(a)
    print(json.dumps(r) if a.json else report(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
