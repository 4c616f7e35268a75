"""Readers (every input format), cleaning filters and the MeSH vocabulary. No Milvus here."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from biorag.contracts.errors import InputError
from biorag.contracts.models import SearchFilters
from biorag.knowledge import mesh
from biorag.ml.pubmed_schema import build_filter, mesh_expression
from indexing.clean import (
    Cleaner,
    clean_text,
    fix_unicode,
    strip_links,
    strip_markup,
    strip_table_figure,
)
from indexing.reader import detect_format, expand_inputs, read_file
from indexing.records import DeleteCitations, PubmedRecord

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample"
DATA = ROOT / "tests" / "data" / "index"


def records(path) -> list[PubmedRecord]:
    return [r for r in read_file(path) if isinstance(r, PubmedRecord)]


# ---- readers ------------------------------------------------------------------------------


def test_efetch_xml_gz_fields():
    recs = records(SAMPLE / "pubmed_0_to_99.xml.gz")
    assert len(recs) == 91
    r = next(r for r in recs if r.abstract and r.mesh)
    assert r.pmid > 0 and r.title and r.journal and 1900 < r.year < 2030
    assert r.mesh_uis and all(u.startswith("D") for u in r.mesh_uis)
    assert "eng" in r.languages and r.publication_types
    # labelled abstract sections are kept, one per line
    labelled = [r for r in recs if "\n" in r.abstract]
    assert labelled and all(":" in line.split(" ")[0] or ": " in line for line in labelled[0].abstract.split("\n"))


def test_old_dtd_without_ui_gets_ui_from_vocabulary():
    recs = records(SAMPLE / "cpfe_efetch_2012dtd.xml.gz")
    assert len(recs) == 111
    with_mesh = [r for r in recs if r.mesh]
    assert with_mesh
    named = sum(len(r.mesh) for r in with_mesh)
    resolved = sum(len(r.mesh_uis) for r in with_mesh)
    assert resolved / named > 0.95


def test_old_medline_update_file_with_delete_citation():
    items = list(read_file(SAMPLE / "medline16n0902.xml.gz"))
    recs = [i for i in items if isinstance(i, PubmedRecord)]
    deletes = [i for i in items if isinstance(i, DeleteCitations)]
    assert len(recs) == 604
    assert len(deletes) == 1 and deletes[0].pmids and all(isinstance(p, int) for p in deletes[0].pmids)
    assert items.index(deletes[0]) == len(items) - 1  # stream order kept: deletes after the citations


def test_bare_articles_with_bom_and_no_root():
    recs = records(DATA / "bare_articles_bom.xml")
    assert [r.pmid for r in recs] == [31810920, 31810907]
    assert all(r.abstract and r.mesh_uis for r in recs)


def test_jsonl_and_delete_lines(tmp_path):
    src = SAMPLE / "alzheimers_records.jsonl.gz"
    recs = records(src)
    assert len(recs) == 280 and all(r.abstract for r in recs)
    f = tmp_path / "x.jsonl"
    first = json.loads(gzip.open(src, "rt").readline())
    f.write_text(json.dumps(first) + "\n" + json.dumps({"delete": [first["pmid"]]}) + "\n")
    items = list(read_file(f))
    assert isinstance(items[0], PubmedRecord) and items[0].pmid == int(first["pmid"])
    assert isinstance(items[1], DeleteCitations) and items[1].pmids == [int(first["pmid"])]


def test_medline_text_format_matches_jsonl_records():
    txt = records(DATA / "three_records.medline.txt")
    js = records(SAMPLE / "alzheimers_records.jsonl.gz")[:3]
    assert [r.pmid for r in txt] == [r.pmid for r in js]
    for a, b in zip(txt, js, strict=True):
        assert a.title == b.title
        assert a.abstract.split() == b.abstract.split()
        assert set(a.mesh_uis) == set(b.mesh_uis)
        assert {m.ui for m in a.mesh if m.major} == {m.ui for m in b.mesh if m.major}


def test_malformed_and_unknown_files_raise_clear_errors(tmp_path):
    bad = tmp_path / "broken.xml"
    good_part = gzip.open(SAMPLE / "pubmed_0_to_99.xml.gz", "rt").read()[:20000]
    bad.write_text(good_part + "<oops></PubmedArticleSet>")
    with pytest.raises(InputError, match=r"broken\.xml: malformed XML near line \d+"):
        list(read_file(bad))
    junk = tmp_path / "notes.txt"
    junk.write_text("hello")
    with pytest.raises(InputError, match="unrecognised format"):
        detect_format(junk)
    with pytest.raises(InputError, match="no such file"):
        expand_inputs([tmp_path / "missing.xml"])
    badjson = tmp_path / "bad.jsonl"
    badjson.write_text('{"pmid": "12"}\n{"title": "no pmid"}\n')
    with pytest.raises(InputError, match="line 2"):
        list(read_file(badjson))


def test_directory_expansion_is_sorted_and_filtered():
    files = expand_inputs([SAMPLE])
    assert [f.name for f in files] == sorted(f.name for f in files)
    assert not any(f.name.endswith(".md") for f in files) and len(files) == 4


# ---- cleaning -------------------------------------------------------------------------------

BODY = (
    "We studied the effect of the treatment on memory in patients with the disease and found that "
    "the decline was slower in the treated group than in the control group over two years of follow up. "
)


def rec(abstract: str, **kw) -> PubmedRecord:
    kw.setdefault("languages", ["eng"])
    return PubmedRecord(pmid=1, title="A title", abstract=abstract, **kw)


def test_cleaning_transformations():
    assert fix_unicode("Alzheimerâ€™s disease") == "Alzheimer\u2019s disease"
    assert fix_unicode("caf\u00c3\u00a9 au lait") == "café au lait"
    assert fix_unicode("bad\ufffdchar\u0007s") == "badchars"
    assert strip_markup("the <i>APOE</i> &lt;sup&gt;4&lt;/sup&gt; allele").split() == ["the", "APOE", "4", "allele"]
    assert "http" not in strip_links("see https://example.org/x?y=1 and www.foo.com.")
    cleaned = strip_table_figure("Levels rose (Fig. 2A) and fell (Table 1).\n12 3.4 5.6 7.8 9.0\nEnd.")
    assert "Fig" not in cleaned and "Table" not in cleaned and "3.4" not in cleaned and "End." in cleaned
    out = clean_text("RESULTS:  a   b \n\n CONCLUSIONS: c")
    assert out == "RESULTS: a b\nCONCLUSIONS: c"


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (rec(BODY, retracted=True), "retracted"),
        (rec(BODY, publication_types=["Journal Article", "Retracted Publication"]), "retracted"),
        (rec(""), "no_abstract"),
        (rec("<p></p> https://example.org"), "no_abstract"),
        (rec("Nous avons étudié l'effet du traitement sur la mémoire des patients atteints de la maladie "
             "et constaté que le déclin était plus lent dans le groupe traité que dans le groupe témoin."), "non_english"),
        (rec("Kurz.", languages=["ger"]), "non_english"),
        (rec("xq zzkt prrw bcdf ghjk lmnp qrst vwxz " * 6), "gibberish"),
        (rec("@@ ## %% $$ 12.3 && ** aa 7.8 ^^ " * 5), "gibberish"),
        (rec("data " * 60), "gibberish"),
        (rec("The treatment slowed decline in patients."), "too_short"),
    ],
)
def test_every_drop_reason(record, reason):
    c = Cleaner(min_words=20)
    assert c(record) is None
    assert c.counts == {reason: 1} and c.kept == 0


def test_good_record_is_kept_and_cleaned():
    c = Cleaner(min_words=20)
    out = c(rec("<b>BACKGROUND:</b> " + BODY + " (Figure 1) See http://x.org/y."))
    assert out is not None and c.kept == 1 and not c.counts
    assert "<b>" not in out.abstract and "Figure" not in out.abstract and "http" not in out.abstract


def test_sample_drop_counts():
    c = Cleaner(min_words=40)
    for f in expand_inputs([SAMPLE]):
        for item in read_file(f):
            if isinstance(item, PubmedRecord):
                c(item)
    assert c.kept > 900 and c.counts["no_abstract"] > 50


# ---- MeSH vocabulary and filter expressions --------------------------------------------------------


def test_resolve_names_uis_and_aliases():
    v = mesh.vocabulary()
    assert v.resolve("alzheimer disease").ui == "D000544"
    assert v.resolve("D000544").name == "Alzheimer Disease"
    assert v.resolve("d000544").ui == "D000544"
    assert v.resolve("Male").ui == "D008297"  # check tags come from MeSH 2017
    assert mesh.resolve("Abortion, Criminal").ui == "D000024"  # older name as alias


@pytest.mark.parametrize(
    "term", ['"] or pmid > 0 or mesh in ["', 'D000544" or 1==1', "Alzheimer Disease%", "D999999999", "Foo Bar Baz", ""]
)
def test_bad_terms_rejected_with_clear_error(term):
    with pytest.raises(InputError, match="MeSH term"):
        mesh.resolve(term)
    with pytest.raises(InputError):
        build_filter(SearchFilters(mesh=["Alzheimer Disease", term]), "lite")


def test_filter_expressions_are_built_from_vocabulary_uis_only():
    expr = build_filter(SearchFilters(mesh=["Alzheimer Disease", "D003920"], year_from=2005, year_to=2020), "lite")
    assert expr == '(mesh_key like "%|D000544|%" or mesh_key like "%|D003920|%") and year >= 2005 and year <= 2020'
    server = build_filter(SearchFilters(mesh=["alzheimer disease"]), "server")
    assert server == 'array_contains_any(mesh_ui, ["D000544"])'
    forged = mesh.Descriptor(ui='D000544"] or pmid > 0', name="x")
    with pytest.raises(InputError):
        mesh_expression([forged], "lite")
    assert build_filter(None, "lite") == "" and build_filter(SearchFilters(), "lite") == ""


def test_vocabulary_tagger():
    t = mesh.VocabularyTagger()
    assert isinstance(t, mesh.MeshTagger)
    tags = t.tag("Do amyloid beta-peptides accumulate in the hippocampus in Alzheimer's disease in humans?", 3)
    assert tags[0] == "Amyloid beta-Peptides" and "Alzheimer Disease" in tags and "Hippocampus" in tags
    assert "Humans" not in tags
    assert t.tag("Is BRCA1 linked to breast neoplasms?", 1) == ["Breast Neoplasms"]
    assert [d.name for d in mesh.find_in_text("nothing medical here, just words")] == []
