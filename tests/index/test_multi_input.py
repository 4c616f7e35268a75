"""`biorag index build` takes several paths per --input and positional paths (what a shell
glob expands to): real articles of the bundled sample, split into several .xml.gz files,
the real embedder and Milvus Lite."""

from __future__ import annotations

import json

import pytest
from index_helpers import SAMPLE
from typer.testing import CliRunner

from biorag.ml import pubmed_schema as ps
from biorag.ml.vector_store import open_store
from cli.main import app
from indexing.clean import Cleaner
from indexing.reader import read_file
from indexing.split import split_pubmed_xml

pytestmark = pytest.mark.milvus

SRC = SAMPLE / "pubmed_0_to_99.xml.gz"


def kept_pmids(files) -> set[int]:
    """The PMIDs cleaning keeps from these files, read independently of the build."""
    clean = Cleaner()
    return {r.pmid for f in files for item in read_file(f) if (r := clean(item)) is not None}


def indexed_pmids(tmp_path) -> set[int]:
    client = open_store(str(tmp_path / "milvus" / "pubmed.db"))
    try:
        target = ps.alias_target(client, "pubmed")
        client.load_collection(target)
        return {int(r["pmid"]) for r in client.query(target, filter="pmid >= 0", output_fields=["pmid"], limit=16000)}
    finally:
        client.close()


def build(tmp_path, args):
    res = CliRunner().invoke(app, ["index", "build", *args, "--json"], env={"BIORAG_DATA_DIR": str(tmp_path)})
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout[res.stdout.index("{"):])


def test_split_keeps_every_article_in_order(tmp_path):
    parts = split_pubmed_xml(SRC, tmp_path, 4)
    whole = [i.pmid for i in read_file(SRC)]
    assert [i.pmid for p in parts for i in read_file(p)] == whole
    sizes = [sum(1 for _ in read_file(p)) for p in parts]
    assert max(sizes) - min(sizes) <= 1 and len(parts) == 4


@pytest.mark.parametrize("form", ["one --input, several paths", "positional paths", "--input and positional"])
def test_several_paths_are_all_indexed(tmp_path, form):
    parts = [str(p) for p in split_pubmed_xml(SRC, tmp_path / "in", 3)]
    args = {
        "one --input, several paths": ["--input", *parts],
        "positional paths": parts,
        "--input and positional": ["-i", parts[2], parts[0], parts[1]],
    }[form]
    out = build(tmp_path / "data", args)
    expected = kept_pmids(parts)
    assert out["ok"] and out["files"] == 3 and out["rows"] == len(expected) > 60
    assert indexed_pmids(tmp_path / "data") == expected
    # the three parts hold exactly the records of the original file
    assert expected == kept_pmids([SRC])


def test_a_missing_path_among_several_is_named(tmp_path):
    parts = [str(p) for p in split_pubmed_xml(SRC, tmp_path / "in", 2)]
    res = CliRunner().invoke(app, ["index", "build", "--input", parts[0], str(tmp_path / "nope.xml.gz"), parts[1]],
                             env={"BIORAG_DATA_DIR": str(tmp_path / "data")})
    assert res.exit_code != 0
    assert "nope.xml.gz: no such file or directory" in res.output and "Traceback" not in res.output
