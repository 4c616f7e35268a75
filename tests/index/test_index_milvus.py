"""Build, update, rebuild, resume and search against real Milvus Lite files with the real
bundled embedder (small record counts to keep it quick)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap

import pytest
from index_helpers import (
    ROOT,
    SAMPLE,
    CountingEmbedder,
    FailingEmbedder,
    sample_rows,
    settings_for,
    write_jsonl,
)

from biorag.contracts.errors import InputError, SourceUnavailable
from biorag.contracts.models import SearchFilters
from biorag.ml import pubmed_schema as ps
from biorag.ml.embedder import Embedder
from biorag.ml.vector_store import open_store
from biorag.understanding.search_request import SearchRequest
from indexing.build import build_index
from retrievers.pubmed.retriever import PubMedRetriever

pytestmark = pytest.mark.milvus

DATA = ROOT / "tests" / "data" / "index"
AD = "D000544"  # Alzheimer Disease


def mesh_counts(rows: list[dict]) -> dict[str, int]:
    """How many of the rows carry each descriptor UI."""
    counts: dict[str, int] = {}
    for row in rows:
        for m in row["mesh"]:
            counts[m["ui"]] = counts.get(m["ui"], 0) + 1
    return counts


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


@pytest.fixture(scope="module")
def built(tmp_path_factory, embedder):
    tmp = tmp_path_factory.mktemp("ix")
    rows = sample_rows(20)
    src = write_jsonl(tmp / "records.jsonl", rows)
    broken = tmp / "broken.xml"
    broken.write_text(gzip.open(SAMPLE / "pubmed_0_to_99.xml.gz", "rt").read()[:6000] + "<x></PubmedArticleSet>")
    settings = settings_for(tmp)
    report = build_index(settings, [src, broken, DATA / "bare_articles_bom.xml"], progress=False,
                         embedder=embedder, batch_size=8)
    served = build_index(settings, [src, DATA / "bare_articles_bom.xml"], progress=False,
                         embedder=embedder, batch_size=8)
    # one client held for the module's lifetime; the in-process CLI test shares this
    # process's Milvus Lite server with it
    keeper = open_store(settings.milvus_uri)
    yield settings, report, rows, tmp, served
    keeper.close()


def test_malformed_file_is_reported_and_others_indexed(built):
    settings, report, rows, _, served = built
    assert list(report.failed_files) == [str(built[3] / "broken.xml")]
    assert "malformed XML near line" in report.failed_files[str(built[3] / "broken.xml")]
    assert not report.ok  # a failed file makes the build exit non-zero ...
    assert report.verified and report.kept >= 20 and report.rows == report.kept  # ... what was read verifies ...
    assert not report.alias_switched  # ... but an index missing a file's records never serves
    assert served.ok and served.alias_switched and served.rows == report.rows
    assert set(report.seconds) >= {"parse", "clean", "embed", "load", "verify", "wall"}


def test_search_returns_full_evidence(built, embedder):
    settings = built[0]
    r = PubMedRetriever.from_settings(settings)
    r._embedder = embedder
    hits = r.search(SearchRequest.of(sample_rows(1)[0]["title"], 4))
    assert len(hits) == 4
    top = hits[0]
    assert top.source == "pubmed" and top.id == str(sample_rows(1)[0]["pmid"])
    assert top.title and top.text and top.metadata["year"] and top.metadata["mesh"] and top.metadata["mesh_ui"]
    assert top.url.endswith(f"/{top.id}/") and hits[0].score >= hits[-1].score
    r.close()


def test_mesh_filter_every_hit_carries_a_requested_descriptor(built, embedder):
    settings = built[0]
    r = PubMedRetriever.from_settings(settings)
    r._embedder = embedder
    rows = built[2]
    # a descriptor present in some but not all records
    counts = mesh_counts(rows)
    mid = next(u for u, c in sorted(counts.items()) if 4 <= c < len(rows) and ps.vocabulary().by_ui.get(u))
    for terms in ([mid], [ps.vocabulary().by_ui[mid].name.lower()], [mid, AD]):
        hits = r.search(SearchRequest.of("memory decline and treatment", 4, SearchFilters(mesh=terms)))
        wanted = {ps.vocabulary().resolve(t).ui for t in terms}
        assert len(hits) == 4
        assert all(wanted & set(h.metadata["mesh_ui"]) for h in hits), terms
        assert all(h.metadata["mesh_match"] and not h.metadata["widened"] for h in hits)
    assert hits.info["widened"] is False and "matched 4 of 4" in hits.info["note"]
    assert hits.info["filter"] and hits.info["mesh"] == sorted(wanted) and hits.info["batch"] >= 1
    r.close()


def test_selective_filter_is_searched_exactly_and_agrees_with_hnsw(built, embedder):
    settings, _, rows, _, _ = built
    counts = mesh_counts(rows)
    mid = next(u for u, c in sorted(counts.items()) if 5 <= c < len(rows) and ps.vocabulary().by_ui.get(u))
    r = PubMedRetriever.from_settings(settings)
    r._embedder = embedder
    assert r.exact_filter_rows > 0  # automatic: on by default
    query = "memory decline and treatment"
    exact = r.search(SearchRequest.of(query, 4, SearchFilters(mesh=[mid])))
    assert r.mesh_counts is not None and r.mesh_counts[mid] == counts[mid]  # kept by the build
    assert exact.info["path"] == "exact" and "searched exactly" in exact.info["note"]
    assert exact.info["matching_rows"] == counts[mid]
    assert all(mid in h.metadata["mesh_ui"] for h in exact)
    r.exact_filter_rows = counts[mid] - 1  # more matching rows than the exact path takes
    ann = r.search(SearchRequest.of(query, 4, SearchFilters(mesh=[mid])))
    assert ann.info["path"] == "ann" and "HNSW" in ann.info["note"]
    # on a few rows HNSW is exact too: same records, same order, same cosine scores
    assert [h.id for h in exact] == [h.id for h in ann]
    assert [h.score for h in exact] == pytest.approx([h.score for h in ann], abs=1e-4)
    assert exact[0].title and exact[0].text  # full evidence, fetched for the top hits
    r.close()


def test_widening_reported_when_filter_is_short(built, embedder):
    settings = built[0]
    rows = built[2]
    counts = mesh_counts(rows)
    rare = next(u for u, c in sorted(counts.items()) if c == 1 and ps.vocabulary().by_ui.get(u))
    r = PubMedRetriever.from_settings(settings)
    r._embedder = embedder
    hits = r.search(SearchRequest.of("brain pathology", 4, SearchFilters(mesh=[rare])))
    assert len(hits) == 4
    matched = [h for h in hits if h.metadata["mesh_match"]]
    assert len(matched) == 1 and rare in matched[0].metadata["mesh_ui"] and not matched[0].metadata["widened"]
    assert all(h.metadata["widened"] and not h.metadata["mesh_match"] for h in hits if h is not matched[0])
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)  # one list, by similarity
    assert hits.info["widened"] and "filled 3 from unfiltered search" in hits.info["note"]
    r.widen = "none"
    short = r.search(SearchRequest.of("brain pathology", 4, SearchFilters(mesh=[rare])))
    assert len(short) == 1 and "not widened" in short.info["note"]
    r.close()


@pytest.mark.parametrize("term", ['"] or pmid > 0 or mesh in ["', "Not A Descriptor", "D00054"])
def test_bad_mesh_terms_rejected_before_search(built, embedder, term):
    r = PubMedRetriever.from_settings(built[0])
    r._embedder = embedder
    with pytest.raises(InputError, match="MeSH term"):
        r.search(SearchRequest.of("anything", 4, SearchFilters(mesh=[term])))
    r.close()


def test_year_filter(built, embedder):
    r = PubMedRetriever.from_settings(built[0])
    r._embedder = embedder
    years = sorted(int(row["year"]) for row in built[2])
    cut = years[len(years) // 2]
    hits = r.search(SearchRequest.of("Alzheimer disease", 10, SearchFilters(year_from=cut)))
    assert hits and all(h.metadata["year"] >= cut for h in hits)
    r.close()


def test_missing_index_is_source_unavailable(tmp_path):
    r = PubMedRetriever.from_settings(settings_for(tmp_path))
    with pytest.raises(SourceUnavailable, match="biorag index build"):
        r.search(SearchRequest.of("anything", 4))
    assert not (tmp_path / "milvus").exists()  # the retriever never creates an empty store


def test_update_with_delete_citation_and_newer_version(tmp_path, embedder):
    settings = settings_for(tmp_path)
    rows = sample_rows(10, start=40)
    first = build_index(settings, [write_jsonl(tmp_path / "base.jsonl", rows)], progress=False, embedder=embedder)
    assert first.ok and first.mode == "fresh" and first.rows == 10
    newer = dict(rows[1], title="Revised title of this record")
    upd = tmp_path / "update.jsonl"
    upd.write_text(json.dumps(newer) + "\n" + json.dumps({"delete": [rows[0]["pmid"]]}) + "\n")
    second = build_index(settings, [upd], progress=False, embedder=embedder)
    assert second.ok and second.mode == "update" and second.collection == first.collection
    assert second.deleted == 1 and second.rows == 9
    client = open_store(settings.milvus_uri)
    try:
        got = client.get(first.collection, ids=[int(rows[0]["pmid"]), int(rows[1]["pmid"])], output_fields=["title"])
    finally:
        client.close()
    assert [g["title"] for g in got] == ["Revised title of this record"]


def test_alias_switches_only_after_a_verified_rebuild(tmp_path, embedder):
    settings = settings_for(tmp_path)
    src = write_jsonl(tmp_path / "a.jsonl", sample_rows(6, start=60))
    first = build_index(settings, [src], progress=False, embedder=embedder)
    assert first.alias_switched

    def alias_target():
        c = open_store(settings.milvus_uri)
        try:
            return ps.alias_target(c, "pubmed"), c.list_collections()
        finally:
            c.close()

    bigger = write_jsonl(tmp_path / "b.jsonl", sample_rows(12, start=60))
    with pytest.raises(RuntimeError, match="simulated"):
        build_index(settings, [bigger], rebuild=True, progress=False, embedder=FailingEmbedder(embedder, 1), batch_size=4)
    target, _ = alias_target()
    assert target == first.collection  # failed rebuild: the old index keeps serving
    r = PubMedRetriever.from_settings(settings)
    r._embedder = embedder
    assert len(r.search(SearchRequest.of("amyloid", 10))) == 6
    r.close()

    ok = build_index(settings, [bigger], rebuild=True, progress=False, embedder=embedder, batch_size=4)
    assert ok.ok and ok.alias_switched and ok.previous_collection == first.collection
    assert ok.resumed_items == 4  # it continued the interrupted rebuild's collection
    target, collections = alias_target()
    assert target == ok.collection != first.collection and first.collection in collections
    assert ok.rows == 12


def test_small_files_share_batches_and_resume_per_file(tmp_path, embedder):
    rows = sample_rows(10, start=30)
    files = [write_jsonl(tmp_path / f"one_{i:02d}.jsonl", [r]) for i, r in enumerate(rows)]
    settings = settings_for(tmp_path, checkpoint_seconds=3600)  # only file ends and failures checkpoint
    crashing = CountingEmbedder(embedder, left=1)
    with pytest.raises(RuntimeError, match="simulated"):
        build_index(settings, files, progress=False, embedder=crashing, batch_size=4)
    assert crashing.calls == [4, 4]  # one record per file, yet full batches
    counting = CountingEmbedder(embedder)
    report = build_index(settings, files, progress=False, embedder=counting, batch_size=4)
    assert report.ok and report.rows == 10
    # the first batch's checkpoint: files 0-2 done; file 3's record committed, but its end not
    # yet seen when the batch left, so it is skipped by item count
    assert report.files_skipped == 3 and report.resumed_items == 1 and report.upserted == 6
    assert counting.calls[:2] == [4, 2]  # then `verify` re-embeds a sample for its round-trip check


KILL_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from biorag.settings import load_settings
    from indexing.build import build_index
    settings = load_settings(overrides={"data_dir": sys.argv[1], "index": {"checkpoint_seconds": 0}})
    def die(report):
        if report.upserted >= 8:
            os.kill(os.getpid(), signal.SIGKILL)
    build_index(settings, [sys.argv[2]], progress=False, on_progress=die, batch_size=4)
    """
)


def test_resume_after_killed_build(tmp_path, embedder):
    src = write_jsonl(tmp_path / "r.jsonl", sample_rows(16, start=80))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(tmp_path), str(src)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == -9, proc.stderr[-2000:]
    settings = settings_for(tmp_path)
    report = build_index(settings, [src], progress=False, embedder=embedder, batch_size=4)
    assert report.ok and report.mode == "fresh"
    assert report.resumed_items == 8 and report.upserted == 8  # only the rest was embedded
    assert report.rows == 16 and report.alias_switched
    assert not list((tmp_path / "index_jobs").glob("*.json"))  # job file removed on success


def test_search_command_json(built):
    from typer.testing import CliRunner

    from cli.main import app

    env = {"BIORAG_DATA_DIR": str(built[3])}
    res = CliRunner().invoke(app, ["search", "pubmed", "amyloid beta in brain", "--mesh", "Alzheimer Disease", "--k", "3", "--json"], env=env)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    assert len(out["hits"]) == 3 and all(AD in h["metadata"]["mesh_ui"] for h in out["hits"])
    bad = CliRunner().invoke(app, ["search", "pubmed", "x", "--mesh", '"] or pmid > 0 or mesh in ["'], env=env)
    assert bad.exit_code != 0 and "invalid MeSH term" in bad.output
    stats = CliRunner().invoke(app, ["index", "stats", "--json"], env=env)
    assert stats.exit_code == 0 and json.loads(stats.stdout[stats.stdout.index("{"):])["rows"] == built[4].rows
