"""The `gene` source's evidence and queries, shared by its two backends (retrievers/gene.py:
E-utilities and the local store) and the store's lookups (retrievers/gene_store.py).

Both backends return the same evidence:

- ``source="gene"``, ``id`` = NCBI Gene ID, ``title`` = "SYMBOL: full name",
  ``url`` = https://www.ncbi.nlm.nih.gov/gene/<id>, ``text`` = compact rendering;
- ``metadata`` keys (always present, None/[] when unknown):
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
  Reactome) and ``diseases`` ([{id, name}]), local store only (`retrievers.gene_annotations`).
"""

from __future__ import annotations

import re
from typing import Any

from biorag.catalogues import record_url
from biorag.errors import InputError
from biorag.models import Evidence
from biorag.prompts import MANUALS

MANUAL = MANUALS["gene"]  # the text lives with every other prompt
QUERY_FORMAT = "one gene symbol, alias, Ensembl gene ID (ENSG...) or NCBI Gene ID"


def clean_gene_query(query: str) -> str:
    """Strip quotes, brackets and a trailing 'gene' word; keep the identifier's case."""
    q = query.strip().strip("\"'`[]{}()").strip()
    q = re.sub(r"\s+gene$", "", q, flags=re.I)
    return q.strip()


def require_gene_query(query: str) -> str:
    """`clean_gene_query`, refusing a query with nothing left."""
    q = clean_gene_query(query)
    if not q:
        raise InputError("gene: empty query; give a gene symbol, alias, Ensembl ID or Gene ID")
    return q


def gene_text(md: dict[str, Any]) -> str:
    lines = [f"Official symbol: {md.get('symbol') or '?'}; name: {md.get('name') or '?'}"]
    if md.get("aliases"):
        lines.append("Aliases: " + ", ".join(md["aliases"]))
    org = md.get("organism") or "?"
    lines.append(f"Organism: {org} (taxid {md.get('tax_id')})")
    loc = f"Chromosome: {md.get('chromosome') or '?'}"
    if md.get("map_location"):
        loc += f"; location: {md['map_location']}"
    lines.append(loc)
    if md.get("gene_type"):
        lines.append(f"Gene type: {md['gene_type']}")
    if md.get("ensembl"):
        lines.append("Ensembl: " + ", ".join(md["ensembl"]))
    if md.get("mim"):
        lines.append("OMIM: " + ", ".join(md["mim"]))
    if md.get("status") and md["status"] != "live":
        lines.append(f"Status: {md['status']}")
    if md.get("summary"):
        lines.append(f"Summary: {md['summary']}")
    if md.get("processes"):
        lines.append("Processes (GO BP): " + "; ".join(f"{p['name']} ({p['id']})" for p in md["processes"]))
    if md.get("pathways"):
        lines.append("Pathways (Reactome): " + "; ".join(f"{p['name']} ({p['id']})" for p in md["pathways"]))
    if md.get("diseases"):
        lines.append("Diseases: " + "; ".join(f"{d['name']} ({d['id']})" for d in md["diseases"]))
    return "\n".join(lines)


def gene_evidence(gene_id: str, md: dict[str, Any], score: float | None = None) -> Evidence:
    """The one Evidence shape of both gene backends (see module docstring)."""
    defaults: dict[str, Any] = {
        "symbol": None, "name": None, "aliases": [], "organism": None, "tax_id": None,
        "chromosome": None, "map_location": None, "gene_type": None, "gene_type_source": None,
        "summary": None, "mim": [], "ensembl": [], "matched": None, "status": "live",
        "backend": None, "summary_source": None, "processes": [], "pathways": [], "diseases": [],
    }
    meta = {**defaults, **md}
    title = f"{meta['symbol']}: {meta['name']}" if meta["name"] else str(meta["symbol"])
    return Evidence(
        source="gene",
        id=str(gene_id),
        title=title,
        text=gene_text(meta),
        url=record_url("gene", gene_id),
        score=score,
        metadata=meta,
    )
