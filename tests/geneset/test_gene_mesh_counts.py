"""Gene -> MeSH counts: written by `biorag index build` once the collection verifies (real
Milvus Lite, real abstracts), then used as a term library whose claims cite PMIDs."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest
from scipy.stats import hypergeom

from biorag.settings import load_settings
from biorag.storage.gene_mentions import GeneMeshCounts, gene_mesh_path
from indexing.gene_mesh_counts import count_gene_mesh, genes_named

SAMPLE = Path(__file__).resolve().parents[2] / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"


def sample_rows() -> list[dict]:
    with gzip.open(SAMPLE, "rt") as f:
        return [json.loads(line) for line in f]


def test_gene_mentions_are_symbols_as_words():
    dictionary = frozenset({"APP", "APOE", "BACE1", "CA1", "MAPT"})
    text = "APOE-e4 and APP processing by BACE1 in CA1 neurons; app-like, MAPTs and pAPP are not genes"
    assert genes_named(text, dictionary) == {"APP", "BACE1"}  # APOE-e4 is a token of its own; CA1 is a region


def test_counts_from_real_abstracts():
    rows = [{"pmid": r["pmid"], "title": r["title"], "abstract": r["abstract"],
             "mesh_ui": [m["ui"] for m in r["mesh"]], "mesh_name": [m["name"] for m in r["mesh"]]}
            for r in sample_rows()]
    mentions, names, per_gene, n = count_gene_mesh(rows)
    assert n == len(rows)
    app_rows = [r for r in rows if "APP" in genes_named(f"{r['title']}\n{r['abstract']}", frozenset({"APP"}))]
    assert per_gene["APP"] == len(app_rows) > 10
    ad = "D000544"  # Alzheimer Disease
    assert sorted(mentions[("APP", ad)]) == sorted(int(r["pmid"]) for r in app_rows if ad in r["mesh_ui"])
    assert names[ad] == "Alzheimer Disease"


@pytest.mark.milvus
def test_index_build_writes_counts_used_by_geneset(tmp_path):
    from biorag.ml.embedder import Embedder
    from indexing.build import build_index
    from retrievers.geneset.retriever import Claim, GeneSetInterpreter

    src = tmp_path / "records.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in sample_rows()[:150]))
    settings = load_settings(overrides={"data_dir": str(tmp_path / "data")})
    report = build_index(settings, [src], progress=False, embedder=Embedder(), batch_size=64)
    assert report.verified
    path = gene_mesh_path(settings)
    assert path.exists()
    con = sqlite3.connect(path)
    n_app = con.execute("SELECT n_pmids FROM genes WHERE symbol='APP'").fetchone()[0]
    con.close()
    assert n_app > 5
    counts = GeneMeshCounts.open(settings)
    assert counts is not None and counts.info()["records"] == report.rows
    it = GeneSetInterpreter(settings, mesh=counts, libraries=["mesh"])
    genes = ["APP", "BACE1", "APOE", "BACE2", "APLP2", "IDE"]
    try:
        rep = it.interpret(genes)
        assert set(rep.enriched) == {"mesh"} and rep.universes["mesh"] == len(counts.universe)
        assert any("no gene store" in n for n in rep.notes)
        top = rep.enriched["mesh"][0]
        assert set(top.overlap) <= set(genes) and top.k >= 2
        assert top.p == pytest.approx(hypergeom.sf(top.k - 1, len(counts.universe), top.K, top.n), rel=1e-9)
        assert top.name not in ("Humans", "Female", "Male")  # check tags are not terms
        checked = it.verify(Claim(kind="member", term=top.term, gene=top.overlap[0]), rep, {"mesh": counts.library(set(genes))})
        pmids = counts.pmids(top.overlap[0], top.term)
    finally:
        it.close()
    assert checked.supported and pmids
    assert checked.evidence[1:] == [f"PMID {p}" for p in pmids]
