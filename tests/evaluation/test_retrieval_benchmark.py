"""`biorag eval retrieval` end to end on a small real slice: PubMedQA questions with their
contexts, real PubMed records as distractors, a real Milvus Lite index and the bundled
embedder. Checks the figures it reports are computed, not what they are."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.milvus

ROOT = Path(__file__).resolve().parents[2]
PUBMEDQA = ROOT / "tests" / "data" / "training" / "pubmedqa_sample.json"
CORPUS = ROOT / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"


def test_retrieval_benchmark_small_run(tmp_path):
    out = tmp_path / "bench"
    proc = subprocess.run(
        [sys.executable, "-m", "cli.main", "eval", "retrieval", "--dataset", "pubmedqa", "-q", str(PUBMEDQA),
         "--corpus", str(CORPUS), "--limit", "6", "--corpus-limit", "30", "--out", str(out), "--json"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    assert summary["questions"] == 6 and summary["corpus_gold"] == 6 and summary["corpus_distractors"] == 30
    assert set(summary["modes"]) == {"dense", "mesh_gold", "mesh_tagger", "mesh_boost", "bm25"}
    # each question's own context is in a 36-document index: dense search must find it
    assert summary["modes"]["dense"]["recall@10"] == 1.0
    for mode in summary["modes"].values():
        assert 0.0 <= mode["recall@1"] <= mode["recall@4"] <= mode["recall@10"] <= 1.0
        assert mode["p95_ms"] >= mode["p50_ms"] > 0
    build = summary["build"]
    assert build["kept"] == 36
    assert build["embed_in_build_per_s"] > 0 and summary["raw_embed_rate_per_s"] > 0
    rates = summary["raw_embed_rate_samples"]
    assert len(rates) == 3 and sorted(rates)[1] == summary["raw_embed_rate_per_s"]  # the median of three
    assert build["build_vs_raw_embed_rate"] == pytest.approx(build["records_per_s"] / summary["raw_embed_rate_per_s"], rel=0.02)
    with open(out / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6 * 5
    # 36 documents: every gold-MeSH filter matches few rows, so it is scored exactly; a boost never widens
    assert summary["modes"]["mesh_gold"]["exact_share"] == 1.0
    assert summary["modes"]["mesh_boost"]["widened_share"] == 0.0 and summary["modes"]["mesh_boost"]["exact_share"] == 0.0
    assert all(r["mesh"] for r in rows if r["mode"] == "mesh_gold")  # the oracle filter is never empty
    assert (out / "retrieval.png").stat().st_size > 1000
