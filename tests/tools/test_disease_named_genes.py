"""A disease name no catalogue holds may still name its gene: by the gene's symbol
("COG7-congenital disorder of glycosylation") or its product ("Glycine N-methyltransferase
deficiency"). `GeneStore.genes_named_in` reads those, and the local `omim` backend answers with
them only when no catalogue knows the name, saying so. Examples are real ClinVar
gene_condition_source_id rows picked by a rule (the first N of a class, in file order)."""

from __future__ import annotations

import re

import pytest

from biorag.understanding.search_request import SearchRequest
from retrievers.omim.local import LocalOmimRetriever
from tests.tools.test_disease_dictionary import _gcs_rows

N = 20


@pytest.fixture(scope="module")
def product_deficiencies(full_gene_store):
    return product_deficiency_names(full_gene_store)


def product_deficiency_names(full_gene_store) -> list[tuple[str, int]]:
    """(product name, gene id) for the first N ClinVar names "<the gene's full name> deficiency"
    of an associated gene (full names without digits, so that numbering plays no part)."""
    out = []
    for r in _gcs_rows():
        if not (r["AssociatedGenes"] and r["GeneID"].isdigit()):
            continue
        gene = full_gene_store.by_gene_id(r["GeneID"])
        name = gene and gene["name"]
        if name and not re.search(r"[\d,]", name) and r["DiseaseName"].lower() == f"{name.lower()} deficiency":
            out.append((name, int(r["GeneID"])))
    return list(dict.fromkeys(out))[:N]


def test_a_product_deficiency_named_six_ways_gives_its_gene(full_gene_store, product_deficiencies):
    assert len(product_deficiencies) == N
    for product, gene_id in product_deficiencies:
        texts = [f"{product} deficiency", f"Deficiency of {product}", f"{product.upper()} DEFICIENCY",
                 f"{product} defect", f"Hereditary anemia due to {product} deficiency",
                 f"Defect in {product}"]
        for text in texts:
            got = full_gene_store.genes_named_in(text)
            assert gene_id in {g["gene_id"] for g in got}, (text, [g["symbol"] for g in got])
            assert len(got) <= 5 and all(g["named_by"] in ("product name", "product family name") for g in got)


def test_a_symbol_in_the_name(full_gene_store):
    """ClinVar's gene-prefixed names ("ALG6-congenital disorder of glycosylation 1C"): the first
    N whose prefix is the associated gene's official symbol with a digit."""
    rows = [r for r in _gcs_rows() if r["AssociatedGenes"] and re.match(r"^[A-Z][A-Z0-9]*\d[A-Z0-9]*[- ]", r["DiseaseName"])
            and r["DiseaseName"].split("-")[0].split()[0] == r["AssociatedGenes"]][:N]
    assert len(rows) == N
    for r in rows:
        for text in (r["DiseaseName"], r["DiseaseName"].replace("-", " ", 1), f"disease due to {r['AssociatedGenes']} deficiency"):
            got = full_gene_store.genes_named_in(text)
            assert int(r["GeneID"]) in {g["gene_id"] for g in got}, text


def test_what_names_no_gene(full_gene_store):
    for text in ("Mitochondrial complex IV deficiency, nuclear type 2", "Factor VII deficiency, mild",
                 "Tyrosine transaminase deficiency", "Marfan syndrome", "Iron deficiency anemia",
                 # "X due to Y": only Y is read; Y names no gene here
                 "Sulfite oxidase deficiency due to molybdenum cofactor deficiency type A"):
        assert [g["symbol"] for g in full_gene_store.genes_named_in(text)] == [], text


def test_the_omim_backend_answers_from_the_name_only_when_no_catalogue_has_it(full_gene_store, product_deficiencies):
    omim = LocalOmimRetriever(full_gene_store)
    product, gene_id = product_deficiencies[0]
    catalogued = omim.search(SearchRequest.of(f"{product} deficiency", 5))  # ClinVar's own name: the catalogue answers
    assert catalogued[0].metadata["match"] == "name" and catalogued[0].metadata["disease_id"]
    unseen = omim.search(SearchRequest.of(f"Hereditary anemia due to {product} deficiency", 5))
    assert unseen and all(ev.metadata["match"] == "gene_name" for ev in unseen)
    ev = next(ev for ev in unseen if ev.metadata["gene_ids"] == [gene_id])
    assert "no offline disease catalogue" in ev.text and ev.metadata["genes_source"].startswith("local: gene store names")
    reading = LocalOmimRetriever.read(LocalOmimRetriever.answers[0], unseen, [])
    assert reading is not None and "names" in reading.explanation and ev.metadata["genes"][0] in reading.values
