"""A rebuild replaces the served index only when it is whole: real Milvus Lite files, the
real bundled embedder, real (and really truncated) PubMed files.

- a truncated .xml.gz never moves the alias, by the API of `build_index` and by the CLI;
- verification holds the collection to what the build wrote (lost writes, deletes that
  did not happen);
- a rebuild much smaller than the served index needs --allow-shrink;
- `index stats` lists what failed builds left and `index gc` removes it, never the alias target;
- files found in folders are resolved and refused outside the allowed roots;
- a Milvus Lite store held by another process gives one line that names it, no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from index_helpers import ROOT, SAMPLE, sample_rows, settings_for, write_jsonl
from typer.testing import CliRunner

from biorag.ml import pubmed_schema as ps
from biorag.ml.embedder import Embedder
from biorag.ml.vector_store import open_store
from cli.main import app
from indexing.build import build_index

pytestmark = pytest.mark.milvus



def truncated_copy(dest: Path) -> Path:
    """The first half of a real PubMed .xml.gz, as a cut-off download leaves it."""
    data = (SAMPLE / "pubmed_0_to_99.xml.gz").read_bytes()
    dest.write_bytes(data[: len(data) // 2])
    return dest


def served(settings) -> tuple[str | None, int, list[str]]:
    client = open_store(settings.milvus_uri)
    try:
        target = ps.alias_target(client, settings.index.collection)
        rows = 0
        if target:
            client.load_collection(target)
            rows = ps.row_count(client, target)
        return target, rows, sorted(client.list_collections())
    finally:
        client.close()


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


def test_truncated_rebuild_never_switches_the_alias(tmp_path, embedder):
    settings = settings_for(tmp_path)
    first = build_index(settings, [write_jsonl(tmp_path / "base.jsonl", sample_rows(12))], progress=False,
                        embedder=embedder)
    assert first.ok and first.alias_switched and first.rows == 12

    bad = truncated_copy(tmp_path / "pubmed_0_to_99_cut.xml.gz")
    report = build_index(settings, [bad], rebuild=True, progress=False, embedder=embedder)
    # the records before the cut were indexed and verify; the file still failed
    assert "truncated" in report.failed_files[str(bad)]
    assert report.upserted > 12 and report.verified
    assert not report.ok and not report.alias_switched
    assert served(settings)[:2] == (first.collection, 12)  # the old index serves, whole

    # the same through the CLI: non-zero exit, the file named, the alias named as not switched
    env = {"BIORAG_DATA_DIR": str(tmp_path)}
    res = CliRunner().invoke(app, ["index", "build", "--rebuild", "-i", str(bad), "--json"], env=env)
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    assert out["alias_switched"] is False and out["ok"] is False and str(bad) in out["failed_files"]
    assert served(settings)[:2] == (first.collection, 12)

    # what the failed build left is listed by stats and removed by gc, never the served one
    stats = CliRunner().invoke(app, ["index", "stats", "--json"], env=env)
    info = json.loads(stats.stdout[stats.stdout.index("{"):])
    assert info["collection"] == first.collection
    assert info["removable_by_gc"] == [report.collection]
    assert [c["status"] for c in info["collections"]] == ["failed"]
    dry = CliRunner().invoke(app, ["index", "gc", "--dry-run"], env=env)
    assert dry.exit_code == 0 and f"would remove {report.collection}" in dry.output
    assert report.collection in served(settings)[2]
    gc = CliRunner().invoke(app, ["index", "gc", "--json"], env=env)
    gone = json.loads(gc.stdout[gc.stdout.index("{"):])
    assert [c["name"] for c in gone["removed"]] == [report.collection]
    assert served(settings) == (first.collection, 12, [first.collection])
    assert not list((tmp_path / "index_jobs").glob("*.json"))  # the failed build's job file went with it


class LossyClient:
    """The real client, except that the store silently loses what `lose` says: one row of
    every upsert, or every delete."""

    def __init__(self, inner, lose: str):
        self._inner, self._lose = inner, lose

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def upsert(self, collection_name, data, **kw):
        if self._lose == "upsert" and len(data) > 1:
            data = data[:-1]
        return self._inner.upsert(collection_name=collection_name, data=data, **kw)

    def delete(self, collection_name, filter, **kw):  # noqa: A002 - pymilvus's keyword
        if self._lose == "delete":
            return {"delete_count": 0}
        return self._inner.delete(collection_name=collection_name, filter=filter, **kw)


@pytest.mark.parametrize("lose,problem", [("upsert", "but this build left"), ("delete", "still there")])
def test_verification_holds_the_collection_to_what_the_build_wrote(tmp_path, embedder, lose, problem):
    rows = sample_rows(10, start=100)
    src = tmp_path / "with_delete.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows) + json.dumps({"delete": [rows[0]["pmid"]]}) + "\n")
    settings = settings_for(tmp_path)
    client = open_store(settings.milvus_uri, create=True)
    try:
        report = build_index(settings, [src], progress=False, embedder=embedder, batch_size=4,
                             client=LossyClient(client, lose))
    finally:
        client.close()
    assert report.expected_rows == 9  # ten written, one deleted
    assert not report.verified and any(problem in p for p in report.verify_problems), report.verify_problems
    assert not report.alias_switched and served(settings)[0] is None


def test_rebuild_much_smaller_than_the_served_index_needs_allow_shrink(tmp_path, embedder):
    settings = settings_for(tmp_path)
    first = build_index(settings, [write_jsonl(tmp_path / "full.jsonl", sample_rows(10, start=200))],
                        progress=False, embedder=embedder)
    small = write_jsonl(tmp_path / "small.jsonl", sample_rows(4, start=200))
    refused = build_index(settings, [small], rebuild=True, progress=False, embedder=embedder)
    assert refused.verified and refused.rows == 4 and refused.previous_rows == 10
    assert "--allow-shrink" in refused.shrink_refused and not refused.alias_switched and not refused.ok
    assert served(settings)[:2] == (first.collection, 10)

    # the same build with --allow-shrink resumes into the collection already written
    allowed = build_index(settings, [small], rebuild=True, progress=False, embedder=embedder, allow_shrink=True)
    assert allowed.ok and allowed.alias_switched and allowed.collection == refused.collection
    assert allowed.upserted == 0 and allowed.files_skipped == 1
    assert served(settings)[:2] == (refused.collection, 4)
    # the replaced collection is the previous one: gc keeps it for a rollback unless told not to
    env = {"BIORAG_DATA_DIR": str(tmp_path)}
    stats = CliRunner().invoke(app, ["index", "stats", "--json"], env=env)
    info = json.loads(stats.stdout[stats.stdout.index("{"):])
    assert [(c["name"], c["status"]) for c in info["collections"]] == [(first.collection, "previous")]
    kept = CliRunner().invoke(app, ["index", "gc", "--json"], env=env)
    assert json.loads(kept.stdout[kept.stdout.index("{"):])["removed"] == []

    # rollback: the alias moves back to the previous collection, and a second one undoes it
    back = CliRunner().invoke(app, ["index", "rollback"], env=env)
    assert back.exit_code == 0 and f"alias 'pubmed' -> {first.collection} (10 rows)" in back.output, back.output
    assert served(settings)[:2] == (first.collection, 10)
    again = CliRunner().invoke(app, ["index", "rollback", "--json"], env=env)
    assert json.loads(again.stdout[again.stdout.index("{"):])["serving"] == refused.collection
    assert served(settings)[:2] == (refused.collection, 4)

    dropped = CliRunner().invoke(app, ["index", "gc", "--no-keep-previous", "--json"], env=env)
    assert [c["name"] for c in json.loads(dropped.stdout[dropped.stdout.index("{"):])["removed"]] == [first.collection]
    none_left = CliRunner().invoke(app, ["index", "rollback"], env=env)
    assert none_left.exit_code == 2 and "no previous collection" in none_left.output
    assert served(settings)[:2] == (refused.collection, 4)


def test_files_found_in_folders_are_resolved_and_contained(tmp_path):
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    inside = write_jsonl(data / "sub" / "ok.jsonl", sample_rows(1))
    (data / "sub" / "p.jsonl").symlink_to("/etc/passwd")
    outside = write_jsonl(tmp_path / "elsewhere.jsonl", sample_rows(1))
    (data / "sub" / "q.jsonl").symlink_to(outside)
    (data / "sub" / "r.jsonl").symlink_to(inside)  # a link that stays inside is fine
    from indexing.reader import expand_inputs, within_roots

    kept, refused = within_roots(expand_inputs([data]), [data])
    assert kept == [inside.resolve()]  # r.jsonl is the same file: read once
    assert set(refused) == {str(data / "sub" / "p.jsonl"), str(data / "sub" / "q.jsonl")}
    assert "leads to /etc/passwd" in refused[str(data / "sub" / "p.jsonl")]


HOLDER = textwrap.dedent(
    """
    import sys, time
    from biorag.ml.vector_store import open_store
    client = open_store(sys.argv[1], create=True)
    print("holding", flush=True)
    sys.stdin.read()
    """
)


def test_a_store_held_by_another_process_is_one_line_naming_it(tmp_path):
    settings = settings_for(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT), BIORAG_DATA_DIR=str(tmp_path))
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, settings.milvus_uri], env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "holding"
        src = write_jsonl(tmp_path / "x.jsonl", sample_rows(2))
        biorag = [sys.executable, "-m", "cli.main"]
        for args in (["index", "build", "-i", str(src)], ["search", "pubmed", "amyloid plaques"], ["index", "stats"]):
            res = subprocess.run(biorag + args, env=env, capture_output=True, text=True, timeout=300)
            assert res.returncode != 0, (args, res.stdout)
            assert "Traceback" not in res.stderr, (args, res.stderr)
            lines = [line for line in res.stderr.splitlines() if line.strip()]
            assert len(lines) == 1, (args, res.stderr)
            assert f"in use by process {holder.pid}" in lines[0] and "one process at a time" in lines[0]
    finally:
        holder.stdin.close()
        holder.wait(30)
