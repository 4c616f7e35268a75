"""A disease's genes in the order the catalogues link them (`biorag.knowledge.disease_gene_order`), on
the full gene store built as a user builds it (the bundled ClinVar, NCBI and HPO links)."""

from __future__ import annotations

import random

import pytest

from biorag.knowledge.disease_gene_order import causal, order_genes, subtype_number

RNG_SEED = 24


def _diseases(store, several: bool) -> list[str]:
    rows = store._con.execute("SELECT disease_id, COUNT(DISTINCT gene_id) FROM disease_genes GROUP BY disease_id "
                              "ORDER BY disease_id").fetchall()
    return [d for d, n in rows if (n > 1) == several]


def test_subtype_numbers_read_the_catalogues_series():
    family = "Hereditary hemochromatosis"
    assert subtype_number(family, "Hemochromatosis, type 1") == (1, 0, "")
    assert subtype_number(family, "Hemochromatosis, type 2A") < subtype_number(family, "Hemochromatosis, type 2B") \
        < subtype_number(family, "Hemochromatosis, type 3")
    assert subtype_number("Cardiomyopathy, dilated", "Cardiomyopathy, dilated, 1Z") \
        < subtype_number("Dilated cardiomyopathy", "Cardiomyopathy, dilated, 1AA")  # OMIM's letters run on
    assert subtype_number(family, "Juvenile hemochromatosis") is None  # another name, not a subtype
    assert subtype_number("Congenital central hypoventilation syndrome",  # the number after the whole name
                          "Central hypoventilation syndrome, congenital, 1, with or without Hirschsprung disease") \
        == (1, 0, "")
    assert subtype_number("Noonan syndrome", "Noonan syndrome-like disorder") is None
    assert subtype_number("Wiskott-Aldrich syndrome", "Wiskott-Aldrich syndrome", single=True) == (1, 0, "")
    assert subtype_number("Wiskott-Aldrich syndrome", "Wiskott-Aldrich syndrome") is None  # a family's own entry
    assert not causal([("clinvar", "related")]) and causal([("clinvar", "associated"), ("hpo", None)])
    assert not causal([("clinvar", "associated"), ("mim2gene_medgen", "susceptibility; modifier")])


def test_the_genes_are_the_same_only_the_order_changes_and_one_gene_stays(full_gene_store):
    rng = random.Random(RNG_SEED)
    for did in rng.sample(_diseases(full_gene_store, True), 300) + rng.sample(_diseases(full_gene_store, False), 300):
        genes = full_gene_store.genes_for_disease(did)
        ids = [g["gene_id"] for g in genes]
        assert len(ids) == len(set(ids)) and set(ids) == set(full_gene_store._disease_gene_ids(did)), did


def test_the_order_does_not_depend_on_the_order_genes_come_in(full_gene_store):
    rng = random.Random(RNG_SEED)
    store = full_gene_store
    for did in rng.sample(_diseases(store, True), 150):
        genes = store.genes_for_disease(did)
        name = store._con.execute("SELECT name FROM diseases WHERE disease_id=?", (did,)).fetchone()[0]
        entries = store._gene_entries([g["gene_id"] for g in genes])
        sizes = {d: n for d, n in store._con.execute(
            "SELECT disease_id, COUNT(DISTINCT gene_id) FROM disease_genes GROUP BY disease_id")}
        shuffled = genes[:]
        rng.shuffle(shuffled)
        assert [g["gene_id"] for g in order_genes(name, shuffled, entries, sizes)] == [g["gene_id"] for g in genes]


def test_a_family_linked_through_its_subtypes_lists_them_by_subtype_number(full_gene_store):
    """Generated from the store: families whose every gene ClinVar links as "related" (through
    a subtype), each gene the cause of one numbered subtype of the family's name: the genes
    come in the order of their subtypes' numbers."""
    store = full_gene_store
    checked = 0
    for did in _diseases(store, True):
        genes = store.genes_for_disease(did)
        if not all(g["links"] == [{"source": "clinvar", "note": "related"}] for g in genes):
            continue
        name = store._con.execute("SELECT name FROM diseases WHERE disease_id=?", (did,)).fetchone()[0]
        entries = store._gene_entries([g["gene_id"] for g in genes])
        numbers = []
        for g in genes:
            subs = {subtype_number(name, n) for _, n, links in entries[g["gene_id"]] if causal(links)} - {None}
            numbers.append(subs.pop() if len(subs) == 1 else None)
        if None in numbers or len(set(numbers)) < len(numbers):
            continue
        assert numbers == sorted(numbers), (did, name, [g["symbol"] for g in genes], numbers)
        checked += 1
    assert checked >= 20, checked


@pytest.mark.parametrize("disease,first", [("Hereditary hemochromatosis", "HFE"),  # type 1
                                           ("Noonan syndrome", "PTPN11"),  # linked to the family itself
                                           ("Long QT syndrome", "KCNQ1"),
                                           ("Wiskott-Aldrich syndrome", "WAS")])  # the unnumbered first form
def test_well_known_families_lead_with_their_first_gene(full_gene_store, disease, first):
    hit = next(h for h in full_gene_store.find_diseases(disease) if h["n_genes"] > 1)
    genes = [g["symbol"] for g in full_gene_store.genes_for_disease(hit["disease_id"])]
    assert genes[0] == first, (hit, genes)


def test_hpo_disease_records_list_the_same_genes_in_the_same_order_rules(hpo_store):
    """The HPO store's disease -> genes (its disease records): the genes HPO links, every
    one, in the order above (HPO's links are all causal); Noonan syndrome (Orphanet) leads
    with PTPN11, not BRAF, whose own subtype is Noonan syndrome 7."""
    con = hpo_store._con
    rng = random.Random(RNG_SEED)
    ids = [d for (d,) in con.execute("SELECT DISTINCT disease_id FROM gene_diseases ORDER BY disease_id")]
    for did in rng.sample(ids, 300):
        genes = hpo_store.genes_of_disease(did)
        linked = set(con.execute("SELECT gene_id, symbol FROM gene_diseases WHERE disease_id=?", (did,)).fetchall())
        assert len(genes) == len(set(genes)) and set(genes) == {tuple(r) for r in linked}, did
    noonan = next(d for d, n in con.execute("SELECT disease_id, name FROM diseases WHERE disease_id LIKE 'ORPHA:%'")
                  if n == "Noonan syndrome")
    assert hpo_store.genes_of_disease(noonan)[0][1] == "PTPN11"
