"""NCBI Gene tool: symbol / alias / Ensembl ID / Gene ID -> gene records.

Backends: ``eutils`` (this module: live or replayed E-utilities, esearch then esummary) and
``local`` (retrievers/gene_store.py: an SQLite store built from NCBI gene_info, HGNC and
mim2gene). Both return the same evidence:

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
  "search"), ``status`` ("live" or NCBI's replacement note).

Hits are ordered: records of ``ncbi.prefer_taxid`` (human by default) first, then exact
symbol matches, then NCBI's relevance order. An alias shared by several genes returns all
of them: the ambiguity is surfaced, not resolved.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from biorag.models import Evidence, SearchFilters
from biorag.prompts import MANUALS
from retrievers.base import Retriever
from retrievers.eutils import EUtils
from retrievers.gene_fields import GeneFields

if TYPE_CHECKING:
    from biorag.settings import Settings

MANUAL = MANUALS["gene"]  # the text lives with every other prompt
QUERY_FORMAT = "one gene symbol, alias, Ensembl gene ID (ENSG...) or NCBI Gene ID"

_ENSEMBL = re.compile(r"^ENS[A-Z]*G\d{6,}(\.\d+)?$", re.I)


def clean_gene_query(query: str) -> str:
    """Strip quotes, brackets and a trailing 'gene' word; keep the identifier's case."""
    q = query.strip().strip("\"'`[]{}()").strip()
    q = re.sub(r"\s+gene$", "", q, flags=re.I)
    return q.strip()


def infer_gene_type(name: str, symbol: str = "") -> str | None:
    """Gene type when the official name states it plainly; None otherwise."""
    n = name.lower()
    if "pseudogene" in n:
        return "pseudo"
    if any(s in n for s in ("microrna", "non-protein coding", "antisense rna", "small nucleolar rna",
                            "long non-coding", "divergent transcript")):
        return "ncRNA"
    if n.startswith("trna") or "transfer rna" in n:
        return "tRNA"
    return None


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
    return "\n".join(lines)


def gene_evidence(gene_id: str, md: dict[str, Any], score: float | None = None) -> Evidence:
    """The one Evidence shape of both gene backends (see module docstring)."""
    defaults: dict[str, Any] = {
        "symbol": None, "name": None, "aliases": [], "organism": None, "tax_id": None,
        "chromosome": None, "map_location": None, "gene_type": None, "gene_type_source": None,
        "summary": None, "mim": [], "ensembl": [], "matched": None, "status": "live",
    }
    meta = {**defaults, **md}
    title = f"{meta['symbol']}: {meta['name']}" if meta["name"] else str(meta["symbol"])
    return Evidence(
        source="gene",
        id=str(gene_id),
        title=title,
        text=gene_text(meta),
        url=f"https://www.ncbi.nlm.nih.gov/gene/{gene_id}",
        score=score,
        metadata=meta,
    )


def _split_aliases(raw: str) -> list[str]:
    return [a.strip() for a in (raw or "").split(",") if a.strip()]


def metadata_from_esummary(doc: dict[str, Any]) -> dict[str, Any]:
    org = doc.get("organism") or {}
    name = doc.get("description") or doc.get("nomenclaturename") or ""
    symbol = doc.get("name") or doc.get("nomenclaturesymbol") or ""
    gtype = infer_gene_type(name, symbol)
    status = "live"
    if doc.get("currentid") and str(doc.get("currentid")) not in ("", "0"):
        status = f"replaced by Gene ID {doc['currentid']}"
    elif doc.get("status") not in ("", None, 0, "0"):
        status = f"status {doc.get('status')}"
    return {
        "symbol": symbol,
        "name": name,
        "aliases": _split_aliases(doc.get("otheraliases", "")),
        "organism": org.get("scientificname"),
        "tax_id": int(org["taxid"]) if str(org.get("taxid", "")).isdigit() else None,
        "chromosome": doc.get("chromosome") or None,
        "map_location": doc.get("maplocation") or None,
        "gene_type": gtype,
        "gene_type_source": "name" if gtype else None,
        "summary": doc.get("summary") or None,
        "mim": [str(m) for m in doc.get("mim", []) or []],
        "status": status,
    }


def rank_genes(hits: list[Evidence], query: str, prefer_taxid: int | None) -> list[Evidence]:
    """Preferred organism first, then exact symbol, then alias match; else keep input order."""
    q = query.lower()

    def key(ev: Evidence) -> tuple[int, int, int]:
        md = ev.metadata
        return (
            0 if prefer_taxid is not None and md.get("tax_id") == prefer_taxid else 1,
            0 if str(md.get("symbol", "")).lower() == q else 1,
            0 if q in (a.lower() for a in md.get("aliases", [])) else 1,
        )

    return sorted(hits, key=key)  # stable: NCBI relevance order within ties


class GeneRetriever(GeneFields, Retriever):
    name = "gene"
    manual = MANUAL
    query_format = QUERY_FORMAT

    def __init__(self, eutils: EUtils, retmax: int = 20, prefer_taxid: int | None = 9606,
                 local: Any = None):
        self.eutils = eutils
        self.retmax = retmax
        self.prefer_taxid = prefer_taxid
        self.local = local  # optional GeneStore to fill gene_type from gene_info

    @classmethod
    def from_settings(cls, settings: Settings) -> GeneRetriever:
        from retrievers.gene_store import GeneStore, gene_store_path

        path = gene_store_path(settings)
        local = GeneStore(path) if path.exists() else None
        return cls(EUtils.from_settings(settings, "gene"), settings.ncbi.retmax,
                   settings.ncbi.prefer_taxid, local)

    def search(self, query: str, k: int, filters: SearchFilters | None = None) -> list[Evidence]:
        q = clean_gene_query(query)
        if not q:
            from biorag.errors import InputError

            raise InputError("gene: empty query; give a gene symbol, alias, Ensembl ID or Gene ID")
        if q.isdigit():
            ids, matched = [q], "gene_id"
        else:
            res = self.eutils.esearch("gene", q, retmax=self.retmax)
            if not res.ids:
                if res.phrases_not_found:
                    from biorag.errors import ToolError

                    raise ToolError("gene", f"NCBI Gene has no record for {q!r} (phrase not found)")
                return []
            ids, matched = res.ids, ("ensembl" if _ENSEMBL.match(q) else "search")
        summ = self.eutils.esummary("gene", ids)
        hits = []
        for uid, doc in summ.docs.items():
            md = metadata_from_esummary(doc)
            md["matched"] = self._how(q, md, matched)
            if summ.truncated:
                md["partial_response"] = True
            self._enrich(uid, md)
            hits.append(gene_evidence(uid, md))
        return rank_genes(hits, q, self.prefer_taxid)[:k]

    @staticmethod
    def _how(q: str, md: dict[str, Any], default: str) -> str:
        if str(md.get("symbol", "")).lower() == q.lower():
            return "symbol"
        if q.lower() in (a.lower() for a in md.get("aliases", [])):
            return "alias"
        return default

    def _enrich(self, gene_id: str, md: dict[str, Any]) -> None:
        if self.local is None:
            return
        row = self.local.by_gene_id(gene_id)
        if row and row.get("gene_type"):
            md["gene_type"] = row["gene_type"]
            md["gene_type_source"] = "gene_info"
            md["ensembl"] = row.get("ensembl", [])

    def close(self) -> None:
        if self.local is not None:
            self.local.close()
