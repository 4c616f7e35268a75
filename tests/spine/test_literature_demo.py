"""`make demo`'s literature question, asked as the demo asks it: on an index of the whole
bundled PubMed sample (`biorag index build --sample`), the embedded preset's defaults, the
gene and HPO stores beside it. It must end sufficient, citing the paper that answers it, with
the answer first and each quoted sentence's PMID and year."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from application.engine import build_agent
from biorag.settings import load_settings
from cli.commands.index import bundled_sample

ROOT = Path(__file__).resolve().parents[2]
#: the paper whose abstract states the answer (bundled sample, alzheimers_records.jsonl.gz)
ANSWERING_PMID = "22366723"


def _makefile_question() -> str:
    m = re.search(r"^LITERATURE_QUESTION \?= (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert m, "the Makefile names the demo's literature question"
    return m.group(1).strip()


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory, full_gene_store_path, hpo_store_path):
    from indexing.build import build_index

    d = tmp_path_factory.mktemp("demo-data")
    shutil.copy(full_gene_store_path, d / "gene_store.sqlite")
    shutil.copy(hpo_store_path, d / "hpo_store.sqlite")
    settings = load_settings(overrides={"data_dir": str(d)})
    report = build_index(settings, [bundled_sample()], progress=False)
    assert report.ok, report
    return d


@pytest.mark.milvus
def test_the_demo_literature_question_ends_sufficient_with_the_right_pmid(demo_data):
    question = _makefile_question()
    agent = build_agent(load_settings(overrides={"data_dir": str(demo_data)}))
    try:
        ans = agent.answer(question)
    finally:
        for r in agent.retrievers.values():
            r.close()
    assert ans.sufficient, ans.answer
    assert ANSWERING_PMID in {c.id for c in ans.citations if c.source == "pubmed"}, ans.answer
    first, *support = ans.answer.splitlines()
    assert first == "Yes.", ans.answer
    assert support and all(re.search(r"\[pubmed:\d+\] \((19|20)\d\d\)$", line) for line in support), ans.answer
    assert ans.rounds == 1  # the first retrieval held the answer: no further rounds
