"""A snapshot made from Milvus Lite, imported into a real Milvus server (2.3.5) by its bulk
import with the paper preset's index settings (IVF_SQ8, memory-mapped text), searched, and
described by `biorag index stats` (index type, parameters, the memory the server reports)."""

from __future__ import annotations

import json

import pytest
from index_helpers import sample_rows, settings_for, write_jsonl
from typer.testing import CliRunner

from biorag.ml.embedder import Embedder
from cli.main import app
from indexing.build import build_index

pytestmark = [pytest.mark.milvus, pytest.mark.milvus_server]


def test_a_lite_snapshot_imports_into_a_server_with_ivf_sq8_and_stats_describe_it(tmp_path, milvus_server):
    data = tmp_path / "lite"
    rows = sample_rows(60)
    assert build_index(settings_for(data), [write_jsonl(tmp_path / "in.jsonl", rows)], progress=False,
                       embedder=Embedder()).ok
    runner = CliRunner()
    snap = tmp_path / "snap"
    assert runner.invoke(app, ["index", "export", str(snap)], env={"BIORAG_DATA_DIR": str(data)}).exit_code == 0
    env = {"BIORAG_DATA_DIR": str(tmp_path / "server-data"), "BIORAG_INDEX__URI": milvus_server,
           "BIORAG_INDEX__INDEX_TYPE": "IVF_SQ8", "BIORAG_INDEX__MMAP_RAW": "true",
           "BIORAG_INDEX__INDEX_PARAMS": '{"nlist": 16}', "BIORAG_INDEX__SEARCH_NPROBE": "16",
           "BIORAG_INDEX__COLLECTION": "snapshot_pubmed"}
    res = runner.invoke(app, ["index", "import", str(snap), "--json"], env=env)
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["bulk_imported_shards"] == 1 and report["rows"] == len({r["pmid"] for r in rows})
    res = runner.invoke(app, ["index", "stats", "--json"], env=env)
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["vector_index_type"] == "IVF_SQ8" and int(info["vector_index_params"]["nlist"]) == 16
    # a number, not an error (2.3.5 reports 0.0 MB for bulk-imported segments)
    assert isinstance(info["loaded_segments_mb"], float) and "server_rss_mb" in info
    title = rows[3]["title"]
    res = runner.invoke(app, ["search", "pubmed", title, "--json"], env=env)
    assert res.exit_code == 0, res.output
    hits = json.loads(res.stdout)["hits"]
    assert hits and str(rows[3]["pmid"]) in {str(h["id"]) for h in hits}
