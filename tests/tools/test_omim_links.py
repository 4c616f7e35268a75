"""OMIM tool + local gene store: phenotype entries get their genes from NCBI mim2gene_medgen,
outdated symbols in gene entries are mapped to today's official symbol, and nothing is
resolved when more than one gene fits. Real rows only (the bundled chromosome-16 sample and
tests/tools/data/omim_links), OMIM answers replayed over real HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from biorag.contracts.errors import InputError
from biorag.understanding.search_request import SearchRequest
from indexing.gene_store_build import SAMPLE_DIR, build_gene_store
from retrievers.omim.retriever import OmimRetriever, link_genes, omim_evidence, omim_metadata
from retrievers.stores.gene_store import GeneStore

DATA = Path(__file__).parent / "data" / "omim_links"


def _build(path: Path, medgen: bool = True) -> Path:
    build_gene_store(path, SAMPLE_DIR / "gene_info_chr16.tsv.gz", SAMPLE_DIR / "hgnc_chr16.tsv.gz",
                     SAMPLE_DIR / "mim2gene_chr16.txt",
                     SAMPLE_DIR / "mim2gene_medgen_chr16.txt" if medgen else None, progress=False)
    return path


@pytest.fixture(scope="module")
def sample_path(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("gs") / "gene_store.sqlite")


@pytest.fixture(scope="module")
def store(sample_path):
    s = GeneStore(sample_path)
    yield s
    s.close()


@pytest.fixture(scope="module")
def sgo1_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("gs_sgo1") / "gene_store.sqlite"
    build_gene_store(path, DATA / "gene_info_sgo1.tsv", DATA / "hgnc_sgo1.tsv", None,
                     DATA / "mim2gene_medgen_sgo1.txt", progress=False)
    return path


def test_build_counts_and_phenotype_lookup(store):
    info = store.info()
    assert info["medgen_phenotype_links"] == 319 and info["medgen_gene_links"] == 732
    assert info["inputs"]["mim2gene_medgen"].endswith("mim2gene_medgen_chr16.txt")
    assert store.has_phenotype_links
    # #607765 bile acid synthesis defect 1 -> HSD3B7; #619147 -> KARS1 (HGNC's current symbol)
    assert store.genes_for_mim("607765") == [(80270, "HSD3B7", "16p11.2")]
    assert store.genes_for_mim(619147) == [(3735, "KARS1", "16q23.1")]
    # a gene MIM number (PSMB10's *176847) is not a phenotype link; unknown numbers give nothing
    assert store.genes_for_mim("176847") == [] and store.genes_for_mim("999999") == []
    assert "176847" in store.by_gene_id(5699)["mim"]


def test_links_keep_ncbi_comment_and_several_genes(store):
    (bco1,) = store.mim_links("115300")  # a link NCBI marks "question" (provisional)
    assert (bco1["symbol"], bco1["comment"], bco1["medgen_cui"]) == ("BCO1", "question", "C2676023")
    assert [g[1] for g in store.genes_for_mim("617981")] == ["HBA1", "HBA2"]  # two genes, by symbol
    md = link_genes("115300", omim_metadata({"oid": "%115300", "title": "X", "locus": ""}), store)
    assert md["gene_link_notes"] == {"BCO1": "question"} and md["locations"] == ["16q23.2"]
    assert "BCO1 (NCBI comment: question)" in omim_evidence("115300", md).text


def test_bad_medgen_file_is_refused(tmp_path):
    bad = tmp_path / "medgen.txt"
    bad.write_text("MIM Number\tMIM Entry Type\tEntrez Gene ID\n100050\tphenotype\t-\n")
    with pytest.raises(InputError, match="not NCBI mim2gene_medgen"):
        build_gene_store(tmp_path / "o.sqlite", gene_info=SAMPLE_DIR / "gene_info_chr16.tsv.gz",
                         mim2gene_medgen=bad, progress=False)


def test_current_symbol_maps_previous_symbols_only_when_unambiguous(store):
    kars = store.current_symbol("KARS")  # HGNC previous symbol of KARS1
    assert (kars.symbol, kars.gene_id, kars.basis, kars.changed) == ("KARS1", 3735, "previous", True)
    same = store.current_symbol("PSMB10", mim="176847")
    assert (same.symbol, same.changed) == ("PSMB10", False)
    # MECL1 is PSMB10's previous symbol; the entry's own MIM number agrees
    assert store.current_symbol("MECL1", mim="176847").symbol == "PSMB10"
    # ...but an entry about another gene (a MIM number PSMB10 does not carry) is not remapped
    other = store.current_symbol("MECL1", mim=store.by_gene_id(3735)["mim"][0])
    assert other.symbol is None and other.basis == "ambiguous" and other.candidates == ["PSMB10"]
    # an alias shared by two genes: both named, neither chosen
    amb = store.current_symbol("CRHSP24")
    assert (amb.symbol, amb.basis, amb.candidates) == (None, "ambiguous", ["CARHSP1", "GSE1"])
    assert store.current_symbol("NOTAGENE1").basis == "unknown"


def test_ambiguous_symbol_in_a_gene_entry_is_kept_and_flagged(store):
    md = link_genes("999998", omim_metadata({"oid": "*999998", "title": "SOME PROTEIN; CRHSP24",
                                             "locus": "16p13.2"}), store)
    assert md["genes"] == ["CRHSP24"] and md["genes_as_listed"] == ["CRHSP24"]
    assert md["genes_ambiguous"] == {"CRHSP24": ["CARHSP1", "GSE1"]} and md["gene_ids"] == [None]
    assert "ambiguous symbol: could be CARHSP1, GSE1" in omim_evidence("999998", md).text


def _by_id(hits):
    return {h.id: h for h in hits}


def _search(omim: OmimRetriever, query: str, k: int) -> dict:
    """Hits by MIM number; the retriever (and its gene store) is closed afterwards."""
    try:
        return _by_id(omim.search(SearchRequest.of(query, k)))
    finally:
        omim.close()


def test_phenotype_entries_get_genes_from_the_store(server, live_settings, sample_path):
    hits = _search(OmimRetriever.from_settings(live_settings(gene_store=str(sample_path))), "Bile acid malabsorption", 20)
    cbas1 = hits["607765"]
    assert cbas1.metadata["genes"] == ["HSD3B7"] and cbas1.metadata["gene_ids"] == [80270]
    assert cbas1.metadata["genes_source"] == "mim2gene_medgen"
    assert cbas1.metadata["locations"] == ["16p11.2"]
    assert "Genes (NCBI mim2gene_medgen): HSD3B7" in cbas1.text
    # cited as the OMIM entry it is, saying who linked the gene
    assert (cbas1.cited, cbas1.linked_by) == ("omim:607765", ["NCBI mim2gene_medgen"])
    # the store only knows chromosome 16: other phenotypes stay without genes, none invented
    assert hits["613291"].metadata["genes"] == [] and hits["613291"].metadata["genes_source"] is None
    # gene entries unknown to the store keep OMIM's symbol
    slc = hits["601295"].metadata
    assert slc["genes"] == slc["genes_as_listed"] == ["SLC10A2"] and slc["genes_source"] == "omim_title"
    assert hits["601295"].linked_by == ["OMIM"] and hits["613291"].linked_by == []


def test_without_a_store_nothing_is_added(server, live_settings):
    omim = OmimRetriever.from_settings(live_settings())  # data_dir is empty: no store
    assert omim.store is None
    hits = _search(omim, "Bile acid malabsorption", 20)
    assert hits["607765"].metadata["genes"] == [] and "genes_as_listed" not in hits["601295"].metadata


def test_store_without_medgen_links_fills_no_phenotype_genes(server, live_settings, tmp_path):
    path = _build(tmp_path / "old.sqlite", medgen=False)
    omim = OmimRetriever.from_settings(live_settings(gene_store=str(path)))
    assert not omim.store.has_phenotype_links
    hits = _search(omim, "Bile acid malabsorption", 20)
    assert hits["607765"].metadata["genes"] == []


def test_outdated_symbol_mapped_and_phenotype_filled(server, live_settings, sgo1_path):
    hits = _search(OmimRetriever.from_settings(live_settings(gene_store=str(sgo1_path))),
                   "Chronic atrial and intestinal dysrhythmia", 10)
    gene = hits["609168"]  # OMIM's esummary still titles it "SHUGOSHIN-LIKE 1; SGOL1"
    assert gene.metadata["genes_as_listed"] == ["SGOL1"]
    assert gene.metadata["genes"] == ["SGO1"] and gene.metadata["gene_ids"] == [151648]
    assert "Gene: SGO1 (listed by OMIM as SGOL1)" in gene.text
    caid = hits["616201"].metadata
    assert caid["genes"] == ["SGO1"] and caid["genes_source"] == "mim2gene_medgen"
    assert caid["locations"] == ["3p24.3"]
