"""The omim, blast, web and pubmed sources' typed records (retrievers/omim/record.py,
blast_record.py, web_record.py, pubmed_record.py) and the core's readers of them
(biorag/loop/links.py, biorag/understanding/unknown_names.py). Each source writes its record into
`Evidence.metadata` and readers take it back typed; the metadata is the record's
`as_metadata()`, key for key and in the order each writer always used, so the JSON on the
wire is unchanged. Real records: OMIM and BLAST answers of the bundled recording, diseases of
the full gene store's dictionary (random names, fixed seed), PubMed sample records, and web
results served by the replay server."""

from __future__ import annotations

import gzip
import json
import random

import pytest

from biorag.knowledge.catalogues import cited_as
from biorag.knowledge.gene_link_labels import labelled_genes
from biorag.loop.links import gene_disease_link
from biorag.understanding.analysis import analyse
from biorag.understanding.search_request import SearchRequest
from biorag.understanding.unknown_names import still_unknown
from retrievers.blast.reading import SEQUENCE_ORGANISM, read_blast_field
from retrievers.blast.record import BlastHitRecord
from retrievers.blast.retriever import blast_evidence, parse_report
from retrievers.common.http_store import BUNDLED_CASSETTE
from retrievers.gene.retriever import GeneRetriever
from retrievers.hpo.retriever import HpoRetriever
from retrievers.omim.local import LocalOmimRetriever
from retrievers.omim.record import OmimRecord
from retrievers.omim.retriever import (
    DISEASE_GENES,
    DISEASE_LOCATIONS,
    OmimRetriever,
    read_omim_field,
)
from retrievers.pubmed.record import PubMedRecord
from retrievers.pubmed.retriever import PubMedRetriever
from retrievers.stores.gene_store import GeneStore
from retrievers.stores.lexicon import StoreLexicon
from retrievers.web.record import WebRecord
from retrievers.web.retriever import ArxivRetriever, CrossrefRetriever, WikipediaRetriever
from tests.index.index_helpers import SAMPLE
from tests.registered import SOURCES

#: the order of every key an E-utilities OMIM entry may carry, and the local backend's
EUTILS_ORDER = ["title", "genes", "locations", "entry_type", "prefix", "alt_titles", "genes_source", "genes_as_listed",
                "gene_ids", "genes_ambiguous", "gene_link_notes", "partial_response", "backend", "gene_links"]
LOCAL_ORDER = ["title", "genes", "gene_ids", "locations", "entry_type", "prefix", "alt_titles", "genes_source",
               "disease_id", "xrefs", "backend", "form", "match", "gene_link_notes", "gene_links", "asked_as",
               "named_by", "named_as"]
BLAST_KEYS = ["accession", "description", "organism", "chromosome", "chromosome_record", "assembly", "identity",
              "evalue", "bit_score", "align_length", "query_start", "query_end", "subject_start", "subject_end",
              "strand", "rid"]


def _cassette(service: str) -> list[dict]:
    with open(BUNDLED_CASSETTE, encoding="utf-8") as fh:
        return [row for line in fh if (row := json.loads(line))["service"] == service]


def _same_on_the_wire(ev, rec) -> bool:
    return json.dumps(rec.as_metadata()) == json.dumps(ev.metadata)


def _in_order(keys: list[str], order: list[str]) -> bool:
    return keys == [k for k in order if k in keys]


# ---- omim ---------------------------------------------------------------------------------------

OMIM_TERMS = list(dict.fromkeys(r["params"]["term"] for r in _cassette("eutils")
                                if r["function"] == "esearch" and r["params"].get("db") == "omim"))


def test_omim_entries_round_trip_key_for_key(live_settings, full_gene_store_path):
    bare = OmimRetriever.from_settings(live_settings(gene_store=str(full_gene_store_path) + ".absent"))
    linked = OmimRetriever.from_settings(live_settings(gene_store=str(full_gene_store_path)))
    assert bare.store is None and linked.store is not None
    try:
        hits = [h for r in (bare, linked) for t in OMIM_TERMS for h in r.search(SearchRequest.of(t, 10))]
    finally:
        linked.close()
    assert len(OMIM_TERMS) >= 10 and len(hits) >= 100
    kinds = set()
    for h in hits:
        rec = OmimRecord.of(h)
        assert rec is not None and not rec.is_local and _same_on_the_wire(h, rec)
        assert _in_order(list(h.metadata), EUTILS_ORDER) and list(h.metadata)[:7] == EUTILS_ORDER[:7]
        assert rec.title == h.title and rec.backend == "eutils"
        kinds.add(tuple(k for k in ("genes_as_listed", "gene_ids", "gene_link_notes", "gene_links") if k in h.metadata))
    # title genes, store-completed genes and mim2gene_medgen's notes all came through
    assert {(), ("gene_links",), ("genes_as_listed", "gene_ids", "gene_links"),
            ("gene_ids", "gene_link_notes", "gene_links")} <= kinds


@pytest.fixture(scope="module")
def local_hits(full_gene_store_path):
    store = GeneStore(full_gene_store_path)
    names = [r[0] for r in store._con.execute("SELECT DISTINCT name FROM disease_names ORDER BY name")]
    asked = random.Random(24).sample(names, 150) + [
        "Marfans syndrome", "syndrome Marfan", "Alzheimer disease", "distal renal tubular acidosis",
        "PSMB10 deficiency", "glucose-6-phosphate dehydrogenase deficiency"]
    retriever = LocalOmimRetriever(store)
    yield [(q, h) for q in asked for h in retriever.search(SearchRequest.of(q, 5))]
    store.close()


def test_local_disease_records_round_trip_in_their_own_order(local_hits):
    assert len(local_hits) >= 100
    matches = set()
    for q, h in local_hits:
        rec = OmimRecord.of(h)
        assert rec is not None and rec.is_local and _same_on_the_wire(h, rec)
        assert _in_order(list(h.metadata), LOCAL_ORDER) and list(h.metadata)[:13] == LOCAL_ORDER[:13]
        assert rec.genes and rec.gene_keys == [str(i) for i in rec.gene_ids]
        assert (rec.asked_as == q) == (rec.match != "name")  # the words asked, when not the name itself
        matches.add(rec.match)
    assert {"name", "gene_name"} <= matches and len(matches) >= 3
    # a gene the name names carries no gene links (nobody linked it), a catalogue's disease does
    assert all(bool(OmimRecord.of(h).gene_links) == (OmimRecord.of(h).match != "gene_name") for _, h in local_hits)


def test_omim_reader_reads_the_records_genes_and_locations(local_hits):
    for q in dict.fromkeys(q for q, _ in local_hits):
        hits = [h for asked, h in local_hits if asked == q]
        recs = [OmimRecord.of(h) for h in hits]
        genes = read_omim_field(DISEASE_GENES, hits, [q])
        # the records' genes in their order, causal ones first, then each qualified kind
        notes = {g: n for r in recs for g, n in r.gene_link_notes.items()}
        listed = list(dict.fromkeys(g for r in recs for g in r.genes))
        assert genes.values == [g for gs in labelled_genes(listed, notes).values() for g in gs]
        ids = {g: str(i) for r in reversed(recs) for g, i in zip(r.genes, r.gene_ids, strict=True)}
        assert genes.links == list(dict.fromkeys(ids[g] for g in genes.values))
        locs = read_omim_field(DISEASE_LOCATIONS, hits, [q])
        wanted = list(dict.fromkeys(loc for r in recs for loc in r.locations))
        assert (locs.values if locs else []) == wanted


def test_other_sources_records_are_not_omim_records(local_hits):
    _, h = local_hits[0]
    for other in ("hpo", "gene", "blast"):
        assert OmimRecord.of(h.model_copy(update={"source": other})) is None
    assert read_omim_field(DISEASE_GENES, [h.model_copy(update={"source": "hpo"})], []) is None


# ---- blast ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def blast_hits():
    return [blast_evidence(h, row["params"].get("RID")) for row in _cassette("blast")
            if row["params"].get("CMD") == "Get" for h in parse_report(row["response"])]


def test_blast_hits_round_trip_key_for_key(blast_hits):
    assert len(blast_hits) >= 500
    for h in blast_hits:
        rec = BlastHitRecord.of(h)
        assert rec is not None and _same_on_the_wire(h, rec) and list(h.metadata) == BLAST_KEYS
        assert (rec.accession, rec.description) == (h.id, h.title)
    assert any(BlastHitRecord.of(h).located for h in blast_hits)
    assert BlastHitRecord.of(blast_hits[0].model_copy(update={"source": "omim"})) is None


def test_blast_reader_reads_only_blast_records(blast_hits):
    human = [h for h in blast_hits if BlastHitRecord.of(h).organism == "Homo sapiens"][:5]
    assert read_blast_field(SEQUENCE_ORGANISM, human, []).values == ["Homo sapiens"]
    # the same records under another source's name are not BLAST hits: nothing to read
    assert read_blast_field(SEQUENCE_ORGANISM, [h.model_copy(update={"source": "web"}) for h in human], []) is None


# ---- web and pubmed ----------------------------------------------------------------------------

def test_web_results_round_trip_key_for_key(server, live_settings):
    server.script("/w/api.php", (200, json.dumps({"query": {"search": [
        {"title": "PSMB10", "snippet": "<span>Proteasome</span> subunit", "timestamp": "2024-01-02T00:00:00Z"},
        {"title": "FBN1", "snippet": "fibrillin"}]}}), "application/json", 0))
    server.script("/works", (200, json.dumps({"message": {"items": [
        {"DOI": "10.1000/x", "title": ["A paper"], "issued": {"date-parts": [[2020, 5]]},
         "author": [{"given": "A", "family": "B"}], "URL": "https://doi.org/10.1000/x"}]}}), "application/json", 0))
    atom = ('<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"><entry>'
            '<id>http://arxiv.org/abs/1234.5678v1</id><title>Gene RAG</title><summary>We study genes.</summary>'
            '<author><name>C D</name></author><arxiv:doi>10.48550/x</arxiv:doi></entry></feed>')
    server.script("/api/query", (200, atom, "application/atom+xml", 0))
    s = live_settings()
    hits = [h for cls in (WikipediaRetriever, CrossrefRetriever, ArxivRetriever)
            for h in cls.from_settings(s).search(SearchRequest.of("q", 3))]
    assert len(hits) == 4
    for h in hits:
        rec = WebRecord.of(h)
        assert rec is not None and _same_on_the_wire(h, rec) and rec.url == h.id and rec.untrusted
        assert list(h.metadata) == ["engine", "url", "snippet", "date", "authors", "doi", "untrusted"]
    assert [(r.engine, r.doi, r.authors) for _, r in WebRecord.all_of(hits)][2:] == \
        [("crossref", "10.1000/x", ["A B"]), ("arxiv", "10.48550/x", ["C D"])]
    assert WebRecord.of(hits[0].model_copy(update={"source": "pubmed"})) is None


def test_pubmed_records_round_trip_key_for_key():
    with gzip.open(SAMPLE / "alzheimers_records.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f][:60]
    ad = "D000544"
    for i, row in enumerate(rows):
        # the entity as the index returns it (biorag.ml.pubmed_schema.row_from_record's fields)
        entity = {"title": row["title"], "abstract": row.get("abstract", ""), "journal": row.get("journal", ""),
                  "year": int(row.get("year") or 0), "mesh_ui": [m["ui"] for m in row["mesh"]],
                  "mesh_name": [m["name"] for m in row["mesh"]],
                  "mesh_major": [m["ui"] for m in row["mesh"] if m.get("major")]}
        hit = {"id": int(row["pmid"]), "distance": 0.5, "entity": entity, **({"similarity": 0.4} if i % 3 == 2 else {})}
        mesh = {ad} if i % 3 else set()  # no filter; a filter (i % 3 == 1); a boost (i % 3 == 2)
        ev = PubMedRetriever._evidence(hit, mesh, mesh if i % 3 == 1 else set())
        rec = PubMedRecord.of(ev)
        assert rec is not None and _same_on_the_wire(ev, rec) and rec.pmid == ev.id
        keys = ["pmid", "year", "journal", "mesh", "mesh_ui", "mesh_major", "mesh_filter", "mesh_match", "widened"]
        assert list(ev.metadata) == keys + (["similarity"] if i % 3 == 2 else [])
        assert rec.mesh_match is (None if i % 3 == 0 else ad in rec.mesh_ui)
        assert rec.widened == (i % 3 == 1 and ad not in rec.mesh_ui)
    assert PubMedRecord.of(ev.model_copy(update={"source": "web"})) is None


# ---- the core's readers: gene–disease links and names no dictionary holds ---------------------

@pytest.fixture(scope="module")
def lexicon(full_gene_store_path):
    lex = StoreLexicon(full_gene_store_path)
    yield lex
    lex.close()


def test_links_read_who_linked_each_gene_from_the_typed_records(full_gene_store_path, lexicon, hpo_store):
    store = GeneStore(full_gene_store_path)
    omim, hpo = LocalOmimRetriever(store), HpoRetriever(hpo_store)
    sources = {"omim": omim, "hpo": hpo}
    try:
        # linked: the line names the linking record and who linked the gene, as the record says
        a = analyse("does FBN1 cause Marfan syndrome?", SOURCES, lexicon)
        ev = omim.search(SearchRequest.of("Marfan syndrome", 5))
        link = gene_disease_link(a, ev, sources)
        rec = OmimRecord.of(link.used[0])
        assert link.linked and f"(by {', '.join(rec.gene_links['FBN1'])})" in link.text
        # not linked: the disease's records are checked; then the gene's own diseases, read
        # from HPO's gene record, each cited under its catalogue
        a = analyse("is tau involved in Alzheimer disease?", SOURCES, lexicon)
        ev = omim.search(SearchRequest.of("Alzheimer disease", 5)) + \
            hpo.search(SearchRequest(text="MAPT", k=5, asks="gene_diseases"))
        link = gene_disease_link(a, ev, sources)
        first, second = link.text.split("\n")
        assert first.startswith("no link between MAPT and Alzheimer disease") and second.startswith("MAPT is linked to: ")
        (gene_rec,) = [r for r in hpo.links(ev) if r.symbol == "MAPT"]
        cited = {e.cited for e in link.used if e.metadata.get("kind") == "gene_disease_link"}
        assert cited and cited <= {cited_as(d) for d, _ in gene_rec.diseases}
        # records that carry no links (their keys gone) link nothing
        bare = [e.model_copy(update={"metadata": {k: v for k, v in e.metadata.items() if k != "gene_links"}})
                for e in omim.search(SearchRequest.of("Marfan syndrome", 5))]
        a = analyse("does FBN1 cause Marfan syndrome?", SOURCES, lexicon)
        assert gene_disease_link(a, bare, {"omim": omim}).text.startswith("no local record of the genes")
    finally:
        store.close()


def test_a_name_is_known_once_a_record_holds_a_gene_by_it(live_settings):
    gene = GeneRetriever.from_settings(live_settings())
    hits = gene.search(SearchRequest.of("LMP10", 5))  # PSMB10, alias LMP10 (replayed E-utilities)
    unknown = {"LMP10": (), "MECL1": (), "5699": (), "LMP10X": ("LMP10",)}
    # two aliases and the Gene ID: held; a name no record carries: still unknown
    assert still_unknown(unknown, hits, {"gene": gene}) == {"LMP10X": ("LMP10",)}
    # the names are read by the records' own source: without it only the ids count
    assert set(still_unknown(unknown, hits, {})) == {"LMP10", "MECL1", "LMP10X"}
