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


def _answer(data_dir: Path, question: str):
    """The question asked as a user of the demo set-up asks it (the embedded preset's defaults)."""
    agent = build_agent(load_settings(overrides={"data_dir": str(data_dir)}))
    try:
        return agent.answer(question)
    finally:
        for r in agent.retrievers.values():
            r.close()


@pytest.mark.milvus
def test_the_demo_literature_question_ends_sufficient_with_the_right_pmid(demo_data):
    ans = _answer(demo_data, _makefile_question())
    assert ans.sufficient, ans.answer
    assert ANSWERING_PMID in {c.id for c in ans.citations if c.source == "pubmed"}, ans.answer
    first, *support = ans.answer.splitlines()
    assert first == "Yes.", ans.answer
    assert support and all(re.search(r"\[pubmed:\d+\] \((19|20)\d\d\)$", line) for line in support), ans.answer
    assert ans.rounds == 1  # the first retrieval held the answer: no further rounds


#: a gene asked about in a disease that no curated record links it to (the test stores link
#: MAPT to frontotemporal dementia, not to Alzheimer disease: tests/understanding/test_gene_disease_links.py)
TAU_IN_ALZHEIMER = ["What is the role of tau in Alzheimer disease?", "role of tau in Alzheimer's disease",
                    "What does tau do in Alzheimer disease?"]


@pytest.mark.milvus
@pytest.mark.parametrize("question", TAU_IN_ALZHEIMER)
def test_a_gene_in_a_disease_no_record_links_is_answered_from_the_literature(demo_data, question):
    """The records are asked first (the gene, the disease's genes, the gene's diseases); they do
    not link tau to Alzheimer disease, so the gene's card is no answer: the literature is asked
    next and answers: the leading sentence names tau and Alzheimer disease, every quoted one tau
    (a later one may leave the disease to its record's title)."""
    ans = _answer(demo_data, question)
    asked = [e.retriever for e in ans.trace if e.step == "retrieve"]
    assert asked[0] == "gene" and "hpo" in asked and asked[-1] == "pubmed", asked
    assert ans.sufficient and not ans.answer.startswith("MAPT:"), ans.answer
    assert {c.source for c in ans.citations} == {"pubmed"}, ans.citations
    lines = ans.answer.splitlines()
    assert re.search(r"alzheimer", lines[0], re.I), ans.answer  # the leading sentence names both
    assert all(re.search(r"\btau\b", line, re.I) for line in lines), ans.answer
