"""`dbsnp` source, backend `local`: an rsID's gene, location and clinical significance from the
ClinVar variants written into the gene store (`indexing.gene_annotations`; by default
ClinVar's GRCh38 VCF subset bundled with BioRAG, a full ClinVar VCF with
``biorag data gene-store build --clinvar-vcf``). The layered dbsnp source asks it before
dbSNP (retrievers/layered.py).

Evidence has the dbSNP tool's shape (``source="dbsnp"``, ``id`` the rsID, its metadata a
`retrievers.dbsnp.record.VariantRecord`), so the same fields read it; it is cited as the ClinVar
record it comes from (``clinvar:<variation id>``), with ``clinvar_variations`` (every
variation id of the rsID) and ``conditions`` added. An rsID ClinVar does not hold gives no
evidence: dbSNP is asked next.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import QueryRejected
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, HeldGene, Reading
from biorag.knowledge.catalogues import record_url
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.dbsnp.record import VariantRecord
from retrievers.dbsnp.retriever import MANUAL, SNP_FIELDS, held_genes, read_snp_field, rs_ids
from retrievers.stores.gene_store import GeneStore, gene_store_path

if TYPE_CHECKING:
    from biorag.settings import Settings


def variant_evidence(rsid: str, rows: list[dict[str, Any]]) -> Evidence:
    """One rsID's ClinVar records as one piece of evidence."""
    first = rows[0]
    genes = list(dict.fromkeys(r["symbol"] for r in rows if r["symbol"]))
    gene_ids = list(dict.fromkeys(str(r["gene_id"]) for r in rows if r["gene_id"] is not None))
    alts = sorted({a for r in rows for a in str(r["alt"]).split(",") if a and a != "."})
    significance = list(dict.fromkeys(r["significance"] for r in rows if r["significance"]))
    conditions = list(dict.fromkeys(c for r in rows for c in (r["conditions"] or "").split("|") if c))
    variations = list(dict.fromkeys(r["variation_id"] for r in rows))
    assembly = first["assembly"] or "GRCh38"
    rec = VariantRecord(
        chromosome=first["chromosome"], position=first["position"], genes=genes, gene_ids=gene_ids,
        alleles=f"{first['ref']}>{'/'.join(alts)}" if alts else None, clinical_significance=significance,
        clinvar_variations=variations, conditions=conditions, assembly=assembly,
    )
    where = f"chr{rec.chromosome}:{rec.position}"
    lines = [f"{rsid}: {where} ({assembly}), ClinVar variation(s) {', '.join(variations)}",
             "Genes: " + (", ".join(genes) or "none annotated"),
             *([f"Alleles: {rec.alleles}"] if rec.alleles else []),
             "Clinical significance: " + ("; ".join(significance) or "not reported"),
             *(["Conditions: " + "; ".join(conditions[:8])] if conditions else [])]
    return Evidence(source="dbsnp", id=rsid, title=f"{rsid} ({where}; ClinVar)", text="\n".join(lines),
                    url=record_url("clinvar", variations[0]), metadata=rec.as_metadata(), cite_as=f"clinvar:{variations[0]}")


class LocalVariantRetriever(Retriever):
    """`dbsnp` source over the gene store's ClinVar variants (see the module docstring)."""

    name = "dbsnp"
    manual = MANUAL
    query_format = "one or more rsIDs, e.g. rs121913343"
    accepts = ("rsid",)
    answers = SNP_FIELDS

    def __init__(self, store: GeneStore):
        self.store = store

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalVariantRetriever:
        return cls(GeneStore(gene_store_path(settings)))

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_snp_field(field, evidence, about)

    @classmethod
    def genes(cls, evidence: list[Evidence]) -> list[HeldGene]:
        return held_genes(evidence)

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        ids = rs_ids(query)
        if not ids:
            # rejected, not failed: a layered dbsnp source then asks dbSNP itself, which also
            # searches free text (the API's /v1/search/dbsnp takes any text)
            raise QueryRejected("dbsnp (local ClinVar)", f"{query.strip()[:60]!r} holds no rsID; give one such as rs121913343")
        out = []
        for uid in ids[:k]:
            rows = self.store.variants(f"rs{uid}")
            if rows:
                out.append(variant_evidence(f"rs{uid}", rows))
        return out

    def close(self) -> None:
        self.store.close()
