"""Index snapshots on real records and the real embedder, Milvus Lite: `biorag index export`
then `biorag index import` on another data dir gives the same rows and the same exact top-10;
a truncated or changed shard and a mismatched embedder are refused, and the index that was
serving keeps serving."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from index_helpers import sample_rows, settings_for, write_jsonl
from typer.testing import CliRunner

from biorag.knowledge.mesh import vocabulary_version
from biorag.ml import pubmed_schema as ps
from biorag.ml.embedder import Embedder, model_path, weights_digest
from biorag.ml.vector_store import open_store
from cli.main import app
from indexing.build import build_index
from indexing.shards import read_manifest

pytestmark = pytest.mark.milvus

FIELDS = ["pmid", "title", "abstract", "journal", "year", "mesh_ui", "mesh_name", "mesh_major", "mesh_key",
          "pub_types", ps.VECTOR_FIELD]


def cli(data_dir, *argv, extra_env=None):
    return CliRunner().invoke(app, list(argv), env={"BIORAG_DATA_DIR": str(data_dir), **(extra_env or {})})


def rows_of(data_dir, alias: str = "pubmed") -> tuple[str, dict[int, dict]]:
    client = open_store(settings_for(data_dir).milvus_uri)
    try:
        target = ps.alias_target(client, alias)
        client.load_collection(target)
        rows = client.query(target, filter="pmid >= 0", output_fields=FIELDS, limit=16000, consistency_level="Strong")
        return target, {int(r["pmid"]): {k: r[k] for k in FIELDS} for r in rows}
    finally:
        client.close()


def exact_top10(rows: dict[int, dict], queries: np.ndarray) -> list[list[int]]:
    pmids = np.array(sorted(rows))
    m = np.asarray([rows[p][ps.VECTOR_FIELD] for p in pmids], dtype=np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return [pmids[np.argsort(-(m @ q), kind="stable")[:10]].tolist() for q in queries]


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


@pytest.fixture(scope="module")
def source(tmp_path_factory, embedder):
    """A data dir with a built index of 150 real records, and its snapshot (3 shards)."""
    data = tmp_path_factory.mktemp("source")
    report = build_index(settings_for(data), [write_jsonl(data / "in.jsonl", sample_rows(150))], progress=False,
                         embedder=embedder)
    assert report.ok and report.alias_switched
    snap = tmp_path_factory.mktemp("snaps") / "snap"
    res = cli(data, "index", "export", str(snap), "--shard-rows", "64")
    assert res.exit_code == 0, res.output
    assert "biorag index import" in res.output
    return data, snap


def test_export_then_import_elsewhere_gives_the_same_rows_and_exact_top10(source, tmp_path, embedder):
    data, snap = source
    m = read_manifest(snap)
    _, want = rows_of(data)
    assert m["rows"] == len(want) and len(m["inputs"]) == -(-len(want) // 64)
    assert m["pmid_range"] == [min(want), max(want)]
    assert (m["dim"], m["metric"], m["embedder"]) == (384, "COSINE", embedder.name)
    assert m["embedder_sha256"] == weights_digest(embedder.name) and m["mesh_vocabulary"] == vocabulary_version()
    assert m["build"]["settings"]["index_type"] == "HNSW" and all(len(e["sha256"]) == 64 for e in m["inputs"])

    res = cli(tmp_path, "index", "import", str(snap))
    assert res.exit_code == 0, res.output
    _, got = rows_of(tmp_path)
    assert set(got) == set(want)
    for p, row in want.items():
        assert {k: v for k, v in got[p].items() if k != ps.VECTOR_FIELD} == {
            k: v for k, v in row.items() if k != ps.VECTOR_FIELD}
        assert np.array_equal(np.asarray(got[p][ps.VECTOR_FIELD], dtype=np.float32),
                              np.asarray(row[ps.VECTOR_FIELD], dtype=np.float32))
    queries = embedder.embed_queries([r["title"] for r in sample_rows(100, start=200)])
    assert exact_top10(got, queries) == exact_top10(want, queries)
    # and the imported index answers searches through the CLI like the original
    a = cli(data, "search", "pubmed", "amyloid beta in cerebrospinal fluid", "--json")
    b = cli(tmp_path, "search", "pubmed", "amyloid beta in cerebrospinal fluid", "--json")
    assert a.exit_code == 0 and b.exit_code == 0
    assert [h["id"] for h in json.loads(a.stdout)["hits"]] == [h["id"] for h in json.loads(b.stdout)["hits"]]


@pytest.mark.parametrize("damage", ["truncated", "one byte changed", "missing"])
def test_a_damaged_shard_is_refused_and_the_old_index_keeps_serving(source, tmp_path, damage):
    data, snap = source
    assert cli(tmp_path, "index", "import", str(snap)).exit_code == 0
    before, rows_before = rows_of(tmp_path)
    bad = tmp_path / "bad"
    shutil.copytree(snap, bad)
    shard = bad / f"{read_manifest(bad)['inputs'][1]['shard']}.parquet"
    blob = shard.read_bytes()
    if damage == "truncated":
        shard.write_bytes(blob[: len(blob) // 2])
    elif damage == "missing":
        shard.unlink()
    else:
        shard.write_bytes(blob[:100] + bytes([blob[100] ^ 0xFF]) + blob[101:])
    res = cli(tmp_path, "index", "import", str(bad), "--rebuild")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert shard.name in res.output and "refused" in res.output
    after, rows_after = rows_of(tmp_path)
    assert after == before and rows_after.keys() == rows_before.keys()
    client = open_store(settings_for(tmp_path).milvus_uri)
    try:
        assert client.list_collections() == [before]  # nothing was written for the refused snapshot
    finally:
        client.close()


def test_a_snapshot_of_another_embedder_is_refused_naming_both(source, tmp_path):
    _, snap = source
    other = tmp_path / "other-model"
    shutil.copytree(model_path("all-MiniLM-L6-v2"), other)
    res = cli(tmp_path, "index", "import", str(snap), extra_env={"BIORAG_INDEX__EMBEDDER": str(other)})
    assert res.exit_code == 2
    errors = [line for line in res.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "all-MiniLM-L6-v2" in errors[0] and str(other) in errors[0]
    assert not Path(settings_for(tmp_path).milvus_uri).exists()  # refused before the store was opened


def test_the_same_embedder_name_with_other_weights_is_refused(tmp_path, embedder):
    """A model directory exported from, then changed: the name matches, the weights do not."""
    model = tmp_path / "model"
    shutil.copytree(model_path("all-MiniLM-L6-v2"), model)
    data = tmp_path / "data"
    settings = settings_for(data, embedder=str(model))
    assert build_index(settings, [write_jsonl(tmp_path / "in.jsonl", sample_rows(20))], progress=False).ok
    env = {"BIORAG_INDEX__EMBEDDER": str(model)}
    assert cli(data, "index", "export", str(tmp_path / "snap"), extra_env=env).exit_code == 0
    weights = model / "model.safetensors"
    blob = bytearray(weights.read_bytes())
    blob[-10] ^= 0x01
    weights.write_bytes(bytes(blob))
    res = cli(tmp_path / "elsewhere", "index", "import", str(tmp_path / "snap"), extra_env=env)
    assert res.exit_code == 2 and "other weights" in res.output and str(model) in res.output


def test_stats_print_the_vector_index_type_and_its_parameters(source):
    data, _ = source
    res = cli(data, "index", "stats", "--json")
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["vector_index_type"] == "HNSW" and info["vector_index_metric"] == "COSINE"
    assert (int(info["vector_index_params"]["M"]), int(info["vector_index_params"]["efConstruction"])) == (16, 200)
    assert "Milvus Lite" in info["server_memory"]
