"""The `gene` source's evidence and queries, shared by its two backends (retrievers/gene/retriever.py:
E-utilities and the local store) and the store's lookups (retrievers/stores/gene_store.py).

Both backends return the same evidence:

- ``source="gene"``, ``id`` = NCBI Gene ID, ``title`` = "SYMBOL: full name",
  ``url`` = https://www.ncbi.nlm.nih.gov/gene/<id>, ``text`` = compact rendering;
- ``metadata``: a `retrievers.gene.record.GeneRecord` (``GeneRecord.of(evidence)`` reads it
  back); its keys (always present, None/[] when unknown):
  ``symbol`` (official symbol), ``name`` (full name), ``aliases`` (list), ``organism``
  (scientific name), ``tax_id`` (int), ``chromosome`` (e.g. "16", "X"), ``map_location``
  (cytogenetic, e.g. "16q22.1"), ``gene_type`` (gene_info type_of_gene, e.g.
  "protein-coding", "ncRNA", "pseudo"; None when the source does not say),
  ``summary`` (RefSeq summary), ``gene_type_source`` ("gene_info" | "name" | None),
  ``mim`` (list of OMIM numbers), ``ensembl`` (list of Ensembl gene ids, local store only),
  ``matched`` (how the query matched: "symbol", "alias", "previous", "ensembl", "gene_id",
  "search"), ``status`` ("live" or NCBI's replacement note), ``backend`` ("local" or
  "eutils": which backend answered), ``summary_source`` ("eutils" when a local record's
  summary was filled in from E-utilities by the layered backend, else None);
  ``processes`` ([{id, name, evidence}]: GO BP terms, best first), ``pathways`` ([{id, name}]:
  Reactome) and ``diseases`` ([{id, name}]), local store only (`retrievers.stores.gene_annotations`).
"""

from __future__ import annotations

from biorag.contracts.errors import InputError
from biorag.contracts.models import Evidence
from biorag.knowledge.catalogues import record_url
from biorag.loop.prompts import MANUALS
from biorag.understanding.user_text import BLANKS
from retrievers.gene.record import GeneRecord
from retrievers.stores.gene_store import clean_gene_query

MANUAL = MANUALS["gene"]  # the text lives with every other prompt
QUERY_FORMAT = "one gene symbol, alias, Ensembl gene ID (ENSG...) or NCBI Gene ID"


#: JSON Schema pattern of a query `require_gene_query` keeps: a character that is neither
#: blank nor one of the quotes and brackets `clean_gene_query` strips
QUERY_PATTERN = f"[^{BLANKS}" + r"\"'`\[\]{}()]"


def require_gene_query(query: str) -> str:
    """`clean_gene_query`, refusing a query with nothing left."""
    q = clean_gene_query(query)
    if not q:
        raise InputError("gene: empty query; give a gene symbol, alias, Ensembl ID or Gene ID")
    return q


def gene_text(rec: GeneRecord) -> str:
    lines = [f"Official symbol: {rec.symbol or '?'}; name: {rec.name or '?'}"]
    if rec.aliases:
        lines.append("Aliases: " + ", ".join(rec.aliases))
    org = rec.organism or "?"
    lines.append(f"Organism: {org} (taxid {rec.tax_id})")
    loc = f"Chromosome: {rec.chromosome or '?'}"
    if rec.map_location:
        loc += f"; location: {rec.map_location}"
    lines.append(loc)
    if rec.gene_type:
        lines.append(f"Gene type: {rec.gene_type}")
    if rec.ensembl:
        lines.append("Ensembl: " + ", ".join(rec.ensembl))
    if rec.mim:
        lines.append("OMIM: " + ", ".join(rec.mim))
    if rec.status and rec.status != "live":
        lines.append(f"Status: {rec.status}")
    if rec.summary:
        lines.append(f"Summary: {rec.summary}")
    if rec.processes:
        lines.append("Processes (GO BP): " + "; ".join(f"{p.name} ({p.id})" for p in rec.processes))
    if rec.pathways:
        lines.append("Pathways (Reactome): " + "; ".join(f"{p.name} ({p.id})" for p in rec.pathways))
    if rec.diseases:
        lines.append("Diseases: " + "; ".join(f"{d.name} ({d.id})" for d in rec.diseases))
    return "\n".join(lines)


def gene_evidence(gene_id: str, record: GeneRecord, score: float | None = None) -> Evidence:
    """The one Evidence shape of both gene backends (see module docstring)."""
    title = f"{record.symbol}: {record.name}" if record.name else str(record.symbol)
    return Evidence(
        source="gene",
        id=str(gene_id),
        title=title,
        text=gene_text(record),
        url=record_url("gene", gene_id),
        score=score,
        metadata=record.as_metadata(),
    )
