"""A disease family asked by its name reaches its catalogue forms: numbered subtypes
("Bardet-Biedl syndrome 10", "Renal tubular acidosis, distal, 4, ...") and entries that
qualify the name after a comma ("Bile acid malabsorption, primary, 1"). Examples are real
ClinVar gene_condition_source_id rows picked by a rule (the first N families in file order),
answered by the local `omim` backend over the store built from the bundled snapshot."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from biorag.knowledge.names import catalogue_form, disease_key, inverted_keys
from biorag.understanding.search_request import SearchRequest
from retrievers.omim.local import LocalOmimRetriever
from tests.tools.test_disease_dictionary import _gcs_rows

N = 12
_NUMBERED = re.compile(r"^(.+?) (\d+[A-Z]?)$")


@pytest.mark.parametrize("key, name, form", [
    ("bile acid malabsorption", "Bile acid malabsorption, primary, 1", "head"),
    ("bardet biedl syndrome", "Bardet-Biedl syndrome 10", "subtype"),
    ("distal renal tubular acidosis", "Renal tubular acidosis, distal, 4, with hemolytic anemia", "subtype"),
    ("distal renal tubular acidosis", "Distal renal tubular acidosis 3, with or without sensorineural hearing loss", "subtype"),
    ("marfan syndrome", "Marfan syndrome", None),  # the name itself is no form of it
    ("marfan syndrome", "Marfan syndrome-like disorder", None),
    ("breast cancer", "Breast cancer susceptibility", None),  # a longer name is another disease
    ("", "Bardet-Biedl syndrome 10", None),
])
def test_catalogue_form(key, name, form):
    assert catalogue_form(key, name) == form


def test_inverted_keys():
    assert inverted_keys("distal renal tubular acidosis") == [
        "renal tubular acidosis distal", "tubular acidosis distal renal"]
    assert inverted_keys("marfan syndrome") == []


def _families() -> dict[str, dict[str, str]]:
    """family name -> {subtype name: its one associated gene}, for ClinVar names ending in a
    subtype number whose family name is not itself a ClinVar name, first N families with at
    least two subtypes."""
    rows = _gcs_rows()
    named = {disease_key(r["DiseaseName"]) for r in rows}
    fam: dict[str, dict[str, str]] = defaultdict(dict)
    for r in rows:
        m = _NUMBERED.match(r["DiseaseName"])
        if m and r["AssociatedGenes"] and "," not in m.group(1) and disease_key(m.group(1)) not in named:
            fam[m.group(1)][r["DiseaseName"]] = r["AssociatedGenes"]
    return dict([kv for kv in fam.items() if len(kv[1]) >= 2][:N])


@pytest.fixture(scope="module")
def omim(full_gene_store):
    return LocalOmimRetriever(full_gene_store)


def test_a_family_name_gives_the_genes_of_its_numbered_subtypes(omim):
    families = _families()
    assert len(families) == N
    for family, subtypes in families.items():
        hits = omim.search(SearchRequest.of(family, 50))
        genes = {g for ev in hits for g in ev.metadata["genes"]}
        # the family's own entry (HPO or MeSH may name it) first, then its catalogue forms
        forms = [ev.metadata["form"] for ev in hits]
        assert forms and set(forms[1:]) <= {"subtype", "head"} and "subtype" in forms, (family, forms)
        found = [s for s, gene in subtypes.items() if gene in genes]
        assert len(found) >= 2, (family, subtypes, sorted(genes))


def test_a_name_of_its_own_comes_first_and_alone(omim, full_gene_store):
    # "Currarino syndrome" is an HPO/Orphanet name with genes: one record for the name
    hits = omim.search(SearchRequest.of("Currarino syndrome", 10))
    assert [ev.metadata["form"] for ev in hits][:1] == ["name"]
    assert sum(ev.metadata["form"] == "name" for ev in hits) == 1
    assert "MNX1" in hits[0].metadata["genes"]


def test_a_catalogue_head_gives_the_qualified_entries(omim):
    hits = omim.search(SearchRequest.of("bile acid malabsorption", 10))
    assert hits and {ev.metadata["form"] for ev in hits} == {"head"}
    assert all(ev.title.lower().startswith("bile acid malabsorption,") for ev in hits)
    assert len({g for ev in hits for g in ev.metadata["genes"]}) >= 2
