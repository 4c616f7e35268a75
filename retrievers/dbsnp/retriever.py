"""dbSNP tool: rsID -> variant record (E-utilities esummary db=snp).

Evidence: ``source="dbsnp"``, ``id`` = the rsID ("rs1217074595"), ``title`` = "rsID (chrN:pos)",
``url`` = https://www.ncbi.nlm.nih.gov/snp/<rsID>. ``metadata``: a
`retrievers.dbsnp.record.VariantRecord`; its keys (always present):
``chromosome`` ("20"), ``position`` (int, GRCh38, 1-based, None if unknown),
``genes`` (list of gene symbols), ``gene_ids`` (list of NCBI Gene IDs), ``alleles``
(e.g. "G>A", from the SPDI), ``clinical_significance`` (list of strings, empty if none),
``function_class`` (list, e.g. ["non_coding_transcript_variant"]), ``spdi``, ``hgvs`` (list),
``maf`` (list of {study, freq}), ``assembly_accession`` ("NC_000020.11").

Queries: one or more rsIDs ("rs1217074595", "rs123 rs456"); a bare number is taken as an
rsID. Anything else is searched in dbSNP (esearch) first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from biorag.contracts.errors import InputError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, HeldGene, Reading
from biorag.knowledge.catalogues import record_url
from biorag.knowledge.clinvar_conditions import names_condition
from biorag.loop.prompts import MANUALS
from biorag.understanding.search_request import SearchRequest
from retrievers.common.eutils import EUtilsRetriever
from retrievers.dbsnp.record import VariantRecord

MANUAL = MANUALS["dbsnp"]  # the text lives with every other prompt

_RS = re.compile(r"\brs(\d+)\b", re.I)


def rs_ids(query: str) -> list[str]:
    ids = _RS.findall(query)
    if not ids and query.strip().isdigit():
        ids = [query.strip()]
    return list(dict.fromkeys(ids))


def snp_record(doc: dict[str, Any]) -> VariantRecord:
    chrom, pos = doc.get("chr") or None, None
    chrpos = str(doc.get("chrpos") or "")
    if ":" in chrpos:
        c, p = chrpos.split(":", 1)
        chrom = chrom or c
        pos = int(p) if p.isdigit() else None
    spdi = str(doc.get("spdi") or "").split(",")[0]
    alleles = None
    if spdi.count(":") == 3:
        _, _, ref, alt = spdi.split(":")
        alts = sorted({s.split(":")[3] for s in str(doc["spdi"]).split(",") if s.count(":") == 3})
        alleles = f"{ref}>{'/'.join(alts) or alt}"
    clin = [c.strip() for c in str(doc.get("clinical_significance") or "").split(",") if c.strip()]
    docsum = str(doc.get("docsum") or "")
    hgvs = []
    m = re.search(r"HGVS=([^|]*)", docsum)
    if m:
        hgvs = [h for h in m.group(1).split(",") if h]
    genes = doc.get("genes") or []
    return VariantRecord(
        chromosome=chrom,
        position=pos,
        genes=[g.get("name") for g in genes if g.get("name")],
        gene_ids=[str(g.get("gene_id")) for g in genes if g.get("gene_id")],
        alleles=alleles,
        clinical_significance=clin,
        function_class=[f for f in str(doc.get("fxn_class") or "").split(",") if f],
        spdi=spdi or None,
        hgvs=hgvs,
        maf=list(doc.get("global_mafs") or []),
        assembly_accession=doc.get("acc") or None,
        snp_class=doc.get("snp_class") or None,
    )


def snp_evidence(uid: str, rec: VariantRecord) -> Evidence:
    rsid = f"rs{uid}"
    lines = [f"{rsid}: {rec.where} (GRCh38)"]
    lines.append("Genes: " + (", ".join(rec.genes) if rec.genes else "none annotated"))
    if rec.alleles:
        lines.append(f"Alleles: {rec.alleles} ({rec.snp_class or 'variant'})")
    if rec.function_class:
        lines.append("Function class: " + ", ".join(rec.function_class))
    lines.append("Clinical significance: " + (", ".join(rec.clinical_significance) or "not reported"))
    if rec.maf:
        lines.append("Frequencies: " + "; ".join(f"{m.get('study')} {m.get('freq')}" for m in rec.maf[:3]))
    return Evidence(
        source="dbsnp",
        id=rsid,
        title=f"{rsid} ({rec.where})",
        text="\n".join(lines),
        url=record_url("dbsnp", rsid),
        metadata=rec.as_metadata(),
    )


SNP_GENES = AnswerField(
    "snp_genes", "gene a SNP is in or associated with",
    ("gene", "genes", "which gene", "what gene", "associated gene", "gene associated",
     "in which gene", "nearest gene", "mapped gene", "host gene",
     "belongs to", "belong to", "falls in", "lies in", "located in", "within"),
    # "associated with" alone asks for the gene ("What is rs7412 associated with?") only
    # where no other field is asked: "What disease is rs334 associated with?" asks its conditions
    ("rsid",), yields="gene", weak_cues=("associated with",))
SNP_CHROMOSOME = AnswerField(
    "chromosome", "chromosome of a SNP",
    ("chromosome", "which chromosome", "what chromosome", "chr"), ("rsid",),
    weak_cues=("located", "location", "locate", "where", "lie", "lies", "found on", "situated", "sits",
               "maps to", "map to"))
SNP_POSITION = AnswerField(
    "snp_position", "genomic position of a SNP (GRCh38)",
    ("position", "coordinate", "coordinates", "genomic position", "base pair", "bp",
     "exact location", "exact position", "grch38 position"), ("rsid",))
SNP_SIGNIFICANCE = AnswerField(
    "clinical_significance", "clinical significance of a variant (ClinVar's classification)",
    ("clinical significance", "significance", "pathogenic", "pathogenicity", "likely pathogenic", "benign",
     "classification", "classified", "clinvar", "disease causing", "deleterious", "vus",
     "uncertain significance", "interpretation"), ("rsid",))
#: "What disease is rs334 associated with?": the conditions ClinVar's submitters name for the
#: variant, not the diseases of its gene (a gene's other variants cause other diseases)
SNP_CONDITIONS = AnswerField(
    "snp_conditions", "conditions (diseases, traits) ClinVar records a variant is classified for",
    ("disease", "diseases", "condition", "conditions", "disorder", "disorders", "syndrome", "syndromes",
     "phenotype", "phenotypes", "trait", "traits"),
    ("rsid",), lists="disease")
SNP_FIELDS = (SNP_GENES, SNP_CHROMOSOME, SNP_POSITION, SNP_SIGNIFICANCE, SNP_CONDITIONS)
#: the conditions a conditions answer shows (the rest are counted)
_SHOWN_CONDITIONS = 8


def conditions_of(rec: VariantRecord) -> list[str]:
    """The conditions a variant's records name (ClinVar's placeholders and counts left out)."""
    return [c for c in dict.fromkeys(c.strip() for c in rec.conditions) if names_condition(c)]


def _first(names: list[str], shown: int) -> str:
    """The first `shown` names, then how many more there are."""
    return "; ".join(names[:shown]) + (f" (+{len(names) - shown} more)" if len(names) > shown else "")


def significance_text(ev: Evidence, rec: VariantRecord) -> str:
    """A variant's classification as answered: the classes, then the release, review status and
    conditions that qualify them."""
    said = [f"ClinVar {rec.release}" if rec.release else ("ClinVar" if rec.clinvar_variations else "dbSNP")]
    if rec.review_status:
        said.append("review status: " + "; ".join(rec.review_status))
    if conditions := conditions_of(rec):
        said.append("conditions: " + _first(conditions, 5))
    if rec.older_releases:
        said.append("older releases: " + "; ".join(rec.older_releases))
    name = f"{ev.id} ({rec.protein_change})" if rec.protein_change and rec.protein_change not in ev.id else ev.id
    return f"{name}: {'; '.join(rec.clinical_significance)} ({'; '.join(said)})"


def read_snp_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
    """A field of the dbSNP records for the rsIDs in `about` (all records when none is named)."""
    wanted = {a.lower() for a in about}
    variants = VariantRecord.all_of(evidence)
    records = [(ev, r) for ev, r in variants if not wanted or ev.id.lower() in wanted] or variants
    for ev, rec in records:
        if field.name == "snp_genes" and rec.genes:
            return Reading(list(rec.genes), [ev], f"genes of {ev.id}", links=list(rec.gene_ids or rec.genes))
        if field.name == "chromosome" and rec.chromosome:
            return Reading([f"chr{rec.chromosome}"], [ev], f"chromosome of {ev.id}")
        if field.name == "snp_position" and rec.chromosome and rec.position:
            return Reading([rec.where], [ev], f"GRCh38 position of {ev.id}")
        if field.name == "clinical_significance" and rec.clinical_significance:
            return Reading(list(rec.clinical_significance), [ev], f"clinical significance of {ev.id}",
                           text=significance_text(ev, rec))
        if field.name == "snp_conditions" and (conditions := conditions_of(rec)):
            classes = f"; classified {'; '.join(rec.clinical_significance)}" if rec.clinical_significance else ""
            release = f"ClinVar {rec.release}" if rec.release else "ClinVar"
            return Reading(conditions, [ev], f"conditions ClinVar records for {ev.id}",
                           text=f"{_first(conditions, _SHOWN_CONDITIONS)} ({ev.id}, {release}{classes})")
    return None


def held_genes(evidence: list[Evidence]) -> list[HeldGene]:
    """The genes the variant records name: each symbol with its Gene ID where the record
    pairs them one to one, else the symbols and the ids apart."""
    out = []
    for _, rec in VariantRecord.all_of(evidence):
        if len(rec.genes) == len(rec.gene_ids):
            out += [HeldGene(i, (g,)) for g, i in zip(rec.genes, rec.gene_ids, strict=True)]
        else:
            out += [HeldGene("", (g,)) for g in rec.genes] + [HeldGene(i) for i in rec.gene_ids]
    return out


class DbSnpRetriever(EUtilsRetriever):
    name = "dbsnp"
    manual = MANUAL
    query_format = "one or more rsIDs, e.g. rs7412"
    accepts = ("rsid",)
    answers = SNP_FIELDS

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_snp_field(field, evidence, about)

    @classmethod
    def genes(cls, evidence: list[Evidence]) -> list[HeldGene]:
        return held_genes(evidence)

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        if not query.strip():
            raise InputError("dbsnp: empty query; give an rsID such as rs1217074595")
        ids = rs_ids(query)
        if not ids:
            res = self.eutils.esearch("snp", query.strip(), retmax=self.retmax)
            ids = res.found("dbsnp", f"dbSNP has no record for {query.strip()!r}")
            if not ids:
                return []
        summ = self.eutils.esummary("snp", ids[:k])
        out = []
        for uid, doc in summ.docs.items():
            rec = snp_record(doc)
            out.append(snp_evidence(uid, rec.with_fields(partial_response=True) if summ.truncated else rec))
        return out[:k]
