"""Every code path the front-door documents name exists: a reader following README.md or
DEVELOPERS.md to `biorag/...` or `retrievers/...` finds the file or folder there."""

from __future__ import annotations

import re

from tests.test_floors import ROOT

DOCS = ("README.md", "DEVELOPERS.md")
#: a path into the core or the sources, as the docs write it (in backticks or plain)
CODE_PATH = re.compile(r"(?<![\w./-])((?:biorag|retrievers)/[\w./-]*[\w/])")


def named_paths(text: str) -> set[str]:
    return {m.group(1).rstrip("/.") for m in CODE_PATH.finditer(text)}


def test_every_core_and_source_path_the_docs_name_exists():
    missing = {doc: sorted(p for p in named_paths((ROOT / doc).read_text()) if not (ROOT / p).exists())
               for doc in DOCS}
    assert not any(missing.values()), f"paths named in the docs that do not exist: {missing}"


def test_the_check_finds_paths_and_misses_none():
    text = "see `biorag/loop/agent.py`, retrievers/hpo/ and (biorag/knowledge/mesh.py). Not a/biorag/x.py"
    assert named_paths(text) == {"biorag/loop/agent.py", "retrievers/hpo", "biorag/knowledge/mesh.py"}
