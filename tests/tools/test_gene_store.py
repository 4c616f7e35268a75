"""Local gene store built from the bundled real sample (chromosome 16 rows of NCBI gene_info,
the HGNC complete set and OMIM mim2gene)."""

from __future__ import annotations

import pytest

from biorag.contracts.errors import InputError, SourceUnavailable
from biorag.understanding.search_request import SearchRequest
from indexing.gene_store_build import SAMPLE_DIR, build_gene_store
from retrievers.gene.retriever import LocalGeneRetriever
from retrievers.stores.gene_store import GeneStore


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("gs") / "genes.sqlite"
    summary = build_gene_store(path, SAMPLE_DIR / "gene_info_chr16.tsv.gz", SAMPLE_DIR / "hgnc_chr16.tsv.gz",
                               SAMPLE_DIR / "mim2gene_chr16.txt", progress=False)
    assert summary["gene_info"] == 2321 and summary["hgnc"] > 1500 and summary["mim"] > 700
    s = GeneStore(path)
    yield s
    s.close()


def search(store, q, k=10):
    return LocalGeneRetriever(store).search(SearchRequest.of(q, k))


def test_alias_resolves_to_official_symbol(store):
    top = search(store, "LMP10")[0]
    md = top.metadata
    assert (top.id, md["symbol"], md["matched"], md["map_location"], md["chromosome"]) == \
        ("5699", "PSMB10", "alias", "16q22.1", "16")
    assert md["gene_type"] == "protein-coding" and md["gene_type_source"] == "gene_info"
    assert md["ensembl"] == ["ENSG00000205220"] and "176847" in md["mim"]
    assert "MECL1" in md["previous_symbols"]
    assert top.url == "https://www.ncbi.nlm.nih.gov/gene/5699"


def test_ensembl_gene_id_and_hgnc_id_and_gene_id(store):
    assert search(store, "ENSG00000205220")[0].metadata["symbol"] == "PSMB10"
    assert search(store, "ENSG00000205220.12")[0].metadata["symbol"] == "PSMB10"  # version ignored
    assert search(store, "HGNC:9538")[0].id == "5699"
    assert search(store, "5699")[0].metadata["matched"] == "gene_id"


def test_location_lists_genes_in_the_band(store):
    hits = search(store, "16q22.1", k=500)
    assert len(hits) > 20 and all(h.metadata["map_location"].startswith("16q22.1") for h in hits)
    assert "PSMB10" in {h.metadata["symbol"] for h in hits}


def test_ambiguous_alias_returns_every_gene_official_symbol_first(store):
    hits = search(store, "CES2")
    assert [h.metadata["symbol"] for h in hits][:1] == ["CES2"]
    assert {h.id for h in hits} == {"8824", "1066"}  # CES1 also carries the alias CES2
    both = search(store, "CRHSP24")
    assert len(both) == 2 and all(h.metadata["matched"] == "alias" for h in both)


def test_case_is_preserved_and_exact_case_ranks_first(store):
    hits = search(store, "beta2i")
    assert hits[0].metadata["symbol"] == "PSMB10" and "beta2i" in hits[0].metadata["aliases"]


def test_same_evidence_shape_as_live_gene_tool(store, recorded_store):
    from retrievers.gene.retriever import record_from_esummary

    live = recorded_store.lookup("eutils", "esummary", {"db": "gene", "id": "5699,8138,19171"})
    import json

    doc = json.loads(live.body)["result"]["5699"]
    live_keys = set(record_from_esummary(doc).as_metadata())
    local_keys = set(search(store, "PSMB10")[0].metadata)
    assert live_keys <= local_keys


def test_missing_store_says_how_to_build(tmp_path):
    with pytest.raises(SourceUnavailable, match="biorag data gene-store build"):
        GeneStore(tmp_path / "none.sqlite")


def test_bad_input_files(tmp_path):
    bad = tmp_path / "x.tsv"
    bad.write_text("a\tb\n1\t2\n")
    with pytest.raises(InputError, match="not an NCBI gene_info"):
        build_gene_store(tmp_path / "o.sqlite", gene_info=bad, progress=False)
    with pytest.raises(InputError, match="needs --gene-info"):
        build_gene_store(tmp_path / "o.sqlite", progress=False)
