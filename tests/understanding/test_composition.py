"""The application layer composes the system (application/engine.py): it builds exactly the
enabled sources through the registry, the store's lexicon, and leaves the LLM unmade until a
step needs it, so a rules-only gene question never loads the model nor opens the PubMed
index."""

from __future__ import annotations

import pytest

from application.catalog import retriever_class
from application.engine import Engine, build_agent
from biorag.contracts.errors import ConfigError
from tests.understanding.conftest import settings_for


def test_build_agent_builds_the_enabled_sources_and_no_llm(store_path):
    settings = settings_for(store_path)
    agent = build_agent(settings)
    try:
        assert sorted(agent.retrievers) == sorted(settings.enabled_sources())
        assert "pubmed" not in agent.retrievers  # disabled: the index is never opened
        for name, r in agent.retrievers.items():
            assert isinstance(r, retriever_class(name, settings.sources[name].backend)), name
        assert agent.lexicon is not None  # the store is built: names are linked from it
        ans = agent.answer("Which chromosome is BRCA2 on?")
        assert ans.answer == "chr13" and ans.sufficient, ans.answer
        assert agent._llm is None, "a rules-only run made an LLM"
    finally:
        for r in agent.retrievers.values():
            r.close()
        agent.lexicon.close()


def test_engine_shares_retrievers_and_honours_another_backend(store_path):
    settings = settings_for(store_path)
    engine = Engine(settings)
    try:
        local = engine.retriever("gene")
        assert engine.retriever("gene") is local  # one per source and configuration
        assert isinstance(local, retriever_class("gene", "local"))
        remote = engine.retriever("gene", backend="eutils")
        assert isinstance(remote, retriever_class("gene", "eutils")) and remote is not local
        assert engine.retriever("gene") is local  # asking for another backend leaves the default
    finally:
        engine.close()


def test_a_source_that_cannot_start_degrades_on_the_server_and_fails_a_one_off_run(store_path):
    settings = settings_for(store_path)
    settings.sources["gene"].backend = "nosuch"
    engine = Engine(settings)
    try:
        degraded = engine.retrievers(settings)
        assert type(degraded["gene"]).__name__ == "BrokenSource"
    finally:
        engine.close()
    with pytest.raises(ConfigError, match="no backend 'nosuch'"):
        build_agent(settings)


@pytest.mark.parametrize("question", [
    "genes associated with cystic fibrosis and what chromosome",
    "Which chromosomes hold the genes for Bartter syndrome?",
])
def test_a_field_read_for_several_genes_says_which_value_is_whose(agent, store_path, question):
    """First line: the bare list (what GeneHop scores); second line: each gene with its own
    value, as the store's record has it."""
    from retrievers.stores.gene_store import GeneStore

    ans = agent.answer(question)
    assert ans.sufficient, ans.answer
    first, second = ans.answer.split("\n")
    pairs = [p.split(": ") for p in second.split("; ")]
    assert len(pairs) >= 2
    store = GeneStore(store_path)
    try:
        for symbol, chrom in pairs:
            record = store.lookup(symbol)[0][0]
            assert record["symbol"] == symbol and chrom == f"chr{record['chromosome']}", (symbol, chrom, record)
    finally:
        store.close()
    assert {c for _, c in pairs} == set(first.split(", "))


def test_no_pairing_line_when_each_value_already_names_its_gene(agent):
    """Functions of a disease's genes read "APP: amyloid ...": a second line would repeat them."""
    ans = agent.answer("What is the function of the genes related to Alzheimer disease?")
    assert ans.sufficient and ans.answer.startswith("APP: "), ans.answer
    assert "\n" not in ans.answer.strip(), ans.answer
