"""Consensus naming (`biorag.knowledge.enrichment.consensus_term`): the set is named by the top
significant term whose name the other top terms agree with most (ROUGE-L between names),
checked on the bundled GO BP and Reactome libraries."""

from __future__ import annotations

import math

import pytest

from biorag.knowledge.enrichment import consensus_term, enrich, name_agreement
from biorag.knowledge.gene_sets import bundled_library
from biorag.knowledge.phenotype_names import name_words

MMR = {"MLH1", "MSH2", "MSH6", "PMS2"}


def _candidates(genes: set[str], libraries: tuple[str, ...], top_k: int = 20):
    """Top significant terms of each library, weighted by strength over the library's best."""
    out = []
    for lib in libraries:
        sig = [e for e in enrich(genes, bundled_library(lib)) if e.p_adj <= 0.05][:top_k]
        best = -math.log10(sig[0].p_adj)
        out += [(e, -math.log10(e.p_adj) / best) for e in sig]
    return sorted(out, key=lambda c: -c[1])


def test_name_agreement_is_rouge_l_of_the_names_words():
    """Checked against Google's rouge_score on real library names (no stemming on either side)."""
    # imported here, as evaluation/geneset_naming.py does: rouge_score brings absl logging, which
    # binds the stderr of the moment; imported at collection it broke every later CliRunner test
    # ("I/O operation on closed file" in test_real_agent, then pytest lost sys.stderr)
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    names = [e.name for e, _ in _candidates(MMR, ("go_bp", "reactome"))]
    assert len(names) > 10
    for a in names[:8]:
        for b in names[:8]:
            expected = scorer.score(" ".join(name_words(a)), " ".join(name_words(b)))["rougeL"].fmeasure
            assert name_agreement(name_words(a), name_words(b)) == pytest.approx(expected)
    assert name_agreement(["mismatch", "repair"], ["mismatch", "repair"]) == 1.0
    assert name_agreement(["mismatch", "repair"], []) == 0.0


def test_two_libraries_agreeing_name_the_mismatch_repair_core():
    """The most significant GO BP term is the 3-gene "meiotic mismatch repair", and most of
    GO BP's top terms are about immunoglobulin class switching (which needs MMR); Reactome's
    top terms all say mismatch repair, so the consensus is GO's "mismatch repair"."""
    candidates = _candidates(MMR, ("go_bp", "reactome"))
    assert candidates[0][0].name == "meiotic mismatch repair"
    chosen = consensus_term(candidates, power=2.0, cross_weight=2.0)
    assert (chosen.term, chosen.name, chosen.k) == ("GO:0006298", "mismatch repair", 4)


def test_go_bp_alone_is_outvoted_by_its_near_duplicates():
    """Why a second library's vote matters: with GO BP alone, its many class-switching
    terms agree with each other, and the consensus is one of them, not the most
    significant term."""
    candidates = _candidates(MMR, ("go_bp",))
    chosen = consensus_term(candidates, power=2.0, cross_weight=2.0)
    assert chosen is not candidates[0][0]
    assert {"isotype", "immunoglobulin", "switching"} & set(name_words(chosen.name))


def test_consensus_keeps_a_lone_or_unanimous_term_and_weights_votes():
    candidates = _candidates(MMR, ("reactome",))
    assert consensus_term(candidates[:1]) is candidates[0][0]
    # power 0: every top term votes equally; a huge power leaves only the best's vote
    top = candidates[0][0]
    assert consensus_term(candidates, power=200.0) is top
    chosen = consensus_term(candidates, power=0.0)
    assert chosen in [e for e, _ in candidates]
    assert "mismatch" in name_words(chosen.name)


def test_interpreter_names_by_consensus_and_can_turn_it_off(interpreter, geneset_settings):
    """With the HPO store present (HPO is enriched for these sets too), the name still
    comes from a process library."""
    from retrievers.geneset.retriever import GeneSetInterpreter

    report = interpreter.interpret(sorted(MMR))
    assert report.name == "mismatch repair" and report.significant
    cfg = geneset_settings.geneset.model_copy(update={"consensus_top_k": 0})
    plain = GeneSetInterpreter(geneset_settings.model_copy(update={"geneset": cfg}),
                               libraries=["go_bp", "reactome"])
    old = plain.interpret(sorted(MMR))
    # the older rule (most significant GO BP term, then a broader one covering all genes)
    assert old.name == "mismatch repair" and old.name_term.term == "GO:0006298"
    # a Wnt destruction-complex set: the consensus term is among the top terms and significant
    wnt = ["APC", "AXIN1", "AXIN2", "GSK3B", "CSNK1A1", "CTNNB1"]
    rep = interpreter.interpret(wnt)
    assert rep.significant and rep.name_term.p_adj <= 0.05
    assert rep.enriched.get("hpo") and rep.name_term.library in geneset_settings.geneset.consensus_libraries
    assert rep.name_term in rep.enriched[rep.name_term.library][:geneset_settings.geneset.consensus_top_k]
