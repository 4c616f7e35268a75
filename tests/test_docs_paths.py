"""Every code path the documents name exists: a reader following README.md, DEVELOPERS.md or
a page of docs/ to `biorag/...` or `retrievers/...` finds the file or folder there, and every
docs/ page the README links to is there."""

from __future__ import annotations

import re

from tests.test_floors import ROOT

DOCS = ("README.md", "DEVELOPERS.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")))
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


def test_every_page_the_readme_links_exists():
    links = re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)\)", (ROOT / "README.md").read_text())
    assert links and not [link for link in links if not (ROOT / link).exists()]
