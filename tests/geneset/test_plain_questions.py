"""Gene-set, phenotype and disease questions in plain words reach the `geneset` and `hpo`
sources through question understanding (their declared entity kinds and answer fields),
and the agent answers them from the local stores: no network, no recording."""

from __future__ import annotations

import pytest

from application.engine import build_agent
from biorag.knowledge.catalogues import cited_as
from biorag.settings import load_settings
from biorag.understanding.analysis import analyse
from tests.agents import newcomer_agent

GENES = ["MLH1", "MSH2", "MSH6", "PMS2"]  # NeST:125's core, the mismatch-repair genes


@pytest.fixture(scope="module")
def settings(geneset_data_dir):
    return load_settings(overrides={"data_dir": str(geneset_data_dir), "planner": "rules"})


@pytest.fixture(scope="module")
def understanding(settings):
    agent = build_agent(settings)
    retrievers, lexicon = agent.retrievers, agent.lexicon
    yield retrievers, lexicon
    for r in retrievers.values():
        r.close()
    lexicon.close()


def route(understanding, question):
    retrievers, lexicon = understanding
    a = analyse(question, retrievers, lexicon)
    assert a.intent is not None, (question, a.entities)
    return a, [(h.source, h.field.name) for h in a.intent.hops]


#: question -> the field it asks: a process (the first GO BP term), a pathway (the first
#: Reactome pathway), or what the set shares
GENE_SET_QUESTIONS = {
    "Which process do MLH1, MSH2, MSH6 and PMS2 share?": "go_term",
    "what do these genes do together: MLH1 MSH2 MSH6 PMS2": "enriched_term",
    "MLH1, MSH2, MSH6, PMS2 - shared pathway?": "enriched_term",
    "MLH1, MSH2, MSH6, PMS2: which Reactome pathway?": "pathway",
    "Tell me the biological process shared by MLH1 MSH2 MSH6 and PMS2": "go_term",
    "enrichment of MLH1 MSH2 MSH6 PMS2 please": "enriched_term",
    "which pathways do mlh1, msh2, msh6 and pms2 have in common": "enriched_term",
    "what do MLH1, MSH2, MSH6 and PMS2 have in common": "enriched_term",
}


@pytest.mark.parametrize("question,field", GENE_SET_QUESTIONS.items())
def test_gene_set_questions_reach_geneset(understanding, question, field):
    a, hops = route(understanding, question)
    assert hops == [("geneset", field)]
    gene_list = a.first("gene_list")
    assert gene_list is not None and set(gene_list.text.split()) == set(GENES)


def test_a_question_naming_go_asks_for_the_go_term(understanding):
    """A question naming GO asks for the first-ranked GO BP term, not any enriched term."""
    a, hops = route(understanding, "The enriched GO term of MLH1, MSH2, MSH6, PMS2 is")
    assert hops == [("geneset", "go_term")]
    assert set(a.first("gene_list").text.split()) == set(GENES)


PHENOTYPE_GENES = [
    "Which genes are linked to seizures and ataxia?",
    "genes associated with ataxia and seizures",
    "Seizures and ataxia: which genes?",
    "List the candidate genes for seizure and ataxia",
    "The genes linked to seizures and ataxia are",
]
PHENOTYPE_DISEASES = [
    "Which diseases present with seizures and ataxia?",
    "diseases with ataxia and seizures",
    "seizures and ataxia: which disorders",
    "What conditions show seizures and ataxia",
    "differential diagnosis for ataxia and seizures",
]
FEATURES = [
    "What are the features of Marfan syndrome?",
    "Clinical signs of Marfan syndrome",
    "List the symptoms of Marfan syndrome",
    "The features of Marfan syndrome are",
    "phenotypes of marfan syndrome?",
]
GENE_DISEASES = [
    "Which diseases involve FBN1?",
    "FBN1 diseases",
    "diseases linked to FBN1",
    "What disorders are caused by mutations in FBN1",
    "The diseases associated with FBN1 are",
]


@pytest.mark.parametrize("question,field", [(q, "phenotype_genes") for q in PHENOTYPE_GENES]
                         + [(q, "phenotype_diseases") for q in PHENOTYPE_DISEASES]
                         + [(q, "disease_features") for q in FEATURES]
                         + [(q, "gene_diseases") for q in GENE_DISEASES])
def test_phenotype_and_disease_questions_reach_hpo(understanding, question, field):
    a, hops = route(understanding, question)
    assert hops == [("hpo", field)]
    if field.startswith("phenotype_"):
        assert set(a.first("phenotype").canonical) == {"Seizure", "Ataxia"}


def test_gene_questions_still_reach_gene(understanding):
    _, hops = route(understanding, "Which chromosome is TP53 on?")
    assert hops == [("gene", "chromosome")]
    _, hops = route(understanding, "What are genes related to Meesmann corneal dystrophy?")
    assert hops == [("omim", "disease_genes")]


@pytest.fixture(scope="module")
def agent(settings):
    return build_agent(settings)


@pytest.mark.parametrize("question", list(GENE_SET_QUESTIONS)[:3])
def test_agent_names_the_term_first(agent, question):
    ans = agent.answer(question)
    first = ans.answer.splitlines()[0]
    assert "mismatch repair" in first.lower() and ("GO:" in first or "R-HSA-" in first)
    assert ans.answer.splitlines()[1].startswith("supporting genes: ")
    assert [t.retriever for t in ans.trace if t.step == "retrieve"] == ["geneset"]
    assert ans.citations[0].source == "geneset"


def test_agent_answers_phenotype_genes_with_matched_terms(agent):
    ans = agent.answer("Which genes are linked to seizures and ataxia?")
    assert "HPO terms matched: Seizure (HP:0001250), Ataxia (HP:0001251)" in ans.answer
    assert [t.retriever for t in ans.trace if t.step == "retrieve"] == ["hpo"]
    assert all(c.found_by == "hpo" for c in ans.citations)


def test_disease_genes_from_hpo_when_omim_cannot_answer(geneset_data_dir):
    """OMIM through E-utilities only, offline: no recording holds this disease, so HPO's
    gene links answer, and the trace and citations say so."""
    settings = load_settings(overrides={"data_dir": str(geneset_data_dir), "planner": "rules",
                                        "sources": {"omim": {"backend": "eutils"}}})
    ans = build_agent(settings).answer("What genes are related to Marfan syndrome?")
    retrieved = [(t.retriever, t.ok) for t in ans.trace if t.step == "retrieve"]
    assert retrieved[0] == ("omim", False) and ("hpo", True) in retrieved
    assert ans.answer.split(",")[0].strip() == "FBN1"
    assert {(c.source, c.found_by) for c in ans.citations} == {("omim", "hpo")}  # HPO's record of OMIM:154700


# More phrasings, answered end to end by the agent (rules planner, local stores only). The
# expected values come from the HPO store itself, not from this file.
MORE_PHENOTYPE_GENES = [
    "I have a patient with ataxia and epileptic seizures - candidate genes?",
    "which genes explain ataxia plus seizures",
    "top genes for seizures, ataxia",
    "Rank genes by seizures and ataxia",
    # a name no catalogue holds, made of phenotypes: omim has nothing, HPO ranks the genes
    "seizures + ataxia genes",
]
MORE_FEATURES = [
    "Marfan syndrome features",
    "What phenotypes are seen in Marfan syndrome",
    "clinical features of Marfan's syndrome",
    "Marfan syndrome: what are its signs and symptoms?",
    "clinical signs of Marfan\u2019s syndrome?",
    # HPO's own words ("HPO" itself is also an alias of the gene GFER)
    "Which HPO terms are annotated to Marfan syndrome?",
    "HPO annotations of Marfan syndrome",
]
MORE_GENE_DISEASES = [
    "What diseases are associated with the FBN1 gene?",
    "FBN1 - which disorders?",
    "Which conditions are caused by FBN1 variants?",
    "list diseases of fbn1",
    "In which diseases is FBN1 implicated?",
    "What syndromes are due to FBN1 mutations?",
]


@pytest.mark.parametrize("question", MORE_PHENOTYPE_GENES)
def test_agent_ranks_genes_for_seizures_and_ataxia(agent, hpo_store, question):
    expected = [r.label for r in hpo_store.rank_genes(["HP:0001250", "HP:0001251"], 5)]
    ans = agent.answer(question)
    assert ans.sufficient, (question, ans.answer)
    assert ans.answer.split(" (HPO terms matched")[0].split(", ")[:5] == expected
    assert "Seizure (HP:0001250)" in ans.answer and "Ataxia (HP:0001251)" in ans.answer


@pytest.mark.parametrize("question", MORE_FEATURES)
def test_agent_lists_marfan_features(agent, hpo_store, question):
    expected = [p["name"] for p in hpo_store.disease_phenotypes("OMIM:154700")[:15]]
    ans = agent.answer(question)
    assert ans.sufficient and ans.answer.split(", ")[:5] == expected[:5], (question, ans.answer)
    assert any((c.source, c.id, c.found_by) == ("omim", "154700", "hpo") for c in ans.citations)


@pytest.mark.parametrize("question", MORE_GENE_DISEASES)
def test_agent_lists_the_diseases_of_fbn1(agent, hpo_store, question):
    names = {d["name"] for d in hpo_store.diseases_of_gene(2200)}
    ans = agent.answer(question)
    assert ans.sufficient and "Marfan syndrome" in ans.answer, (question, ans.answer)
    assert "Acromicric dysplasia" in ans.answer and "Acromicric dysplasia" in names


# Phenotype lists framed by words that name nothing ("both", "together with", "a phenotype
# of"): a question form reads the whole phrase as a disease no catalogue holds; the
# phenotypes the dictionary knows win, and HPO ranks the genes for them.
FRAMED_PHENOTYPE_GENES = [
    ("What genes cause both seizures and ataxia?", "seizures ataxia"),
    ("Give me genes for a phenotype of seizures together with ataxia", "seizures ataxia"),
    ("Which genes are associated with both seizures and ataxia", "seizures ataxia"),
    ("genes underlying ataxia along with seizures", "ataxia seizures"),
    ("genes for a combination of seizures and ataxia", "seizures ataxia"),
    ("genes for the phenotypes seizures as well as ataxia", "seizures ataxia"),
    ("Which genes cause both hypotonia and seizures?", "hypotonia seizures"),
    ("genes behind both ataxia and seizures in one patient", "ataxia seizures"),
]


@pytest.mark.parametrize("question,phenotypes", FRAMED_PHENOTYPE_GENES)
def test_framed_phenotype_lists_rank_genes(agent, hpo_store, question, phenotypes):
    terms = hpo_store.find_terms(phenotypes)
    assert len(terms) == 2
    expected = [r.label for r in hpo_store.rank_genes([t.id for t in terms], 5)]
    ans = agent.answer(question)
    assert ans.sufficient, (question, ans.answer)
    assert ans.answer.split(" (HPO terms matched")[0].split(", ")[:5] == expected
    for t in terms:
        assert f"{t.name} ({t.id})" in ans.answer
    assert [t.retriever for t in ans.trace if t.step == "retrieve"] == ["hpo"]


def test_a_qualifier_before_a_feature_list_is_kept_not_read_as_a_disease(understanding):
    """Only words that name nothing frame a list. "juvenile" before two features is no lost
    word and no unknown disease: it is the patient's onset (Juvenile onset), beside the
    features (biorag.understanding.feature_qualifiers)."""
    a, _ = route(understanding, "Which genes cause both seizures and ataxia?")
    assert a.first("disease") is None
    retrievers, lexicon = understanding
    a = analyse("Which genes cause juvenile seizures and ataxia?", retrievers, lexicon)
    assert a.first("disease") is None, a.entities
    assert {(m.name, m.ident) for m in a.first("phenotype").members} >= {("Seizure", "HP:0001250"),
                                                                         ("Juvenile onset", "HP:0003621")}


# A disease named with no lead word before it ("How does X present?", "What does X look
# like?"): the words after a clause's asking words are looked up too.
NO_LEAD_FEATURES = [
    ("how does Marfan syndrome present?", "Marfan syndrome"),
    ("What does Marfan syndrome look like clinically?", "Marfan syndrome"),
    ("How does Noonan syndrome present", "Noonan syndrome"),
    ("what is marfan syndrome", "Marfan syndrome"),
    ("Does Marfan syndrome present with arachnodactyly? list its features", "Marfan syndrome"),
]
# A bare eponym names the disease when the dictionary holds exactly one "<name> syndrome" or
# "<name> disease" family
EPONYM_FEATURES = [
    ("symptoms of marfan", "Marfan syndrome"),
    ("What are the signs of Alport?", "Alport syndrome"),
    ("features of noonan", "Noonan syndrome"),
    ("Marfan: what are the clinical features?", "Marfan syndrome"),
]
# "HPO" is an alias of GFER and a word of the HPO source's cues: with a disease named and a
# field asked about it, it is the cue, not a gene
HPO_WORD_FEATURES = [
    ("Marfan syndrome HPO terms", "Marfan syndrome"),
    ("HPO terms for Marfan syndrome", "Marfan syndrome"),
    ("Noonan syndrome HPO terms", "Noonan syndrome"),
    ("list the HPO terms of noonan syndrome", "Noonan syndrome"),
]


@pytest.mark.parametrize("question,disease", NO_LEAD_FEATURES + EPONYM_FEATURES + HPO_WORD_FEATURES)
def test_features_of_a_disease_named_without_a_lead(agent, hpo_store, question, disease):
    first = hpo_store.find_diseases(disease)[0]
    expected = [p["name"] for p in hpo_store.disease_phenotypes(first["disease_id"])[:15]]
    ans = agent.answer(question)
    assert ans.sufficient and ans.answer.split(", ")[:5] == expected[:5], (question, ans.answer)
    assert any(f"{c.source}:{c.id}" == cited_as(first["disease_id"]) and c.found_by == "hpo" for c in ans.citations)


def test_an_eponym_of_two_disease_families_is_not_guessed(understanding, agent):
    """"cushing": the dictionary holds both Cushing syndrome and Cushing disease (two
    conditions): nothing is picked, the answer is insufficient and names both."""
    retrievers, lexicon = understanding
    names = {h.span for h in lexicon.lookup_spans(["cushing syndrome", "cushing disease"], ("disease",))}
    assert names == {"cushing syndrome", "cushing disease"}
    a = analyse("symptoms of cushing", retrievers, lexicon)
    d = a.first("disease")
    assert d is not None and not d.confident and a.intent is None
    assert {n.lower() for n in d.canonical} >= {"cushing syndrome", "cushing disease"}
    ans = agent.answer("symptoms of cushing")
    assert not ans.sufficient and "'cushing' may name several diseases" in ans.answer, ans.answer
    assert all(name in ans.answer for name in d.canonical)
    # asked back at once: no source searched for a name that means two things, no model call
    assert not any(ev.step == "retrieve" for ev in ans.trace) and ans.timings.llm_ms == 0, ans.trace


def test_an_eponym_needs_a_name_not_a_word(understanding):
    """An ordinary English word in lower case ("down") is no eponym, though "Down
    syndrome" is a disease; capitalised it may be."""
    retrievers, lexicon = understanding
    assert analyse("signs of down", retrievers, lexicon).first("disease") is None
    d = analyse("What are the signs of Down?", retrievers, lexicon).first("disease")
    assert d is not None and d.text == "down syndrome" and d.span == "Down"


def test_hpo_stays_a_gene_where_nothing_else_is_named(understanding):
    retrievers, lexicon = understanding
    aliases = {h.canonical for h in lexicon.lookup_spans(["HPO"], ("gene",)) if h.how == "alias"}
    assert "GFER" in aliases
    for question, field in [("Where is HPO?", "chromosome"), ("What is the official symbol of HPO?", "official_symbol")]:
        a, hops = route(understanding, question)
        assert hops == [("gene", field)] and a.first("gene").canonical == ("GFER",)


def test_the_default_planner_asks_an_ambiguous_eponym_back_without_the_model(geneset_data_dir):
    """On the default (hybrid) planner too: before, "symptoms of cushing" recognised nothing
    sure, so the small model planned three rounds (12 s) before the same insufficient answer."""

    class NoModel:
        def __getattr__(self, name):
            raise AssertionError(f"the model was asked ({name})")

    with newcomer_agent(geneset_data_dir, planner="hybrid") as agent:
        agent._llm = NoModel()
        ans = agent.answer("symptoms of cushing")
    assert not ans.sufficient and "'cushing' may name several diseases" in ans.answer, ans.answer
    assert ans.rounds == 1 and not any(ev.step == "retrieve" for ev in ans.trace)
