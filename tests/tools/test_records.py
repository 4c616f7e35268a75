"""The sources' typed records (retrievers/gene/record.py, ...): each source writes its record
into `Evidence.metadata` and its readers take it back typed. The metadata a source writes
is its record's `as_metadata()`, key for key and in order, so the JSON on the wire stays
what it was; checked here on real records of the full gene store (random genes, fixed
seed), the E-utilities backend's replayed records and hand-written records of older shape."""

from __future__ import annotations

import json
import random

import pytest

from biorag.contracts.models import Evidence
from biorag.understanding.search_request import SearchRequest
from retrievers.dbsnp.clinvar import LocalVariantRetriever
from retrievers.dbsnp.record import VariantRecord
from retrievers.dbsnp.retriever import SNP_GENES, DbSnpRetriever, read_snp_field
from retrievers.gene.fields import GENE_CARD, read_gene_field
from retrievers.gene.record import GeneRecord
from retrievers.gene.retriever import GeneRetriever, LocalGeneRetriever, record_from_esummary
from retrievers.hpo.record import (
    DiseaseRecord,
    GeneDiseasesRecord,
    RankedDiseaseRecord,
    RankedGeneRecord,
)
from retrievers.hpo.retriever import HpoRetriever
from retrievers.stores.gene_store import GeneStore

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
        assert list(h.metadata) == [*GENE_KEYS, "hgnc_id", "previous_symbols", "designations"]
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
    assert "designations" not in rec.as_metadata()  # none given, no key (as before)
    # NCBI's other designations, "|"-separated, are what the gene-class field reads
    rec = record_from_esummary({**doc, "otherdesignations": "proteasome subunit beta type-10|low molecular mass protein 10"})
    assert rec.designations == ["proteasome subunit beta type-10", "low molecular mass protein 10"]


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


# ---- the hpo source ----------------------------------------------------------------------------

HPO_QUERIES = [  # phenotype sets, diseases asked for their features and genes, genes asked for diseases
    ("seizures, ataxia and microcephaly", None), ("tall stature, ectopia lentis and aortic root dilatation", None),
    ("Marfan syndrome", "disease_features"), ("cystic fibrosis", "disease_genes"), ("FBN1", "gene_diseases"),
    ("PAX6", "gene_diseases"),
]


@pytest.fixture(scope="module")
def hpo_hits(hpo_store):
    retriever = HpoRetriever(hpo_store)
    return [h for q, asks in HPO_QUERIES for h in retriever.search(SearchRequest(text=q, k=5, asks=asks))]


def test_hpo_records_of_every_kind_round_trip_key_for_key(hpo_hits):
    kinds = (RankedGeneRecord, RankedDiseaseRecord, DiseaseRecord, GeneDiseasesRecord)
    seen = set()
    for h in hpo_hits:
        typed = [r for kind in kinds if (r := kind.of(h)) is not None]
        assert len(typed) == 1, h.metadata["kind"]  # each record is exactly one kind
        assert json.dumps(typed[0].as_metadata()) == json.dumps(h.metadata)
        assert list(h.metadata)[0] == "kind" and list(h.metadata)[-2:] == ["hpo_release", "notice"]
        seen.add(type(typed[0]))
    assert seen == set(kinds)


def test_ranked_gene_says_what_each_phenotype_matched(hpo_hits):
    ranked = RankedGeneRecord.all_of(hpo_hits)
    assert ranked
    for ev, rec in ranked:
        assert str(rec.gene_id) == ev.id and rec.symbol == ev.title
        asked = {t.id for t in rec.query_terms}
        assert rec.matched and {m.query_term for m in rec.matched} <= asked
        assert rec.diseases[0] in {m.disease_id for m in rec.matched}  # the explaining disease first


# ---- the dbsnp source (dbSNP and ClinVar's variants) ----------------------------------------------

#: every key of a dbSNP record, in order; ClinVar's adds its own (`CLINVAR_KEYS`) after them
SNP_KEYS = ["chromosome", "position", "genes", "gene_ids", "alleles", "clinical_significance", "function_class",
            "spdi", "hgvs", "maf", "assembly_accession", "snp_class"]
CLINVAR_KEYS = ["clinvar_variations", "conditions", "assembly", "review_status", "release", "release_label",
                "protein_change", "grch37_position", "older_releases"]


def test_clinvar_variant_records_round_trip_key_for_key(full_gene_store_path):
    store = GeneStore(full_gene_store_path)
    try:
        rsids = [r[0] for r in store._con.execute("SELECT DISTINCT rsid FROM variants ORDER BY rsid")]
        picked = random.Random(24).sample(rsids, 60)
        hits = [h for rs in picked for h in LocalVariantRetriever(store).search(SearchRequest.of(rs, 1))]
    finally:
        store.close()
    assert len(hits) == 60
    for h in hits:
        rec = VariantRecord.of(h)
        assert json.dumps(rec.as_metadata()) == json.dumps(h.metadata)
        assert list(h.metadata) == [*SNP_KEYS, *CLINVAR_KEYS]
        assert rec.chromosome and rec.position and h.cited == f"clinvar:{rec.clinvar_variations[0]}"


def test_dbsnp_records_keep_their_own_keys(live_settings):
    (ev,) = DbSnpRetriever.from_settings(live_settings()).search(SearchRequest.of("rs1217074595", 10))
    assert list(ev.metadata) == SNP_KEYS and VariantRecord.of(ev).as_metadata() == ev.metadata
    reading = read_snp_field(SNP_GENES, [ev], ["rs1217074595"])
    assert reading is not None and reading.values == ["LINC01270"]
    # another source's record is no variant record, whatever its keys
    assert VariantRecord.of(ev.model_copy(update={"source": "gene"})) is None
