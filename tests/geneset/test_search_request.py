"""The typed search request: one parser reads a string into typed
entities the way the agent reads a question; the HPO source answers what the request asks,
not what its words suggest; the agent builds each request from its plan; and the reading of
the evidence is computed once per retrieval. Real stores (full gene store, HPO store) and
real gene sets (GeneAgent's GO sets, tests/data/geneset/go_sets_40.csv)."""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest
from pydantic import ValidationError

import biorag.loop.state as state_module
from biorag.loop.state import LoopState
from biorag.understanding.search_request import Phenotype, SearchRequest, Variant, parse_request
from tests.agents import newcomer_agent

DATA = Path(__file__).parents[1] / "data"
SEIZURE, ATAXIA = "HP:0001250", "HP:0001251"
SEPARATORS = [", ", " ", " and ", "\n", "; ", " / "]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def parse(agent, text: str, source: str | None = None, k: int = 10) -> SearchRequest:
    return parse_request(text, k, source=source, sources=agent.retrievers, lexicon=agent.lexicon)


def _go_sets(n: int) -> list[list[str]]:
    with (DATA / "geneset" / "go_sets_40.csv").open(newline="") as fh:
        return [row["Genes"].split() for row in csv.DictReader(fh)][:n]


# ---- the parser --------------------------------------------------------------------------
def test_a_gene_list_in_any_order_and_separator_parses_to_the_same_typed_genes(agent):
    """Shuffled lists joined in six ways: one set of resolved genes (symbol and Gene ID),
    the set's own symbols, whatever the order or the joiner."""
    rng = random.Random(24)
    for genes in _go_sets(12):
        seen = set()
        for sep in SEPARATORS:
            shuffled = genes[:]
            rng.shuffle(shuffled)
            req = parse(agent, f"Which process do {sep.join(shuffled)} share?", "geneset")
            typed = tuple((g.symbol, g.gene_id) for g in req.entities.genes)
            seen.add(typed)
            assert req.asks is not None, (sep, shuffled)
        assert len(seen) == 1, (genes, seen)
        (typed,) = seen
        symbols = [s for s, _ in typed]
        assert symbols == sorted(symbols) and all(gid.isdigit() for _, gid in typed), typed
        # the set's own genes (an old symbol may come back as its official one)
        assert len(typed) >= len(genes) // 2 and len(set(symbols) & set(genes)) >= 0.8 * len(typed), (genes, typed)


def test_an_rsid_becomes_a_variant_entity(agent):
    for text in ("Which gene is rs121913343 in?", "RS121913343", "gene of variant rs121913343 please"):
        req = parse(agent, text, "dbsnp")
        assert req.entities.variants == [Variant(rsid="rs121913343")], (text, req.entities)
        assert not req.entities.genes and not req.entities.phenotypes
    with pytest.raises(ValidationError, match="is not an rsID"):
        Variant(rsid="121913343")


def test_an_excluded_phenotype_keeps_its_polarity(agent):
    for text in ("seizures but no ataxia", "child with seizures, without ataxia"):
        req = parse(agent, text, "hpo")
        polarity = {p.hpo_id: p.polarity for p in req.entities.phenotypes}
        assert polarity == {SEIZURE: "observed", ATAXIA: "excluded"}, (text, req.entities.phenotypes)
    both = parse(agent, "seizures and ataxia", "hpo")
    assert {p.polarity for p in both.entities.phenotypes} == {"observed"}


def test_a_free_text_source_gets_a_bare_request(agent):
    req = parse(agent, "Does TP53 bind MDM2?", "pubmed")
    assert req == SearchRequest.of("Does TP53 bind MDM2?", 10)


# ---- HPO reads the asked field -------------------------------------------------------------
def _marfan(hpo_store) -> str:
    (hit,) = [d for d in hpo_store.find_diseases("Marfan syndrome") if d["name"].lower() == "marfan syndrome"][:1]
    return hit["name"]


def test_hpo_answers_the_asked_field_not_the_words(agent, hpo_store):
    """One text, three asked fields: the request decides (genes first, features first, or
    the gene's diseases), even against the words the text holds."""
    hpo = agent.retrievers["hpo"]
    name = _marfan(hpo_store)
    words_say_features = f"{name} features"
    genes = hpo.search(SearchRequest(text=words_say_features, k=5, asks="disease_genes"))
    assert genes[0].metadata["kind"] == "disease_phenotypes" and genes[0].text.split(": ", 1)[1].startswith("genes:")
    assert all(h.metadata["kind"] == "disease_phenotypes" for h in genes)  # a disease asked about: no phenotype ranking
    feats = hpo.search(SearchRequest(text=f"genes of {name}", k=5, asks="disease_features"))
    assert feats[0].text.split(": ", 1)[1].startswith("features:")
    assert all(h.metadata["kind"] == "disease_phenotypes" for h in feats)
    # the bare text request: the words decide (the documented fallback)
    bare = hpo.search(SearchRequest.of(f"genes of {name}", 5))
    assert bare[0].text.split(": ", 1)[1].startswith("genes:")
    gene_diseases = hpo.search(SearchRequest(text="FBN1", k=5, asks="gene_diseases"))
    assert gene_diseases[0].metadata["kind"] == "gene_diseases" and gene_diseases[0].title == "FBN1"


def test_hpo_ranks_typed_phenotypes_for_the_asked_relation(agent):
    hpo = agent.retrievers["hpo"]
    typed = [Phenotype(name="Seizure", hpo_id=SEIZURE), Phenotype(name="Ataxia", hpo_id=ATAXIA)]
    req = SearchRequest(text="x", k=5, entities={"phenotypes": typed})
    genes_first = hpo.search(req.model_copy(update={"asks": "phenotype_genes"}))
    diseases_first = hpo.search(req.model_copy(update={"asks": "phenotype_diseases"}))
    assert genes_first[0].metadata["kind"] == "gene" and diseases_first[0].metadata["kind"] == "disease"
    assert sorted(h.key for h in genes_first) == sorted(h.key for h in diseases_first)  # the same records
    # an excluded phenotype is not scored: only seizures count
    only = hpo.search(SearchRequest(text="x", k=5, asks="phenotype_genes", entities={"phenotypes": [
        typed[0], Phenotype(name="Ataxia", hpo_id=ATAXIA, polarity="excluded")]}))
    assert {t["id"] for t in only[0].metadata["query_terms"]} == {SEIZURE}


# ---- the agent builds requests from its plan -----------------------------------------------
class _Recording:
    """Wraps a retriever, keeping each request it was sent."""

    def __init__(self, inner):
        self.inner, self.requests = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def search(self, request):
        self.requests.append(request)
        return self.inner.search(request)


def test_the_agent_sends_the_hops_field_and_the_typed_entities(agent, monkeypatch):
    rec = {n: _Recording(r) for n, r in agent.retrievers.items()}
    monkeypatch.setattr(agent, "retrievers", rec)
    agent.answer("What are the clinical features of Marfan syndrome?")
    assert rec["hpo"].requests and rec["hpo"].requests[0].asks == "disease_features", rec["hpo"].requests
    sets, firsts = [], []
    for q in ("Which process do MLH1, MSH2, MSH6 and PMS2 share?", "Which process do PMS2 MLH1 MSH6 and MSH2 share?"):
        rec["geneset"].requests.clear()
        ans = agent.answer(q)
        sets.append([g.symbol for g in rec["geneset"].requests[0].entities.genes])
        assert ans.sufficient and any(e.step == "retrieve" and e.ok and e.retriever == "geneset" for e in ans.trace), ans
        firsts.append(ans.answer.splitlines()[0])
    assert sets[0] == sets[1] == ["MLH1", "MSH2", "MSH6", "PMS2"], sets
    assert firsts[0] == firsts[1] and "mismatch repair" in firsts[0].lower(), firsts


# ---- the reading, once per retrieval --------------------------------------------------------
QUESTIONS = [
    "What are the clinical features of Marfan syndrome?",
    "Which process do PMS2, MLH1, MSH2 and MSH6 share?",
    "Which chromosome is TP53 on?",
    "child with aniridia",
    "Which genes are linked to seizures and ataxia?",
]


def test_the_reading_is_computed_once_per_retrieval_and_answers_stay_the_same(agent, monkeypatch):
    """Count `structured_answer` calls in rules-planner runs: one per retrieval, whatever the
    planner, the sufficiency check and the answer step read. The answers are those of runs
    that read the evidence afresh at every step (the behaviour before)."""
    real = state_module.structured_answer
    calls = []

    def counting(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    afresh = _always_fresh(monkeypatch, QUESTIONS, agent)
    monkeypatch.setattr(state_module, "structured_answer", counting)
    for q in QUESTIONS:
        calls.clear()
        ans = agent.answer(q)
        retrievals = sum(1 for e in ans.trace if e.step == "retrieve")
        assert retrievals >= 1 and len(calls) == retrievals, (q, len(calls), retrievals)
        assert (ans.answer, ans.sufficient, [c.id for c in ans.citations]) == (
            afresh[q].answer, afresh[q].sufficient, [c.id for c in afresh[q].citations]), q


def _always_fresh(monkeypatch, questions, agent) -> dict:
    """Answers of runs where the kept reading is ignored: every read recomputes it."""
    with monkeypatch.context() as m:
        m.setattr(LoopState, "reading", property(lambda self: self.read_evidence()))
        return {q: agent.answer(q) for q in questions}


def test_a_query_the_model_wrote_is_read_by_the_same_parser(agent):
    """The LLM planner's query (no hop plans it) reaches the source typed: its phenotypes
    resolved, with their polarity, as `parse_request` reads them."""
    from biorag.loop.agent import Agent
    from tests.scripted_llm import ScriptedLLM

    rec = {n: _Recording(r) for n, r in agent.retrievers.items()}
    written = "seizures, but without ataxia"
    llm = ScriptedLLM([{"retriever": "hpo", "reason": ""}, {"query": written, "mesh_terms": []},
                       {"verdict": "YES", "missing": ""}])
    settings = agent.settings.model_copy(update={"planner": "llm"})
    Agent(settings, llm=llm, retrievers=rec, lexicon=agent.lexicon).answer("A child has seizures and ataxia: any idea?")
    (sent,) = rec["hpo"].requests
    assert sent.text == written
    assert sent == parse_request(written, sent.k, source="hpo", sources=rec, lexicon=agent.lexicon)
    assert {p.hpo_id: p.polarity for p in sent.entities.phenotypes} == {SEIZURE: "observed", ATAXIA: "excluded"}
