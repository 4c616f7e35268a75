"""`benchmarks.train_loop_rate`, the device run of `biorag train`'s own loops, on CPU at a tiny
shape: it must run both real loops on real abstracts, count what they trained on, and leave
`training.mesh_train` as it found it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import train_loop_rate
from training import mesh_train

ROOT = Path(__file__).resolve().parents[2]
XML = ROOT / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"
TOKENIZER = ROOT / "benchmarks" / "device" / "minilm_tokenizer"


def _args(work: Path, *extra: str):
    return train_loop_rate.parse_args(["--input", str(XML), "--tokenizer", str(TOKENIZER), "--arch", "tiny",
                                       "--batch-size", "8", "--pairs", "48", "--examples", "40", "--device", "cpu",
                                       "--work", str(work), *extra])


def test_both_real_loops_report_what_they_trained(tmp_path):
    original = mesh_train._train_loop
    r = train_loop_rate.run(_args(tmp_path))
    assert mesh_train._train_loop is original  # the timing wrapper is taken off again
    assert r["device"] == "cpu" and r["batch_size"] == 8
    embedder, mesh = r["rates"]
    assert (embedder["loop"], embedder["unit"], embedder["items"]) == ("embedder", "pairs", 48)
    assert embedder["optimizer_steps"] == 6  # 48 pairs in PMID-unique batches of 8, one epoch
    assert (mesh["loop"], mesh["unit"], mesh["items"]) == ("mesh", "examples", 40)
    assert mesh["labels"] > 1
    for x in (embedder, mesh):
        assert x["per_s"] == pytest.approx(x["items"] / x["seconds"], rel=0.02)
    assert "embedder: " in train_loop_rate.report(r) and "examples/s" in train_loop_rate.report(r)


def test_the_random_base_is_a_sentence_transformer_of_the_shape(tmp_path):
    from sentence_transformers import SentenceTransformer

    base = train_loop_rate.random_sentence_transformer("tiny", str(TOKENIZER), tmp_path / "base", 64)
    model = SentenceTransformer(str(base), device="cpu")
    vectors = model.encode(["BRCA1 repairs double-strand breaks.", "TP53"])
    assert vectors.shape == (2, 32)  # the tiny shape's width, mean-pooled
    assert json.loads((base / "1_Pooling" / "config.json").read_text())["pooling_mode_mean_tokens"]
    assert model.max_seq_length == 64


def test_shapes_share_one_prepared_directory(tmp_path):
    train_loop_rate.run(_args(tmp_path, "--loop", "mesh"))
    manifest = tmp_path / "prepared" / "biorag_manifest.json"
    first = manifest.stat().st_mtime_ns
    r = train_loop_rate.run(_args(tmp_path, "--loop", "mesh"))
    assert manifest.stat().st_mtime_ns == first and r["setup_s"] >= 0
    assert [x["loop"] for x in r["rates"]] == ["mesh"]


def test_bad_input_and_tokenizer_are_one_line_errors(tmp_path, capsys):
    common = ["--arch", "tiny", "--device", "cpu", "--work", str(tmp_path / "work")]
    assert train_loop_rate.main(["--input", str(XML), "--tokenizer", str(tmp_path), *common]) == 2
    assert "holds no tokenizer.json or vocab.txt" in capsys.readouterr().err
    assert train_loop_rate.main(["--input", str(tmp_path / "none.xml"), "--tokenizer", str(TOKENIZER), *common]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "none.xml" in err and "Traceback" not in err
