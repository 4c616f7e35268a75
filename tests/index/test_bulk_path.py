"""The bulk path on real records (the bundled sample split into files), the real embedder:
Parquet shards, resumable per shard after a killed run; loaded into Milvus Lite by rows
and into a real Milvus server by its bulk import, verified, the alias switched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pyarrow.parquet as pq
import pytest
from index_helpers import ROOT, SAMPLE, CountingEmbedder, settings_for, shard_vectors
from typer.testing import CliRunner

from biorag.ml import pubmed_schema as ps
from biorag.ml.embedder import Embedder
from biorag.ml.vector_store import open_store
from cli.main import app
from indexing.bulk_load import load_shards, plan_bulk
from indexing.clean import Cleaner
from indexing.reader import read_file
from indexing.shards import embed_to_shards, finished, read_manifest
from indexing.split import split_pubmed_xml

pytestmark = pytest.mark.milvus


def kept_pmids(files) -> set[int]:
    clean = Cleaner()
    return {r.pmid for f in files for item in read_file(f) if (r := clean(item)) is not None}


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    return split_pubmed_xml(SAMPLE / "pubmed_0_to_99.xml.gz", tmp_path_factory.mktemp("parts"), 3)


@pytest.fixture(scope="module")
def shards(tmp_path_factory, parts, embedder):
    out = tmp_path_factory.mktemp("shards")
    settings = settings_for(tmp_path_factory.mktemp("data"), raw_rate_sample=0)
    report = embed_to_shards(settings, parts, out, progress=False, embedder=embedder, batch_size=16)
    assert report.ok and report.shards_written == 3 and report.rows == len(kept_pmids(parts))
    return out


def stored(uri: str, alias: str = "pubmed") -> dict[int, np.ndarray]:
    client = open_store(uri)
    try:
        target = ps.alias_target(client, alias)
        client.load_collection(target)
        rows = client.query(target, filter="pmid >= 0", output_fields=["pmid", ps.VECTOR_FIELD], limit=16000,
                            consistency_level="Strong")
        return {int(r["pmid"]): np.asarray(r[ps.VECTOR_FIELD], dtype=np.float32) for r in rows}
    finally:
        client.close()


def test_shards_hold_the_collection_fields_and_the_documents_vectors(shards, parts, embedder):
    manifest = read_manifest(shards)
    assert manifest["embedder"] == embedder.name and manifest["dim"] == 384
    assert [e["file"] for e in manifest["inputs"]] == [str(p) for p in parts]
    first = pq.read_table(shards / f"{manifest['inputs'][0]['shard']}.parquet").to_pylist()
    recs = [r for item in read_file(parts[0]) if (r := Cleaner()(item)) is not None]
    assert [r["pmid"] for r in first] == [r.pmid for r in recs]
    want = ps.row_from_record(recs[0], np.zeros(384))
    assert {k: first[0][k] for k in want if k != ps.VECTOR_FIELD} == {k: v for k, v in want.items() if k != ps.VECTOR_FIELD}
    ref = embedder.embed_documents([r.document_text() for r in recs[:5]])
    got = np.asarray([r[ps.VECTOR_FIELD] for r in first[:5]], dtype=np.float32)
    assert float((ref * got).sum(axis=1).min()) >= 0.9999


def test_load_into_milvus_lite_by_rows_verifies_and_switches(tmp_path, shards, parts, embedder):
    settings = settings_for(tmp_path)
    report = load_shards(settings, shards, progress=False, embedder=embedder)
    assert report.ok and report.alias_switched and report.bulk_imported_shards == 0
    got = stored(settings.milvus_uri)
    assert set(got) == kept_pmids(parts) and report.rows == len(got)
    want = shard_vectors(shards)
    assert all(np.allclose(got[p], want[p], atol=1e-6) for p in got)
    # a second load without --rebuild is refused; with it, it replaces the index
    res = CliRunner().invoke(app, ["index", "load", str(shards)], env={"BIORAG_DATA_DIR": str(tmp_path)})
    assert res.exit_code == 2 and "add --rebuild" in res.output and "Traceback" not in res.output
    again = load_shards(settings, shards, rebuild=True, progress=False, embedder=embedder)
    assert again.ok and again.alias_switched and again.previous_collection == report.collection


def test_load_refuses_shards_of_another_embedder_and_missing_shards(tmp_path, shards, embedder):
    copy = tmp_path / "shards"
    shutil.copytree(shards, copy)
    m = read_manifest(copy)
    (copy / f"{m['inputs'][1]['shard']}.json").unlink()  # an unfinished shard
    report = load_shards(settings_for(tmp_path), copy, progress=False, embedder=embedder)
    assert not report.alias_switched and m["inputs"][1]["file"] in report.failed_files
    m["embedder_id"] = "manifest:someone-else"
    (copy / "manifest.json").write_text(json.dumps(m))
    res = CliRunner().invoke(app, ["index", "load", str(copy)], env={"BIORAG_DATA_DIR": str(tmp_path)})
    assert res.exit_code == 2 and "were embedded with" in res.output


KILL_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from biorag.settings import load_settings
    from indexing.shards import embed_to_shards
    settings = load_settings(overrides={"data_dir": sys.argv[1], "index": {"raw_rate_sample": 0}})
    def die(report):
        if report.shards_written >= 1 and report.rows > 40:  # shard 1 finished, shard 2 under way
            os.kill(os.getpid(), signal.SIGKILL)
    embed_to_shards(settings, sys.argv[3:], sys.argv[2], progress=False, on_progress=die, batch_size=8)
    """
)


def test_a_killed_embed_stage_redoes_only_unfinished_shards(tmp_path, parts, embedder):
    out = tmp_path / "shards"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(tmp_path), str(out), *map(str, parts)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == -9, proc.stderr[-2000:]
    names = [e["shard"] for e in read_manifest(out)["inputs"]]
    done_before = [n for n in names if finished(out, n)]
    assert len(done_before) == 1 and list(out.glob("*.parquet.*.tmp"))  # one finished, one cut off
    first_mtime = (out / f"{done_before[0]}.parquet").stat().st_mtime_ns

    counting = CountingEmbedder(embedder)
    report = embed_to_shards(settings_for(tmp_path, raw_rate_sample=0), parts, out, progress=False,
                             embedder=counting, batch_size=8)
    assert report.ok and report.files_skipped == 1 and report.shards_written == 2
    assert sum(counting.calls) == len(kept_pmids(parts[1:])) == report.rows  # only the unfinished files
    assert (out / f"{done_before[0]}.parquet").stat().st_mtime_ns == first_mtime
    assert not list(out.glob("*.tmp")) and all(finished(out, n) for n in names)
    assert set(shard_vectors(out)) == kept_pmids(parts)


@pytest.mark.milvus_server
def test_bulk_import_into_a_milvus_server(tmp_path, milvus_server, shards, parts, embedder):
    settings = settings_for(tmp_path, uri=milvus_server)
    report = load_shards(settings, shards, alias="bulk_a", progress=False, embedder=embedder)
    assert report.ok and report.alias_switched and report.bulk_imported_shards == 3
    got = stored(milvus_server, "bulk_a")
    assert set(got) == kept_pmids(parts) and report.rows == len(got)
    want = shard_vectors(shards)
    assert all(np.allclose(got[p], want[p], atol=1e-6) for p in got)
    # MeSH filters work on the imported rows, and the build's descriptor counts were kept
    client = open_store(milvus_server)
    try:
        target = ps.alias_target(client, "bulk_a")
        counts = ps.read_mesh_counts(client.describe_collection(target))
        ui, n = max(counts.items(), key=lambda kv: kv[1])
        hits = client.query(target, filter=f'array_contains(mesh_ui, "{ui}")', output_fields=["pmid"], limit=16000,
                            consistency_level="Strong")
        assert len(hits) == n > 1
    finally:
        client.close()


@pytest.mark.milvus_server
def test_shards_that_repeat_pmids_are_loaded_by_rows_exactly(tmp_path, milvus_server, shards, parts, embedder):
    # the same real file again under another name: every PMID of it comes twice, which a
    # bulk import cannot replace, so that shard goes in by upserts
    again = tmp_path / "again.xml.gz"
    shutil.copy(parts[0], again)
    out = tmp_path / "shards"
    shutil.copytree(shards, out)
    settings = settings_for(tmp_path, uri=milvus_server, raw_rate_sample=0)
    embed_to_shards(settings, [*parts, again], out, progress=False, embedder=embedder, batch_size=16)
    infos = [finished(out, e["shard"]) for e in read_manifest(out)["inputs"]]
    assert plan_bulk(infos, out) == 3
    report = load_shards(settings, out, alias="bulk_b", progress=False, embedder=embedder)
    assert report.ok and report.bulk_imported_shards == 3
    assert report.rows == len(stored(milvus_server, "bulk_b")) == len(kept_pmids(parts))
