"""Local data first: with the full gene store built (the bundled snapshot), the embedded preset's
gene and omim sources answer from it, offline, and E-utilities (the replay server over real
HTTP, or the replayed recording in process) only fill what the store lacks. The evidence and
the agent's trace say which backend answered."""

from __future__ import annotations

import pytest

from application.engine import build_agent
from biorag.contracts.errors import ToolError
from biorag.settings import load_settings
from biorag.understanding.search_request import SearchRequest
from retrievers.layered import LayeredGeneRetriever, LayeredOmimRetriever


def test_embedded_preset_layers_gene_and_omim():
    s = load_settings("embedded")
    assert s.sources["gene"].backend == "layered" and s.sources["omim"].backend == "layered"


def test_gene_answered_by_the_store_then_summary_filled_from_eutils(server, live_settings, full_gene_store_path):
    gene = LayeredGeneRetriever.from_settings(live_settings(gene_store=str(full_gene_store_path)))
    try:
        hits = gene.search(SearchRequest.of("LMP10", 5))
    finally:
        gene.close()
    top = hits[0].metadata
    assert (hits[0].id, top["symbol"], top["backend"], top["matched"]) == ("5699", "PSMB10", "local", "alias")
    assert hits.info["backend"] == "local"
    assert hits.info["layers"][0]["backend"] == "local" and hits.info["layers"][0]["hits"] >= 1
    # the store has no RefSeq summaries: the same search through E-utilities filled it in
    assert top["summary_source"] == "eutils" and "proteasome" in top["summary"].lower()
    assert hits.info["summary"] == "filled from eutils"
    assert [r["params"]["term"] for r in server.requests if "esearch" in r["path"]] == ["LMP10"]


def test_store_miss_falls_through_to_eutils_which_refuses_a_partial_match(server, live_settings, full_gene_store_path):
    """A clone-based name neither the store nor NCBI holds: NCBI matched only 'RP11', and the
    unrelated RP11-carrying records are not returned as if they were the gene."""
    gene = LayeredGeneRetriever.from_settings(live_settings(gene_store=str(full_gene_store_path)))
    try:
        with pytest.raises(ToolError, match="no record for 'RP11-17A4.3'.*only part") as failed:
            gene.search(SearchRequest.of("RP11-17A4.3", 5))
    finally:
        gene.close()
    layers = failed.value.info["layers"]  # what each layer did travels with the failure
    assert [(x["backend"], x["hits"]) for x in layers] == [("local", 0), ("eutils", 0)]
    assert "error" in layers[1] and len(server.requests) >= 1


def test_without_a_store_the_layered_source_is_eutils_and_says_why(server, live_settings, tmp_path):
    gene = LayeredGeneRetriever.from_settings(live_settings(gene_store=str(tmp_path / "none.sqlite")))
    try:
        hits = gene.search(SearchRequest.of("LMP10", 5))
    finally:
        gene.close()
    assert hits and all(h.metadata["backend"] == "eutils" for h in hits)
    skipped = hits.info["layers"][0]
    assert skipped["backend"] == "local" and "biorag data gene-store build" in skipped["skipped"]


def test_disease_genes_offline_no_request_made(server, live_settings, full_gene_store_path):
    omim = LayeredOmimRetriever.from_settings(live_settings(gene_store=str(full_gene_store_path)))
    try:
        hits = omim.search(SearchRequest.of("Meesmann corneal dystrophy", 10))
        blau = omim.search(SearchRequest.of("blau syndrome", 10))[0]
    finally:
        omim.close()
    assert server.requests == []  # answered offline
    hit = hits[0]  # the disease by its name, then its numbered subtypes
    assert hit.metadata["form"] == "name" and {h.metadata["form"] for h in hits[1:]} <= {"subtype"}
    assert hit.metadata["backend"] == "local" and sorted(hit.metadata["genes"]) == ["KRT12", "KRT3"]
    assert sorted({g for h in hits for g in h.metadata["genes"]}) == ["KRT12", "KRT3"]
    assert set(hit.metadata["locations"]) == {"17q21.2", "12q13.13"}
    assert (blau.id, blau.metadata["genes"], blau.url) == ("186580", ["NOD2"], "https://omim.org/entry/186580")


def test_disease_missing_from_the_dictionary_goes_to_omim(server, live_settings, full_gene_store_path):
    omim = LayeredOmimRetriever.from_settings(live_settings(gene_store=str(full_gene_store_path)))
    try:
        # no catalogue has this name (nor a form of it: "Bile acid malabsorption" is now
        # answered offline by its entries "Bile acid malabsorption, primary, 1/2")
        hits = omim.search(SearchRequest.of("Sensorineural deafness with mild renal dysfunction", 20))
    finally:
        omim.close()
    assert hits and all(h.metadata["backend"] == "eutils" for h in hits)
    assert [x["backend"] for x in hits.info["layers"]] == ["local", "eutils"]


def test_a_name_no_catalogue_holds_asks_omim_before_the_genes_it_names(server, live_settings, full_gene_store_path,
                                                                       full_gene_store):
    """The genes a name itself names (its product's, here) answer only after OMIM had no
    entry: the first real ClinVar name "<a gene's full name> deficiency", worded as no
    catalogue words it."""
    from tests.tools.test_disease_named_genes import product_deficiency_names

    product, gene_id = product_deficiency_names(full_gene_store)[0]
    omim = LayeredOmimRetriever.from_settings(live_settings(gene_store=str(full_gene_store_path)))
    try:
        hits = omim.search(SearchRequest.of(f"Hereditary anemia due to {product} deficiency", 10))
    finally:
        omim.close()
    assert [x["backend"] for x in hits.info["layers"]] == ["local", "eutils", "local-names"]
    assert hits.info["layers"][0]["hits"] == 0 and len(server.requests) >= 1  # OMIM was asked first
    assert hits.info["backend"] == "local-names" and gene_id in {g for h in hits for g in h.metadata["gene_ids"]}
    assert all(h.metadata["match"] == "gene_name" for h in hits)


def _agent(store_path):
    settings = load_settings("embedded", sets=["planner=rules", f"gene_store={store_path}"],
                             disable=["pubmed"])
    return build_agent(settings)  # builds the retrievers and the store's lexicon, as in use


def _retrieves(ans):
    return [e for e in ans.trace if e.step == "retrieve"]


def test_trace_shows_the_store_answered(full_gene_store_path):
    agent = _agent(full_gene_store_path)
    ans = agent.answer("What is the official gene symbol of LMP10?")
    (first,) = _retrieves(ans)[:1]
    assert first.retriever == "gene" and first.details["backend"] == "local"
    assert first.details["layers"][0] == {"backend": "local", "hits": len(first.hits)}
    assert ans.answer.splitlines()[0] == "PSMB10"


def test_trace_shows_disease_genes_answered_offline(full_gene_store_path):
    agent = _agent(full_gene_store_path)
    ans = agent.answer("What are genes related to Meesmann corneal dystrophy?")
    omim = [e for e in _retrieves(ans) if e.retriever == "omim"]
    assert omim and omim[0].details["backend"] == "local"
    assert set(ans.answer.splitlines()[0].split(", ")) == {"KRT12", "KRT3"}


def test_trace_shows_store_then_eutils_for_a_gene_the_store_lacks(full_gene_store_path):
    agent = _agent(full_gene_store_path)
    ans = agent.answer("Which chromosome is RP11-17A4.3 gene located on human genome?")
    gene = [e for e in _retrieves(ans) if e.retriever == "gene"]
    assert gene and [x["backend"] for x in gene[0].details["layers"]] == ["local", "eutils"]
    assert not gene[0].ok and "no record" in gene[0].error
    assert "chr" not in ans.answer.splitlines()[0]  # never an unrelated gene's chromosome
