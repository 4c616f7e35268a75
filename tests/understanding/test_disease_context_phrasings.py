"""Two readings of a question that names a disease, in many phrasings, from real records
(HGNC symbols, aliases and full names of the bundled gene snapshot; HPO disease names):

1. A gene or its protein named inside a disease question ("What does huntingtin do in
   Huntington disease?", "role of APOE in Alzheimer disease", "is tau involved in ...")
   is what the question is about (asked how or why it acts there, it is the literature's:
   tests/understanding/test_literature_routing.py): the plan takes the gene, and the answer centres on it
   (its record first, cited, where a curated record links it to the disease; else the
   literature, with what the records say of the gene under it), never on the disease's
   other genes. A subject that names no
   gene ("amyloid beta") is not answered with the disease's genes either.
2. An open request about a disease ("tell me about D", "what is D?", "explain D", "D?")
   asks for the disease's record: its clinical features (HPO) and its genes with the
   source that linked them, cited, never one gene's summary. A gene asked the same way
   still gives the gene.

The expected values come from the stores themselves, not from this file.
"""

from __future__ import annotations

import pytest

from biorag.knowledge.catalogues import cited_as
from biorag.understanding.analysis import analyse
from biorag.understanding.literature_asks import claims_yes_no
from tests.agents import newcomer_agent

# (question, the gene's official symbol, its NCBI Gene ID)
GENE_IN_DISEASE = [
    ("What does huntingtin do in Huntington disease?", "HTT", "3064"),
    ("role of APOE in Alzheimer disease", "APOE", "348"),
    ("Does FBN1 contribute to Marfan syndrome?", "FBN1", "2200"),
    ("is tau involved in Alzheimer disease?", "MAPT", "4137"),
    ("dystrophin and Duchenne muscular dystrophy", "DMD", "1756"),
    ("What is the role of CFTR in cystic fibrosis?", "CFTR", "1080"),
    ("what does frataxin do in Friedreich ataxia", "FXN", "2395"),
    ("The function of menin in multiple endocrine neoplasia type 1", "MEN1", "4221"),
    ("what does presenilin 1 do in Alzheimer's disease", "PSEN1", "5663"),
    ("Is emerin implicated in Emery-Dreifuss muscular dystrophy?", "EMD", "2010"),
    ("is MECP2 linked to Rett syndrome", "MECP2", "4204"),
    ("FGFR3 and achondroplasia", "FGFR3", "2261"),
    # the gene's kind after its name: still the gene
    ("What does the HTT gene do in Huntington disease?", "HTT", "3064"),
    ("Is the MECP2 gene involved in Rett syndrome?", "MECP2", "4204"),
]

#: subjects that name no gene of the dictionary: the answer is not the disease's genes
UNKNOWN_SUBJECT_IN_DISEASE = [
    "What does amyloid beta do in Alzheimer disease?",
    "How do amyloid plaques contribute to Alzheimer disease?",
    "role of copper transport in Wilson disease",
]

# (question, the disease's name as HPO spells it)
OPEN_DISEASE = [
    ("tell me about Marfan syndrome", "Marfan syndrome"),
    ("What is Huntington disease?", "Huntington disease"),
    ("explain cystic fibrosis", "cystic fibrosis"),
    ("Rett syndrome?", "Rett syndrome"),
    ("overview of achondroplasia", "achondroplasia"),
    ("info on Wilson disease", "Wilson disease"),
    ("tell me about Huntington's disease", "Huntington disease"),
    ("what's marfan syndrome", "Marfan syndrome"),
    ("Could you describe Tay-Sachs disease?", "Tay-Sachs disease"),
    ("explain wilson's disease please", "Wilson disease"),
    ("Tell me about Duchenne muscular dystrophy.", "Duchenne muscular dystrophy"),
]

# the same open requests about a gene: the gene's own record
OPEN_GENE = [
    ("tell me about BRCA2", "BRCA2"),
    ("explain TP53", "TP53"),
    ("overview of FBN1", "FBN1"),
    ("What is CFTR?", "CFTR"),
    ("describe the huntingtin gene", "HTT"),
    ("info on mecp2", "MECP2"),
    ("tell me about the dystrophin gene", "DMD"),
    ("BRCA1?", "BRCA1"),
]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    """A newcomer's set-up after `biorag data gene-store build` and `hpo-store build`:
    rules planner, local stores, no PubMed index."""
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def _analyse(agent, question):
    return analyse(question, agent.retrievers, agent.lexicon)


# ---- 1. a gene named inside a disease question ------------------------------------------
@pytest.mark.parametrize("question, symbol, gene_id", GENE_IN_DISEASE)
def test_gene_in_a_disease_question_is_its_subject(agent, question, symbol, gene_id):
    a = _analyse(agent, question)
    genes = [e for e in a.entities if e.kind == "gene" and e.confident]
    assert [e.canonical for e in genes] == [(symbol,)], (question, a.entities)
    assert a.intent is not None and "gene" in a.intent.hops[0].takes, (question, a.intent)
    assert len(a.intent.hops) == 1, a.intent  # never through the disease's genes


@pytest.mark.parametrize("question, symbol, gene_id", GENE_IN_DISEASE)
def test_answer_about_a_gene_in_a_disease_centres_on_the_gene(agent, question, symbol, gene_id):
    ans = agent.answer(question)
    lines = ans.answer.strip().splitlines()
    if lines[0].startswith("Insufficient evidence"):
        # no curated record links them: the question went on to the literature (there is no
        # index in this set-up), and what the records say of the gene follows, never a card
        # standing in for the answer nor the disease's other genes
        assert f"The records: no link between {symbol} and " in ans.answer, (question, ans.answer)
        assert not ans.sufficient and not [c for c in ans.citations if c.source == "gene"], ans.answer
        return
    if lines[0] == "Yes.":
        # asked whether the gene is implicated, and a curated record links them: the Yes and
        # the link's line come first
        assert claims_yes_no(question) and lines[1].startswith(f"{symbol} is linked to "), (question, ans.answer)
        lines = lines[2:]
    assert lines[0].startswith(f"{symbol}:"), (question, ans.answer)
    gene_cites = [c.id for c in ans.citations if c.source == "gene"]
    assert gene_cites == [gene_id], (question, ans.citations)


@pytest.mark.parametrize("question", UNKNOWN_SUBJECT_IN_DISEASE)
def test_a_subject_that_names_no_gene_is_not_answered_with_the_diseases_genes(agent, question):
    a = _analyse(agent, question)
    assert a.intent is None or all(h.field.name not in ("disease_genes", "summary") for h in a.intent.hops), a.intent
    ans = agent.answer(question)
    assert not [c for c in ans.citations if c.source == "gene"], (question, ans.answer)
    assert not ans.sufficient or not any(c.source in ("omim", "hpo") for c in ans.citations), ans.answer


# ---- 2. open requests about a disease ------------------------------------------------------
@pytest.mark.parametrize("question, name", OPEN_DISEASE)
def test_open_request_about_a_disease_plans_its_record(agent, question, name):
    a = _analyse(agent, question)
    assert [e.kind for e in a.entities if e.confident and e.kind != "phenotype"] == ["disease"], a.entities
    assert a.intent is not None and [(h.source, h.field.name) for h in a.intent.hops] == [("hpo", "disease_features")]


@pytest.mark.parametrize("question, name", OPEN_DISEASE)
def test_open_request_about_a_disease_answers_features_and_genes(agent, hpo_store, question, name):
    disease = hpo_store.find_diseases(name)[0]
    features = [p["name"] for p in hpo_store.disease_phenotypes(disease["disease_id"])[:3]]
    genes = [symbol for _, symbol in hpo_store.genes_of_disease(disease["disease_id"])]
    ans = agent.answer(question)
    lines = ans.answer.strip().splitlines()
    assert ans.sufficient, (question, ans.answer)
    assert lines[0].split(", ")[:3] == features, (question, ans.answer)
    assert genes and any(g in ans.answer for g in genes) and "HPO" in ans.answer, (question, ans.answer)
    # HPO's record of the disease, cited under the disease's own catalogue (omim:154700)
    assert any(f"{c.source}:{c.id}" == cited_as(disease["disease_id"]) and c.found_by == "hpo"
               for c in ans.citations), ans.citations
    assert not [c for c in ans.citations if c.source == "gene"], ans.citations  # no gene's summary


@pytest.mark.parametrize("question, symbol", OPEN_GENE)
def test_open_request_about_a_gene_still_gives_the_gene(agent, question, symbol):
    a = _analyse(agent, question)
    assert a.intent is not None and [(h.source, h.field.name) for h in a.intent.hops] == [("gene", "gene_card")]
    ans = agent.answer(question)
    assert ans.answer.strip().startswith(f"{symbol}:"), (question, ans.answer)
