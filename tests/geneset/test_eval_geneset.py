"""`biorag eval geneset`: the three benchmark layouts, ROUGE as GeneAgent scored it, the
embedding similarity, and the rule that a benchmark is never scored with its own library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.geneset_naming import NameScorer, read_benchmark

DATA = Path(__file__).parents[1] / "data" / "geneset"


def test_three_layouts_are_read():
    layout, nest = read_benchmark(DATA / "nest_sample.tsv")
    assert layout == "nest" and len(nest) == 8
    assert nest[0].id == "NEST:256" and nest[0].gold == "MAPK signaling"
    assert nest[0].genes == ["ERBB2", "ERBB4", "FGFR2", "FGFR4", "HRAS", "KRAS"]
    layout, go = read_benchmark(DATA / "go_sample.csv")
    assert layout == "go" and len(go) == 8
    assert go[0].genes == ["LDLRAP1", "SCP2D1", "ANXA2", "SCP2"] and go[2].gold == "nucleotide-excision repair, DNA incision"
    layout, msig = read_benchmark(DATA / "msigdb_layout_sample.csv")
    assert layout == "msigdb" and len(msig) == 6
    assert msig[0].gold == "Extended mismatch repair complex" and len(msig[0].genes) == 10
    assert msig[3].id == "GO:0039534" and msig[3].genes == ["DHX58", "C1QBP", "RIOK3", "TKFC"]


def test_unknown_layout_is_one_clear_error(tmp_path):
    from biorag.contracts.errors import InputError

    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="unknown layout"):
        read_benchmark(bad)


def test_rouge_by_hand():
    s = NameScorer()
    # gold: extended mismatch repair complex; proposed: mismatch repair
    r = s.rouge("Extended mismatch repair complex", "mismatch repair (GO:0006298)")
    assert r["rouge1"] == pytest.approx(2 / 3, abs=1e-4)  # P 2/2, R 2/4
    assert r["rouge2"] == pytest.approx(0.5, abs=1e-4)  # P 1/1, R 1/3
    assert r["rougeL"] == pytest.approx(2 / 3, abs=1e-4)
    assert s.rouge("MAPK signaling", "regulation of ERK1 and ERK2 cascade")["rougeL"] == 0.0
    assert s.rouge("Beta-catenin destruction complex", "beta catenin destruction complexes")["rouge1"] == 1.0  # stemmed


def test_similarity_with_bundled_embedder():
    from biorag.ml.embedder import Embedder

    sims = NameScorer(Embedder()).similarity(["mismatch repair", "mismatch repair"], ["mismatch repair", "olfactory receptor activity"])
    assert sims[0] == pytest.approx(1.0, abs=1e-3) and sims[1] < 0.6


@pytest.mark.parametrize("fixture,left_out", [("go_sample.csv", ["go_bp"]), ("nest_sample.tsv", []),
                                              ("msigdb_layout_sample.csv", [])])
def test_eval_command(tmp_path, geneset_data_dir, fixture, left_out):
    from typer.testing import CliRunner

    from cli.main import app

    out = tmp_path / "run"
    r = CliRunner().invoke(app, ["eval", "geneset", "-q", str(DATA / fixture), "--out", str(out), "--no-similarity",
                                 "--set", f"data_dir={geneset_data_dir}"])
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "summary.json").read_text())
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert summary["libraries_left_out"] == left_out and summary["sets"] == len(rows)
    assert all(lib not in summary["libraries"] for lib in left_out)
    if left_out:
        assert all(not (r["library"] or "").startswith("go_bp") for r in rows)
    scorer = NameScorer()
    for row in rows:
        assert {k: row[k] for k in ("rouge1", "rouge2", "rougeL")} == scorer.rouge(row["gold"], row["proposed"])
    assert summary["mean"]["rougeL"] == pytest.approx(sum(x["rougeL"] for x in rows) / len(rows), abs=1e-4)
    assert "ROUGE-L" in r.stdout and "GeneAgent (published)" in r.stdout
