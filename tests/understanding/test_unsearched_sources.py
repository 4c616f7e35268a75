"""An insufficient answer says which sources could not be searched at all (no index, a store
held by another process, a service down), with the fix, instead of only "the records found
hold no field": a newcomer without a PubMed index was told nothing about it."""

from __future__ import annotations

import pytest

from application.catalog import registered_sources
from application.engine import build_agent
from biorag.settings import load_settings
from retrievers.common.http_store import BUNDLED_CASSETTE


def _agent(store_path, data_dir, disable: list[str]):
    settings = load_settings(
        sets=["planner=rules", f"gene_store={store_path}", "sources.gene.backend=local", "tool_io.mode=replay",
              f"tool_io.cassette={BUNDLED_CASSETTE}", "max_rounds=6"],
        overrides={"data_dir": str(data_dir)}, disable=disable, known_sources=registered_sources())
    return build_agent(settings)


@pytest.mark.parametrize("question", ["Is TP53 a tumor suppressor?", "How many exons does BRCA1 have?",
                                      "what does microglial activation do to amyloid plaques"])
def test_an_insufficient_answer_names_the_literature_index_it_could_not_search(store_path, tmp_path, question):
    agent = _agent(store_path, tmp_path, disable=["web", "hpo"])  # PubMed on, but no index was ever built here
    ans = agent.answer(question)
    assert not ans.sufficient and ans.answer.startswith("Insufficient evidence"), ans.answer
    assert "Could not search pubmed: no PubMed index at" in ans.answer and "biorag index build" in ans.answer
    failed = [e for e in ans.trace if e.step == "retrieve" and e.retriever == "pubmed"]
    assert failed and not failed[0].ok and failed[0].details["error_type"] == "StoreMissing"


def test_sources_that_answered_nothing_are_not_called_unsearched(store_path, tmp_path):
    agent = _agent(store_path, tmp_path, disable=["web", "pubmed", "hpo"])
    ans = agent.answer("How many exons does BRCA1 have?")
    assert not ans.sufficient and "Could not search" not in ans.answer, ans.answer
