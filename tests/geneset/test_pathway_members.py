"""The genes of a named pathway, process or gene group ("Which genes are in the Wnt signaling
pathway?") are read from the bundled libraries' term of that name (the `geneset` source's
`member_genes`), whatever the phrasing; the same name in a literature question, and a
question about one gene's pathways, go where they went before. Expected terms and genes are
read here from the library files themselves."""

from __future__ import annotations

import gzip

import pytest

from biorag.contracts.errors import NoRecord
from biorag.knowledge.gene_sets import BUNDLED, LIBRARY_LABELS
from biorag.knowledge.pathway_names import match
from biorag.understanding.analysis import analyse
from biorag.understanding.search_request import SearchRequest
from retrievers.geneset.fields import LISTED_MEMBERS
from tests.agents import newcomer_agent


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    """An agent as a newcomer has it (gene store and HPO store, no PubMed index)."""
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def library_term(library: str, name: str) -> tuple[str, list[str]]:
    """(term id, sorted genes) of the term `name` in a bundled library's GMT file, read as the
    file lists it (not through the code under test)."""
    path, id_col, name_col = BUNDLED[library]
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if cols[name_col] == name:
                return cols[id_col], sorted(dict.fromkeys(g for g in cols[2:] if g))
    raise AssertionError(f"{name!r} is not a term of {library}")


def expected_line(library: str, name: str) -> str:
    term, genes = library_term(library, name)
    more = f" and {len(genes) - LISTED_MEMBERS} more" if len(genes) > LISTED_MEMBERS else ""
    return f"{name} ({term}, {LIBRARY_LABELS[library]}): {len(genes)} genes: {', '.join(genes[:LISTED_MEMBERS])}{more}"


def routed(agent, question: str):
    a = analyse(question, agent.retrievers, agent.lexicon)
    return a, [(h.source, h.field.name) for h in a.intent.hops] if a.intent else []


#: question -> (library, term name) that answers it: a whole name (GO's "Wnt signaling
#: pathway"), a stem ("the mTOR pathway": Reactome's "MTOR signalling"), a one-word process,
#: a name inside a longer phrase ("DNA mismatch repair"), an HGNC gene group
NAMED = {
    "Which genes are in the Wnt signaling pathway?": ("go_bp", "Wnt signaling pathway"),
    "Which genes are in the mTOR pathway?": ("reactome", "MTOR signalling"),
    "Which genes participate in glycolysis?": ("reactome", "Glycolysis"),
    "What genes are involved in DNA mismatch repair?": ("go_bp", "mismatch repair"),
    "List the genes of the Hedgehog pathway": ("reactome", "Signaling by Hedgehog"),
    "Which genes are members of the Fascin family?": ("hgnc_groups", "Fascin family"),
}


@pytest.mark.parametrize("question,term", NAMED.items())
def test_the_genes_of_a_named_term_come_from_its_library(agent, question, term):
    library, name = term
    a, hops = routed(agent, question)
    assert hops == [("geneset", "member_genes")], (question, a.entities)
    assert not any(e.kind == "gene" for e in a.entities), a.entities  # "mTOR" is a word of the name
    ans = agent.answer(question)
    assert ans.sufficient, ans.answer
    assert ans.answer.splitlines()[0] == expected_line(library, name)
    assert ans.citations[0].id == library_term(library, name)[0]
    assert [t.retriever for t in ans.trace if t.step == "retrieve"] == ["geneset"]


def test_the_other_libraries_terms_of_the_name_are_named_below(agent):
    """GO BP and Reactome both hold the Wnt pathway: GO's whole name answers, Reactome's
    "Signaling by WNT" (the same name by its stem) is named as well."""
    term, genes = library_term("reactome", "Signaling by WNT")
    lines = agent.answer("Which genes are in the Wnt signaling pathway?").answer.splitlines()
    assert f"also: Signaling by WNT ({term}, Reactome): {len(genes)} genes" in lines[1:]


WNT_PHRASINGS = [
    "Which genes are in the Wnt signaling pathway?",
    "which genes are in the wnt signaling pathway?",
    "Which genes are in the WNT Signalling Pathway?",
    "Which genes are in the Wnt signaling?",
    "Which genes are in the Wnt pathway?",
    "Could you list the genes in the Wnt signalling pathway, please?",
    "List the genes of the Wnt signaling pathway",
    "What genes make up the Wnt signaling pathway?",
    "What genes are involved in Wnt signaling?",
    "Which genes take part in the Wnt pathway?",
]


def test_every_phrasing_of_a_name_gets_the_same_term(agent):
    term, _ = library_term("go_bp", "Wnt signaling pathway")
    first_lines = set()
    for q in WNT_PHRASINGS:
        a, hops = routed(agent, q)
        pathway = a.first("pathway")
        assert hops == [("geneset", "member_genes")] and pathway is not None and pathway.ident == term, (q, a.entities)
        first_lines.add(agent.answer(q).answer.splitlines()[0])
    assert first_lines == {expected_line("go_bp", "Wnt signaling pathway")}


@pytest.mark.parametrize("question", [
    "Does inhibition of the mTOR pathway reduce tumour growth?",
    "Does mTOR pathway inhibition reduce tumour growth?",
])
def test_a_pathway_in_a_literature_question_stays_literature(agent, question):
    a, hops = routed(agent, question)
    assert a.free_text and a.asks is not None and hops == []
    assert a.first("pathway") is None


@pytest.mark.parametrize("question", ["Which pathways is MTOR part of?", "What pathways is MTOR involved in?"])
def test_one_genes_pathways_stay_the_genes_record(agent, question):
    a, hops = routed(agent, question)
    assert hops == [("gene", "summary")] and a.first("pathway") is None
    assert a.first("gene").canonical == ("MTOR",)
    ans = agent.answer(question)
    assert ans.sufficient and "Pathways (Reactome): " in ans.answer, ans.answer
    assert {c.source for c in ans.citations} == {"gene"}


def test_an_unknown_pathway_gets_no_made_up_answer(agent):
    question = "Which genes are in the Zorblax pathway?"
    a, hops = routed(agent, question)
    assert a.first("pathway") is None and ("geneset", "member_genes") not in hops
    ans = agent.answer(question)
    assert not ans.sufficient and not any(c.source == "geneset" for c in ans.citations), ans.answer
    with pytest.raises(NoRecord):
        agent.retrievers["geneset"].search(SearchRequest(text="Zorblax pathway", asks="member_genes"))


@pytest.mark.parametrize("question", ["Which genes control fin regeneration in zebrafish?",
                                      "Which genes are in the Wnt signaling pathway in mice?"])
def test_a_pathway_of_another_organism_is_not_read_from_the_human_libraries(agent, question):
    """The libraries hold human genes: a term of the same name ("regeneration", the Wnt
    pathway) asked of zebrafish or mice is not their answer."""
    a, hops = routed(agent, question)
    assert a.first("pathway") is None and ("geneset", "member_genes") not in hops, (question, hops)


def test_a_name_is_matched_whole_before_its_stem():
    """A written whole name answers before a term matched by its stem; between stems, the name
    matching more of the asked words; a bare word with no pathway word names no stem."""
    whole, by_stem = match("Wnt signaling pathway"), match("Wnt pathway")
    assert (whole[0].name, whole[0].whole) == ("Wnt signaling pathway", True)
    assert (by_stem[0].name, by_stem[0].whole) == ("Wnt signaling pathway", False)
    assert {t.name for t in by_stem} == {t.name for t in whole} >= {"Signaling by WNT"}
    assert match("mTOR") == [] and match("mTOR pathway")[0].name == "MTOR signalling"
    assert match("Zorblax pathway") == []
