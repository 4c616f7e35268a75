"""`dbsnp` source, backend `local`: a variant's gene, location and clinical significance from
the ClinVar releases written into the gene store (`indexing.clinvar_load`: the 2026 GRCh38 VCF
of 34 hereditary-cancer genes bundled with BioRAG, or a full ClinVar VCF with
``biorag data gene-store build --clinvar-vcf``; ClinVar's January 2021 variant_summary and its
May 2016 table). The layered dbsnp source asks it before dbSNP (retrievers/layered.py).

A query is one or more rsIDs, or a gene's protein change ("BRAF V600E", "TP53 p.Arg175His").
The newest release holding the variant is read and named; what older releases said is kept
beside it. Evidence has the dbSNP tool's shape (``source="dbsnp"``, ``id`` the rsID, or
"GENE p.Xxx1Yyy" for a variant no release gives an rsID; its metadata a
`retrievers.dbsnp.record.VariantRecord`), so the same fields read it; it is cited as the
ClinVar record it comes from (``clinvar:<variation id>``), with ``clinvar_variations``,
``conditions``, ``review_status``, ``release`` and ``older_releases`` added. A variant no
release holds gives no evidence: dbSNP is asked next, and when it cannot be (no network),
`not_held` says which releases were searched.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError, QueryRejected
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, HeldGene, Reading
from biorag.knowledge.catalogues import record_url
from biorag.retrieval.retriever import Retriever
from biorag.understanding.protein_changes import protein_changes
from biorag.understanding.search_request import SearchRequest
from retrievers.dbsnp.record import VariantRecord
from retrievers.dbsnp.retriever import MANUAL, SNP_FIELDS, held_genes, read_snp_field, rs_ids
from retrievers.stores.gene_store import GeneStore, gene_store_path

if TYPE_CHECKING:
    from biorag.settings import Settings

#: "rs12ab", "rs7412x": an rsID with letters after its digits
_NOT_AN_RSID = re.compile(r"\brs\d+[A-Za-z_]\w*", re.I)


def _joined(rows: list[dict[str, Any]], key: str, sep: str = "|") -> list[str]:
    return list(dict.fromkeys(v for r in rows for v in str(r.get(key) or "").split(sep) if v))


def variant_evidence(rsid: str, rows: list[dict[str, Any]], releases: dict[str, str] | None = None,
                     protein: str | None = None) -> Evidence:
    """One variant's ClinVar records as one piece of evidence: the newest release that holds
    it is read (`rows` newest first, `retrievers.stores.clinvar_lookup`), the older ones are named
    with what they said. `rsid`: the rsID, or "GENE p.Xxx1Yyy" for a variant without one;
    `protein`: the protein change asked, when the variant was asked by it."""
    release = rows[0].get("release")
    older = [r for r in rows if r.get("release") != release]
    rows = [r for r in rows if r.get("release") == release]
    first = rows[0]
    placed = next((r for r in [*rows, *older] if r.get("position") is not None), first)
    genes = list(dict.fromkeys(r["symbol"] for r in rows if r["symbol"]))
    gene_ids = list(dict.fromkeys(str(r["gene_id"]) for r in rows if r["gene_id"] is not None))
    alts = sorted({a for r in rows for a in str(r["alt"] or "").split(",") if a and a != "."})
    significance = list(dict.fromkeys(r["significance"] for r in rows if r["significance"]))
    conditions = _joined(rows, "conditions")
    review = list(dict.fromkeys(r["review_status"] for r in rows if r.get("review_status")))
    variations = list(dict.fromkeys(r["variation_id"] for r in rows))
    said_before = {}
    for r in older:
        said_before.setdefault(r["release"], []).append(r["significance"] or "not reported")
    older_said = [f"{rel}: {'; '.join(dict.fromkeys(sig))}" for rel, sig in said_before.items()]
    assembly = "GRCh38" if placed.get("position") is not None else (first["assembly"] or "GRCh38")
    label = (releases or {}).get(str(release), "") if release else ""
    rec = VariantRecord(
        chromosome=placed["chromosome"], position=placed["position"], genes=genes, gene_ids=gene_ids,
        alleles=f"{first['ref']}>{'/'.join(alts)}" if alts and first["ref"] else None, clinical_significance=significance,
        clinvar_variations=variations, conditions=conditions, assembly=assembly, review_status=review,
        release=release, release_label=label or None, protein_change=protein,
        grch37_position=placed.get("grch37_position") or first.get("grch37_position"), older_releases=older_said,
    )
    if rec.position is not None:
        where = f"chr{rec.chromosome}:{rec.position}"
    elif rec.grch37_position is not None:
        where = f"chr{rec.chromosome}:{rec.grch37_position} (GRCh37)"
    else:
        where = "location unknown"
    # the c. name of the transcript that gives the asked protein change first
    asked_p = protein.split(" ")[-1] if protein else None
    hgvs = list(dict.fromkeys(r["hgvs_c"] for r in sorted([*rows, *older], key=lambda r: r.get("hgvs_p") != asked_p)
                              if r.get("hgvs_c")))
    lines = [f"{rsid}: {where}" + (f" ({assembly})" if rec.position is not None else "")
             + f", ClinVar variation(s) {', '.join(variations)}",
             "Genes: " + (", ".join(genes) or "none annotated"),
             *([f"Protein change: {protein}" + (f" ({hgvs[0]})" if hgvs else "")] if protein else []),
             *([f"Alleles: {rec.alleles}"] if rec.alleles else []),
             "Clinical significance: " + ("; ".join(significance) or "not reported"),
             *(["Review status: " + "; ".join(review)] if review else []),
             *(["Conditions: " + "; ".join(conditions[:8])] if conditions else []),
             *([f"ClinVar release read: {release}" + (f" ({label})" if label else "")] if release else []),
             *(["Older ClinVar releases: " + "; ".join(older_said)] if older_said else [])]
    title = f"{rsid} ({where}; ClinVar {release})" if release else f"{rsid} ({where}; ClinVar)"
    return Evidence(source="dbsnp", id=rsid, title=title, text="\n".join(lines),
                    url=record_url("clinvar", variations[0]), metadata=rec.as_metadata(), cite_as=f"clinvar:{variations[0]}")


def asked_protein_change(text: str, genes: Sequence[str] = ()) -> tuple[str, str] | None:
    """(gene symbol as written, HGVS p. name) of a protein change asked ("BRAF V600E",
    "p.Val600Glu in BRAF"): the gene is one the request names, else the word before the change."""
    found = protein_changes(text)
    if not found:
        return None
    start, _, hgvs_p = found[0]
    if genes:
        return genes[0], hgvs_p
    before = re.findall(r"[A-Za-z][A-Za-z0-9-]*", text[:start])
    return (before[-1], hgvs_p) if before else None


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
        if bad := _NOT_AN_RSID.search(query):
            raise InputError(f"{bad.group(0)!r} is not an rsID: write rs and its digits only, e.g. rs121913343")
        ids = rs_ids(query)
        releases = dict(self.store.variant_releases())
        if not ids:
            asked = asked_protein_change(query, [g.symbol for g in request.entities.genes])
            if asked is not None:
                return self._by_protein(*asked, releases)
            # rejected, not failed: a layered dbsnp source then asks dbSNP itself, which also
            # searches free text (the API's /v1/search/dbsnp takes any text)
            raise QueryRejected("dbsnp (local ClinVar)", f"{query.strip()[:60]!r} holds no rsID or protein change; "
                                "give one such as rs121913343 or BRAF V600E")
        out = []
        for uid in ids[:k]:
            rows = self.store.variants(f"rs{uid}")
            if rows:
                out.append(variant_evidence(f"rs{uid}", rows, releases))
        return out

    def _by_protein(self, gene: str, hgvs_p: str, releases: dict[str, str]) -> list[Evidence]:
        symbols = list(dict.fromkeys(g["symbol"] for g, _ in self.store.lookup(gene)[:3])) or [gene.upper()]
        for symbol in symbols:
            rows = self.store.protein_variants(symbol, hgvs_p)
            if rows:
                rsid = next((r["rsid"] for r in rows if r["rsid"]), None)
                return [variant_evidence(rsid or f"{symbol} {hgvs_p}", rows, releases, protein=f"{symbol} {hgvs_p}")]
        return []

    def not_held(self, rsids: Sequence[str]) -> str:
        """Why these rsIDs have no offline answer, with the releases searched."""
        releases = ", ".join(r for r, _ in self.store.variant_releases()) or "the store's ClinVar subset"
        return (f"{', '.join(rsids)} {'is' if len(rsids) == 1 else 'are'} not in the offline ClinVar data "
                f"(releases {releases}); with network access, `--set tool_io.mode=live` asks dbSNP")

    def close(self) -> None:
        self.store.close()
