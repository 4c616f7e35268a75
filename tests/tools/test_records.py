"""The sources' typed records (retrievers/gene_record.py, ...): each source writes its record
into `Evidence.metadata` and its readers take it back typed. The metadata a source writes
is its record's `as_metadata()`, key for key and in order, so the JSON on the wire stays
what it was; checked here on real records of the full gene store (random genes, fixed
seed), the E-utilities backend's replayed records and hand-written records of older shape."""

from __future__ import annotations

import json
import random

import pytest

from biorag.models import Evidence
from biorag.search_request import SearchRequest
from retrievers.gene import GeneRetriever, LocalGeneRetriever, record_from_esummary
from retrievers.gene_fields import GENE_CARD, read_gene_field
from retrievers.gene_record import GeneRecord
from retrievers.gene_store import GeneStore

#: the keys every gene record has carried, in order, whichever backend wrote it
GENE_KEYS = ["symbol", "name", "aliases", "organism", "tax_id", "chromosome", "map_location", "gene_type",
             "gene_type_source", "summary", "mim", "ensembl", "matched", "status", "backend", "summary_source",
             "processes", "pathways", "diseases"]


@pytest.fixture(scope="module")
def genes(full_gene_store_path):
    store = GeneStore(full_gene_store_path)
    ids = [r[0] for r in store._con.execute("SELECT gene_id FROM genes ORDER BY gene_id")]
    picked = random.Random(24).sample(ids, 150)
    retriever = LocalGeneRetriever(store)
    hits = [h for gid in picked for h in retriever.search(SearchRequest.of(str(gid), 1))]
    yield hits
    store.close()


def test_local_gene_records_round_trip_key_for_key(genes):
    assert len(genes) == 150
    assert any(GeneRecord.of(h).processes for h in genes) and any(GeneRecord.of(h).pathways for h in genes)
    for h in genes:
        rec = GeneRecord.of(h)
        assert json.dumps(rec.as_metadata()) == json.dumps(h.metadata)
        assert list(h.metadata) == [*GENE_KEYS, "hgnc_id", "previous_symbols"]
        # a pathway or disease carries no evidence codes, and its dict never had the key
        assert all(set(p) == {"id", "name"} for p in h.metadata["pathways"] + h.metadata["diseases"])
        assert all(set(p) == {"id", "name", "evidence"} for p in h.metadata["processes"])


def test_eutils_records_keep_their_own_keys(live_settings):
    hits = GeneRetriever.from_settings(live_settings()).search(SearchRequest.of("LMP10", 5))
    assert hits
    for h in hits:
        # no store-only key appears in an E-utilities record, and reading it back changes nothing
        assert list(h.metadata)[: len(GENE_KEYS)] == GENE_KEYS and "hgnc_id" not in h.metadata
        assert GeneRecord.of(h).as_metadata() == h.metadata


def test_esummary_record_reads_the_document():
    doc = {"name": "PSMB10", "description": "proteasome 20S subunit beta 10", "otheraliases": "LMP10, MECL1",
           "organism": {"scientificname": "Homo sapiens", "taxid": 9606}, "chromosome": "16",
           "maplocation": "16q22.1", "mim": [176847], "status": 0, "currentid": 0}
    rec = record_from_esummary(doc)
    assert (rec.symbol, rec.aliases, rec.tax_id, rec.mim, rec.status) == \
        ("PSMB10", ["LMP10", "MECL1"], 9606, ["176847"], "live")


def test_hand_written_record_of_older_shape_reads(genes):
    # a bare Ensembl id, a tax id as text, an empty summary: read as the typed record says
    ev = Evidence(source="gene", id="5699", title="PSMB10", text="",
                  metadata={"symbol": "PSMB10", "name": "proteasome 20S subunit beta 10", "tax_id": "9606",
                            "ensembl": "ENSG00000205220", "summary": "", "aliases": ["LMP10"]})
    rec = GeneRecord.of(ev)
    assert rec.tax_id == 9606 and rec.ensembl == ["ENSG00000205220"] and not rec.summary
    card = read_gene_field(GENE_CARD, [ev], ["LMP10"])
    assert card is not None and card.answer.startswith("PSMB10: proteasome 20S subunit beta 10")
    assert "Ensembl ENSG00000205220" in card.answer


def test_other_sources_records_are_not_gene_records(genes):
    ev = genes[0].model_copy(update={"source": "hpo"})
    assert GeneRecord.of(ev) is None
