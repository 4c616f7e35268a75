""""Which enzyme is deficient in Gaucher disease?": the product a disease lacks is its gene's,
which the curated gene–disease links state (`biorag.understanding.product_questions`).

Drawn from real records: HPO diseases whose name the question reader takes as one disease,
with exactly one gene linked by HPO, that gene an enzyme by HGNC's EC numbers (a field the
reader never reads). Each disease is asked in five wordings; every one must answer with that
gene first, cited. The same diseases asked for a vitamin or a hormone they lack never get
the gene list: those are no gene products."""

from __future__ import annotations

import random

import pytest

from biorag.understanding.analysis import analyse
from tests.agents import newcomer_agent
from tests.hgnc_rows import approved_hgnc_rows

WORDINGS = ["Which enzyme is deficient in {d}?", "Name the enzyme deficient in {d}",
            "{D} is caused by a deficiency of which enzyme?", "what enzyme is missing in {d}",
            "Hi! quick one: which enzyme is defective in {d}? thanks"]
NOT_PRODUCTS = ["Which vitamin is deficient in {d}?", "Which hormone is lacking in {d}?"]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


@pytest.fixture(scope="module")
def enzyme_diseases(agent, hpo_store) -> list[tuple[str, str]]:
    """(disease name, its one gene) for 12 diseases drawn at random (seeded)."""
    enzymes = {r["symbol"] for r in approved_hgnc_rows() if r.get("enzyme_id")}
    rows = hpo_store._con.execute(
        "SELECT d.name, min(g.symbol) FROM diseases d JOIN gene_diseases g ON g.disease_id = d.disease_id "
        "WHERE d.disease_id LIKE 'OMIM:%' GROUP BY d.disease_id HAVING count(DISTINCT g.symbol) = 1").fetchall()
    pool = sorted((name, symbol) for name, symbol in rows if symbol in enzymes and "," not in name and ";" not in name
                  and len(name.split()) <= 5)
    random.Random(5).shuffle(pool)
    out = []
    for name, symbol in pool:
        a = analyse(f"Which enzyme is deficient in {name}?", agent.retrievers, agent.lexicon)
        diseases = [e for e in a.entities if e.kind == "disease" and e.confident]
        if len(diseases) == 1 and not [e for e in a.entities if e.kind == "gene" and e.confident]:
            out.append((name, symbol))
        if len(out) == 12:
            break
    assert len(out) == 12, out
    return out


def test_the_enzyme_a_disease_lacks_is_its_gene_however_asked(agent, enzyme_diseases):
    right = asked = 0
    for name, symbol in enzyme_diseases:
        for wording in WORDINGS:
            ans = agent.answer(wording.format(d=name.lower(), D=name))
            asked += 1
            genes = ans.answer.splitlines()[0].split(", ") if ans.sufficient else []
            right += genes[:1] == [symbol]
            assert not ans.sufficient or symbol in genes, (wording, name, ans.answer)
    assert right / asked >= 0.9, (right, asked)


def test_a_vitamin_or_hormone_lacking_is_no_gene_product(agent, enzyme_diseases):
    for name, _symbol in enzyme_diseases[:4]:
        for wording in NOT_PRODUCTS:
            a = analyse(wording.format(d=name), agent.retrievers, agent.lexicon)
            assert a.intent is None or a.intent.kind != "disease_genes", (wording, name, a.intent)
