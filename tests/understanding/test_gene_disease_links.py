"""Two kinds of gene–disease question, in many phrasings, from real records (HGNC symbols,
aliases and names of the bundled gene snapshot; disease names of the local dictionary):

1. A gene asked about in the context of a disease ("is tau involved in Alzheimer disease?",
   "does FBN1 cause Marfan syndrome?", "CFTR and cystic fibrosis"): when the local
   gene–disease links (OMIM, NCBI mim2gene_medgen, ClinVar, HPO annotations) connect the
   gene to the disease, the answer's first line stays the gene's record and a line says so,
   naming who linked them and citing the disease's record under its own catalogue. When no
   local record links them, the record is no answer to what was asked: the question goes on
   to the literature (`biorag.loop.literature_turn`; these set-ups have no PubMed index, so
   the answer is insufficient), and under it "The records:" says in one short line that the
   link is absent from these catalogues only (never "not involved"), the disease's records
   checked cited; then what the local links do connect the gene to (its diseases, each cited
   under its own catalogue, a few and "and N more"), or that they connect it to no disease.
2. "What genetic changes contribute to D?", "genetic basis of D", "which mutations lead to
   D": the disease's genes (the disease → genes field), cited.

Which pairs are linked is read from the stores in the test, not claimed by this file.
"""

from __future__ import annotations

import re

import pytest

from biorag.knowledge.catalogues import cited_as
from biorag.understanding.analysis import analyse
from biorag.understanding.literature_asks import claims_yes_no
from retrievers.omim.retriever import GENE_LINKERS
from tests.agents import newcomer_agent

# (question, the gene's official symbol, the disease as the question names it)
LINKED = [
    ("Is HTT involved in Huntington disease?", "HTT", "Huntington disease"),
    ("What does huntingtin do in Huntington's disease?", "HTT", "Huntington disease"),
    ("does FBN1 cause Marfan syndrome?", "FBN1", "Marfan syndrome"),
    ("role of fibrillin 1 in Marfan syndrome", "FBN1", "Marfan syndrome"),
    ("CFTR and cystic fibrosis", "CFTR", "cystic fibrosis"),
    ("is CFTR linked to cystic fibrosis?", "CFTR", "cystic fibrosis"),
    ("Is MECP2 associated with Rett syndrome?", "MECP2", "Rett syndrome"),
    ("what does frataxin do in Friedreich ataxia", "FXN", "Friedreich ataxia"),
    ("FGFR3 and achondroplasia", "FGFR3", "achondroplasia"),
    ("is dystrophin involved in Duchenne muscular dystrophy?", "DMD", "Duchenne muscular dystrophy"),
    ("What is the role of PSEN1 in Alzheimer disease?", "PSEN1", "Alzheimer disease"),
]

# pairs the test checks are NOT linked in the local data before asking
UNLINKED = [
    ("is tau involved in Alzheimer disease?", "MAPT", "Alzheimer disease"),
    ("Is TP53 linked to cystic fibrosis?", "TP53", "cystic fibrosis"),
    ("does BRCA1 cause Marfan syndrome?", "BRCA1", "Marfan syndrome"),
    ("What does APOE do in Huntington disease?", "APOE", "Huntington disease"),
    ("role of leptin in Rett syndrome", "LEP", "Rett syndrome"),
    ("KRAS and achondroplasia", "KRAS", "achondroplasia"),
    ("is C9orf72 involved in Alzheimer disease?", "C9orf72", "Alzheimer disease"),  # a mixed-case symbol
    ("what is the role of CFTR in Marfan syndrome", "CFTR", "Marfan syndrome"),
]

# (question, the disease's name in the dictionary)
GENETIC_BASIS = [
    ("What genetic changes contribute to Marfan syndrome?", "Marfan syndrome"),
    ("genetic basis of cystic fibrosis", "cystic fibrosis"),
    ("which mutations lead to Rett syndrome", "Rett syndrome"),
    ("What mutations cause Huntington disease?", "Huntington disease"),
    ("what is the genetics of achondroplasia?", "achondroplasia"),
    ("Which variants cause Friedreich ataxia?", "Friedreich ataxia"),
    ("Duchenne muscular dystrophy genetic cause", "Duchenne muscular dystrophy"),
    ("what genetic variants underlie Tay-Sachs disease?", "Tay-Sachs disease"),
    ("What are the genetic causes of Wilson disease?", "Wilson disease"),
    ("genetic mutations behind Rett syndrome?", "Rett syndrome"),
]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    """A newcomer's set-up after `biorag data gene-store build` and `hpo-store build`."""
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def _store_links(full_gene_store, hpo_store, disease: str) -> dict[str, dict[str, set[str]]]:
    """disease record (as cited) -> gene symbol -> who linked them, from the stores: the
    gene store's disease dictionary (its forms too) and HPO's gene links."""
    out: dict[str, dict[str, set[str]]] = {}
    for hit in full_gene_store.find_diseases(disease, forms=True):
        for g in full_gene_store.genes_for_disease(hit["disease_id"]):
            for link in g["links"]:
                out.setdefault(cited_as(hit["disease_id"]), {}).setdefault(g["symbol"], set()).add(link["source"])
    for d in hpo_store.find_diseases(disease):
        for _, symbol in hpo_store.genes_of_disease(d["disease_id"]):
            out.setdefault(cited_as(d["disease_id"]), {}).setdefault(symbol, set()).add("hpo")
    return out


_RECORDS = "The records: "


def _link_line(answer: str, symbol: str, start: str = "") -> str:
    """The line after the answer's first (the gene's card, or the literature's refusal) that
    says how the gene is linked."""
    lines = [ln.removeprefix(_RECORDS) for ln in answer.strip().splitlines()[1:]]
    lines = [ln for ln in lines if symbol in ln and ln.startswith(start or f"{symbol} ")]
    assert len(lines) == 1, answer
    return lines[0]


def _diseases_of_gene(hpo_store, symbol: str) -> dict[str, str]:
    """disease record (as cited) -> its name, for the diseases the HPO annotations link the gene to."""
    return {cited_as(d["disease_id"]): d["name"] for gid, _ in hpo_store.gene_ids_for_symbol(symbol)
            for d in hpo_store.diseases_of_gene(gid)}


#: the longest a line of the answer may be read in one glance
LINE_CHARS = 250


def _went_to_the_literature(ans, symbol: str) -> None:
    """An unlinked pair: no card stands in for the answer; the literature was asked (and,
    with no index here, could not answer), the records' lines follow under "The records:"."""
    lines = ans.answer.strip().splitlines()
    assert not ans.sufficient and lines[0].startswith("Insufficient evidence"), ans.answer
    assert "Could not search pubmed" in lines[0], ans.answer
    assert lines[1].startswith(_RECORDS) and not any(ln.startswith(f"{symbol}: ") for ln in lines), ans.answer
    assert not [c for c in ans.citations if c.source == "gene"], ans.citations


# ---- 1. is X linked to D ----------------------------------------------------------------
@pytest.mark.parametrize("question, symbol, disease", LINKED + UNLINKED)
def test_the_gene_stays_the_subject_and_the_disease_is_checked(agent, question, symbol, disease):
    a = analyse(question, agent.retrievers, agent.lexicon)
    assert [e.canonical for e in a.entities if e.kind == "gene" and e.confident] == [(symbol,)], a.entities
    assert a.intent is not None and "gene" in a.intent.hops[0].takes and len(a.intent.hops) == 1, a.intent
    # the disease's genes are what the gene is checked against, by every source that has them;
    # then (when they do not link it) the gene's own diseases, by the source that lists them
    checks = {(h.field.name, h.takes) for h in a.intent.checks}
    assert checks == {("disease_genes", ("disease",)), ("gene_diseases", ("gene",))}, a.intent
    assert {h.source for h in a.intent.checks if h.takes == ("disease",)} >= {"omim", "hpo"}, a.intent
    assert {h.source for h in a.intent.checks if h.takes == ("gene",)} == {"hpo"}, a.intent


@pytest.mark.parametrize("question, symbol, disease", LINKED)
def test_a_linked_pair_is_said_linked_by_whom_with_the_disease_cited(agent, full_gene_store, hpo_store,
                                                                    question, symbol, disease):
    links = {rec: genes[symbol] for rec, genes in _store_links(full_gene_store, hpo_store, disease).items()
             if symbol in genes}
    assert links, f"{symbol}–{disease} is not linked in the stores: the test's pair is wrong"
    ans = agent.answer(question)
    lines = ans.answer.strip().splitlines()
    if claims_yes_no(question):
        # asked whether they are linked: a Yes, then the line that says by whom, then the gene
        assert lines[0] == "Yes." and lines[1].startswith(f"{symbol} is linked to "), ans.answer
        assert lines[2].startswith(f"{symbol}:"), ans.answer
    else:
        assert lines[0].startswith(f"{symbol}:"), ans.answer  # the first line stays the gene
    line = _link_line(ans.answer, symbol)
    assert line.startswith(f"{symbol} is linked to "), line
    cited = set(re.findall(r"\[([a-z]+:[^\]\s]+)\]", line))
    assert cited and cited <= set(links), (line, links)  # only records that link the gene, cited
    named = set(re.findall(r"by ([^)\]]+)\)", line)[0].split(", "))
    expected = {GENE_LINKERS.get(s, s) for rec in cited for s in links[rec]}
    assert named and named <= expected | {"HPO annotations"}, (line, expected)
    citations = {f"{c.source}:{c.id}" for c in ans.citations}
    assert cited <= citations, (cited, ans.citations)
    assert ans.sufficient


@pytest.mark.parametrize("question, symbol, disease", UNLINKED)
def test_an_unlinked_pair_is_said_unlinked_in_these_catalogues_only(agent, full_gene_store, hpo_store,
                                                                   question, symbol, disease):
    links = _store_links(full_gene_store, hpo_store, disease)
    assert links and not any(symbol in genes for genes in links.values()), \
        f"{symbol}–{disease}: the stores link them (or know no genes of it): the test's pair is wrong"
    ans = agent.answer(question)
    _went_to_the_literature(ans, symbol)
    line = _link_line(ans.answer, symbol, "no link between")
    assert line.startswith(f"no link between {symbol} and "), line
    assert line.endswith("absent from these catalogues only"), line
    assert len(line) <= LINE_CHARS, (len(line), line)  # read in one glance
    n = int(re.search(r"\((\d+) .*records? checked\)", line).group(1))
    assert not re.search(r"\b(?:not involved|is not linked|no role|does not cause)\b", ans.answer), ans.answer
    # the disease records checked are cited, under their own catalogue, as many as the line says
    checked = {f"{c.source}:{c.id}" for c in ans.citations} & set(links)
    assert checked and len(checked) == n, (n, checked, ans.citations)
    # and no line says the gene is linked to one of them
    for ln in ans.answer.splitlines()[1:]:
        assert not set(re.findall(r"\[([a-z]+:[^\]\s]+)\]", ln)) & set(links), ln


@pytest.mark.parametrize("question, symbol, disease", UNLINKED)
def test_an_unlinked_gene_is_said_what_it_is_linked_to_cited(agent, hpo_store, question, symbol, disease):
    diseases = _diseases_of_gene(hpo_store, symbol)
    assert diseases, f"{symbol} has no disease in the HPO annotations: the test's pair is wrong"
    ans = agent.answer(question)
    _went_to_the_literature(ans, symbol)
    line = _link_line(ans.answer, symbol, f"{symbol} is linked to: ")
    assert len(line) <= LINE_CHARS, (len(line), line)
    cited = re.findall(r"\[([a-z]+:[^\]\s]+)\]", line)
    assert cited and set(cited) <= set(diseases), (line, diseases)  # diseases the store links it to
    for rec in cited:  # each named, under its own catalogue
        assert f"{diseases[rec]} [{rec}]" in line, (rec, diseases[rec], line)
    more = re.search(r"and (\d+) more", line)
    assert len(cited) + (int(more.group(1)) if more else 0) == len(diseases), (line, len(diseases))
    assert "(by HPO annotations)" in line, line
    assert set(cited) <= {f"{c.source}:{c.id}" for c in ans.citations}, ans.citations


@pytest.fixture(scope="module")
def unlinked_genes(agent, full_gene_store, hpo_store) -> list[str]:
    """Protein-coding human genes no local catalogue links to any disease (neither the gene
    store's disease links nor HPO's), which the question reader takes as one gene."""
    rows = full_gene_store._con.execute(
        "SELECT symbol FROM genes WHERE tax_id=9606 AND gene_type='protein-coding' AND symbol GLOB '[A-Z]*[0-9]*' "
        "AND gene_id NOT IN (SELECT gene_id FROM disease_genes) ORDER BY gene_id LIMIT 400").fetchall()
    out = []
    for (symbol,) in rows:
        if hpo_store.gene_ids_for_symbol(symbol) or not re.fullmatch(r"[A-Z][A-Z0-9]{2,7}", symbol):
            continue
        a = analyse(f"is {symbol} involved in Marfan syndrome?", agent.retrievers, agent.lexicon)
        if [e.canonical for e in a.entities if e.kind == "gene" and e.confident] == [(symbol,)] and a.intent \
                and a.intent.checks:
            out.append(symbol)
        if len(out) == 3:
            break
    assert len(out) == 3, out
    return out


NO_DISEASE_PHRASINGS = ["is {} involved in Marfan syndrome?", "does {} cause cystic fibrosis?",
                        "What is the role of {} in Huntington disease?"]


@pytest.mark.parametrize("i", range(3))
def test_a_gene_with_no_disease_links_is_said_to_have_none(agent, full_gene_store, unlinked_genes, i):
    symbol = unlinked_genes[i]
    ans = agent.answer(NO_DISEASE_PHRASINGS[i].format(symbol))
    _went_to_the_literature(ans, symbol)
    line = _link_line(ans.answer, symbol, "no disease linked to")
    assert line.startswith(f"no disease linked to {symbol} in HPO annotations"), line
    assert len(line) <= LINE_CHARS and not re.search(r"\[[a-z]+:", line), line
    assert f"{symbol} is linked to" not in ans.answer, ans.answer


@pytest.mark.parametrize("question, symbol, disease", LINKED[:4] + UNLINKED)
def test_the_gene_s_diseases_are_looked_up_only_when_the_pair_is_not_linked(agent, question, symbol, disease):
    ans = agent.answer(question)
    asked = [(e.retriever, e.query) for e in ans.trace if e.step == "retrieve"]
    linked = (question, symbol, disease) in LINKED
    assert (("hpo", symbol) in asked) is not linked, asked
    # after the gene's record and the disease's records, never before; then the literature
    records = [a for a in asked if a[0] != "pubmed"]
    assert [a for a in asked if a[0] == "pubmed"] == ([] if linked else [("pubmed", question)]), asked
    if not linked:
        assert records.index(("hpo", symbol)) == len(records) - 1 and asked[-1][0] == "pubmed", asked


@pytest.fixture(scope="module")
def hybrid_agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir, planner="hybrid") as a:
        yield a


@pytest.mark.parametrize("question, symbol, disease", LINKED[:2] + UNLINKED[:3])
def test_the_hybrid_planner_answers_as_the_rules_do(agent, hybrid_agent, question, symbol, disease):
    rules, hybrid = agent.answer(question), hybrid_agent.answer(question)
    assert hybrid.answer == rules.answer, (hybrid.answer, rules.answer)
    assert [(c.source, c.id) for c in hybrid.citations] == [(c.source, c.id) for c in rules.citations]


# ---- 2. the genetic basis of a disease -----------------------------------------------------
@pytest.mark.parametrize("question, disease", GENETIC_BASIS)
def test_genetic_basis_of_a_disease_plans_its_genes(agent, question, disease):
    a = analyse(question, agent.retrievers, agent.lexicon)
    assert a.intent is not None and a.intent.kind == "disease_genes", (question, a.entities, a.intent)
    assert a.intent.hops[0].takes == ("disease",)


@pytest.mark.parametrize("question, disease", GENETIC_BASIS)
def test_genetic_basis_of_a_disease_answers_its_genes_cited(agent, full_gene_store, hpo_store, question, disease):
    links = _store_links(full_gene_store, hpo_store, disease)
    genes = {g for per in links.values() for g in per}
    ans = agent.answer(question)
    first = ans.answer.strip().splitlines()[0]
    assert ans.sufficient, ans.answer
    assert first and set(first.split(", ")) <= genes, (first, genes)
    assert any(f"{c.source}:{c.id}" in links for c in ans.citations), ans.citations
