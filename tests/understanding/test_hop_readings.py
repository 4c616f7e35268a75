"""Routing reads each hop of a chain once per retrieval: the loop keeps every hop's reading
(`LoopState.hop_reading`, `hop_inputs`) beside the answer's reading, and the planner's
routing, its verdict and the typed request's asked field take them from there instead of
reading the records again. Counted on real two-hop questions (a variant's gene, then a field
of that gene; a disease's genes, then a field of each)."""

from __future__ import annotations

import pytest

from biorag.loop import grounding
from biorag.loop.plans import Selection
from biorag.loop.requests import search_request
from biorag.loop.state import LoopState
from biorag.understanding.analysis import analyse

QUESTIONS = [
    ("What is the function of the gene rs121913343 is in?", "TP53"),
    ("what are the aliases of the genes of cystic fibrosis?", "CFTR"),
]


@pytest.mark.parametrize("question, gene", QUESTIONS)
def test_each_hop_is_read_once_per_retrieval(agent, monkeypatch, question, gene):
    hop_reads: list[int] = []
    readings: list[int] = []
    read_hop, read_evidence = grounding._hop_reading, LoopState.read_evidence

    def counted_hop(analysis, evidence, sources, upto, previous):
        hop_reads.append(upto)
        return read_hop(analysis, evidence, sources, upto, previous)

    def counted_reading(self):
        readings.append(len(self.evidence))
        return read_evidence(self)

    monkeypatch.setattr(grounding, "_hop_reading", counted_hop)
    monkeypatch.setattr(LoopState, "read_evidence", counted_reading)
    answer = agent.answer(question)
    assert answer.sufficient and answer.answer.startswith(gene), answer.answer
    assert answer.rounds >= 2  # a chain: both hops were run
    # every hop once per reading, and one reading per round that retrieved (none before)
    assert len(readings) == answer.rounds
    assert hop_reads == [0, 1] * len(readings)


def test_the_kept_hop_readings_are_what_grounding_reads(agent):
    """The readings the state keeps are the ones grounding computes from scratch, for the
    evidence of each round of a real run."""
    question, _ = QUESTIONS[1]
    answer = agent.answer(question)
    rounds = [(e.retriever, e.query) for e in answer.trace if e.step == "retrieve" and e.retriever and e.query]
    state = LoopState(question=question, analysis=analyse(question, agent.retrievers, agent.lexicon),
                      retrievers=agent.retrievers)
    assert len(rounds) >= 2
    for retriever, query in rounds:
        request = search_request(state, Selection(retriever, "", "rules"), query, 10, None, "off")
        state.evidence += list(agent.retrievers[retriever].search(request))
        for hop in range(len(state.analysis.intent.hops)):
            fresh = grounding.hop_reading(state.analysis, state.evidence, agent.retrievers, hop)
            kept = state.hop_reading(hop)
            assert (kept is None) == (fresh is None)
            if kept is not None:
                assert (kept.answer, kept.hop_inputs) == (fresh.answer, fresh.hop_inputs)
            assert state.hop_inputs(hop) == grounding.hop_inputs(state.analysis, state.evidence, agent.retrievers, hop)
