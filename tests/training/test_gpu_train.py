"""The training loops' accelerator entry point on CPU (no GPU here), through the same
`python -m training.gpu_train` code the device runs: with pydantic (and so the settings
tree), FastAPI, pymilvus, sentence-transformers and lxml unimportable, on real PubMed XML,
with the tokenizer files shipped for the device; both rates printed and positive, their
ratio, and the loss falling on a tiny model over a few steps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from indexing.gpu_embed import read_records
from tests.blocked_imports import run_without
from training.gpu_train import parse_args
from training.pairs import build_pairs
from training.records import normalise

ROOT = Path(__file__).resolve().parents[2]
XML = ROOT / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"
TOKENIZER = ROOT / "benchmarks" / "device" / "minilm_tokenizer"

BLOCKED = {"pydantic", "pydantic_settings", "fastapi", "pymilvus", "milvus_lite", "sentence_transformers", "lxml"}
RUN = """
    import json
    from training import gpu_train
    r = gpu_train.run(gpu_train.parse_args(sys.argv[1:]))
    r["imported"] = sorted({m.split(".")[0] for m in sys.modules} & BLOCKED)
    print(gpu_train.report(r))
    print(json.dumps(r))
    """

SMALL = ["--input", str(XML), "--arch", "tiny", "--tokenizer", str(TOKENIZER), "--batch-size", "8",
         "--warmup", "2", "--steps", "6", "--workers", "1", "--device", "cpu"]


def run_blocked(*args: str) -> tuple[dict, str]:
    proc = run_without(BLOCKED, RUN, *args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    return json.loads(lines[-1]), "\n".join(lines[:-1])


def check_rates(r: dict, text: str) -> None:
    assert r["imported"] == []
    assert r["device"] == "cpu float32" and r["model"].startswith("tiny shape")
    assert r["end_to_end_per_s"] > 0 and r["raw_per_s"] > 0
    assert r["ratio"] == pytest.approx(r["end_to_end_per_s"] / r["raw_per_s"], rel=0.01)
    assert r["end_to_end_per_s"] == pytest.approx(8 * 6 / (r["end_to_end_step_ms"] * 6 / 1000), rel=0.01)
    assert len(r["losses"]) == 2 * (2 + 6)  # warm-up and timed steps, end to end and raw
    assert r["loss_last"] < r["loss_first"]  # a few batches seen again and again: it learns them
    for figure in (f"end-to-end {r['end_to_end_per_s']} {r['unit']}/s", f"raw {r['raw_per_s']}", f"ratio {r['ratio']}"):
        assert figure in text


def test_contrastive_loop_without_pydantic_on_real_pairs():
    r, text = run_blocked("contrastive", *SMALL, "--max-records", "8", "--lr", "1e-3")
    records = read_records([str(XML)], 8)
    assert r["corpus"]["records"] == 8
    assert r["corpus"]["pairs"] == sum(len(build_pairs(normalise(x))) for x in records) >= 16
    assert r["corpus"]["batches"] >= 2 and r["unit"] == "pairs"
    q_width, d_width = r["mean_padded_width"]
    assert q_width <= 64 and d_width == 256  # queries cut at 64 tokens, abstracts at 256
    assert r["trainable_params_m"] == r["params_m"]  # every weight trains
    check_rates(r, text)


def test_mesh_lora_loop_without_pydantic_on_real_labels():
    r, text = run_blocked("mesh-lora", *SMALL, "--max-records", "16", "--labels", "300", "--max-length", "64",
                          "--lr", "1e-2")
    assert r["unit"] == "examples" and r["corpus"]["examples"] >= 16 - 2
    assert 0 < r["corpus"]["labels_seen"] <= 300
    assert r["mean_padded_width"] == [64.0]
    assert 0 < r["trainable_params_m"] < r["params_m"] / 10  # LoRA and the head only
    check_rates(r, text)


def test_records_carry_mesh_headings_for_the_labels():
    records = read_records([str(XML)])
    with_mesh = [r for r in records if r["mesh"]]
    assert len(with_mesh) > 0.8 * len(records) > 50
    refs = normalise(with_mesh[0]).mesh
    assert all(m.ui.startswith("D") and m.name for m in refs)
    assert any(m.major for r in with_mesh for m in normalise(r).mesh)


@pytest.mark.parametrize(("args", "message"), [
    (["contrastive", "--input", str(XML)], "give --model DIR, or --tokenizer DIR"),
    (["mesh-lora", "--input", str(XML), "--tokenizer", str(TOKENIZER)], "--arch model needs --model DIR"),
    (["contrastive", "--input", str(XML), "--arch", "tiny", "--tokenizer", str(TOKENIZER), "--batch-size", "1"],
     "--batch-size must be >= 2"),
])
def test_bad_options_name_the_fix(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        parse_args(args)
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_too_few_pairs_for_one_batch_is_one_error_line():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "training.gpu_train", "contrastive", *SMALL, "--max-records", "3",
                           "--batch-size", "64"], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith("error: ") and "smaller --batch-size" in proc.stderr


def test_multi_hot_targets_mark_each_rows_labels():
    from training.steps import multi_hot

    rows = [[0, 3], [], [2, 0, 4]]
    y = multi_hot(rows, 5, "cpu")
    assert y.shape == (3, 5) and y.dtype.is_floating_point
    assert [sorted(int(j) for j in r.nonzero().flatten()) for r in y] == [sorted(r) for r in rows]
    assert multi_hot([[], []], 3, "cpu").sum() == 0


def test_profile_out_writes_op_tables_of_both_phases(tmp_path):
    out = tmp_path / "profile.txt"
    r, _ = run_blocked("contrastive", *SMALL, "--profile-out", str(out))
    assert len(r["losses"]) == 2 * (2 + 6) + 2 * 5  # the profiled steps come after the timed ones
    text = out.read_text()
    e2e, raw = text.split("the same loop: 5 raw steps")
    assert "5 end-to-end steps" in e2e
    for table in (e2e, raw):
        assert "Self CPU" in table and "aten::mm" in table  # the step's matrix products were recorded


def test_contrastive_forward_and_backward_ask_the_device_nothing():
    # On a GPU, reading a tensor's value in Python (transformers' `padding_mask.all()`) waits
    # for every queued kernel. The training loop's encoder hands SDPA a 4D mask instead: same
    # vectors, and no tensor is read back during the loss and its backward.
    import torch
    from torch.profiler import profile

    from indexing.gpu_embed import PooledEncoder, build_encoder
    from training.steps import contrastive_loss

    model, pooling, _ = build_encoder("tiny")
    model.eval()  # no dropout: the two masks must give the same loss
    ids = torch.randint(1000, 2000, (4, 12))
    mask = torch.ones(4, 12, dtype=torch.long)
    mask[1, 5:], mask[3, 9:] = 0, 0  # padded rows
    batch = {"input_ids": ids, "attention_mask": mask}
    reads = {"aten::_local_scalar_dense", "aten::is_nonzero", "aten::item"}

    def loss_and_reads(encoder):
        with profile() as prof:
            loss = contrastive_loss(lambda f: encoder.forward(f)["sentence_embedding"], batch, batch, 20.0)
            loss.backward()
        return loss.detach(), {e.key for e in prof.key_averages()} & reads

    plain, plain_reads = loss_and_reads(PooledEncoder(model, pooling))
    four_d, four_d_reads = loss_and_reads(PooledEncoder(model, pooling, mask_4d=True))
    assert plain_reads  # the 2D mask is read back: the check would catch a regression
    assert four_d_reads == set()
    assert torch.allclose(plain, four_d, atol=1e-6)
