"""NCBI Gene tool: symbol / alias / Ensembl ID / Gene ID -> gene records.

Backends: ``eutils`` (`GeneRetriever`: live or replayed E-utilities, esearch then esummary)
and ``local`` (`LocalGeneRetriever`: the SQLite store of retrievers/stores/gene_store.py, built from
NCBI gene_info, HGNC and mim2gene). Both return the same evidence (retrievers/gene/evidence.py
lists its metadata keys).

Hits are ordered: records of ``ncbi.prefer_taxid`` (human by default) first, then exact
symbol matches, then NCBI's relevance order. An alias shared by several genes returns all
of them: the ambiguity is surfaced, not resolved. When NCBI finds no record of the
preferred organism, one more search restricted to it is tried, so an alias that is also
another organism's symbol still finds the human gene. When NCBI could match only part of
an identifier (a clone name such as RP11-17A4.3 searched as "RP11"), only records that
carry the whole identifier are kept: none means no record, not an unrelated gene.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import NoRecord, ToolError
from biorag.contracts.models import Evidence
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.common.eutils import EUtils
from retrievers.gene.evidence import (
    MANUAL,
    QUERY_FORMAT,
    gene_evidence,
    gene_text,
    require_gene_query,
)
from retrievers.gene.fields import GeneFields
from retrievers.gene.record import GeneRecord
from retrievers.stores.gene_store import GeneStore, gene_store_path

if TYPE_CHECKING:
    from biorag.settings import Settings


_ENSEMBL = re.compile(r"^ENS[A-Z]*G\d{6,}(\.\d+)?$", re.I)


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


def _split_aliases(raw: str) -> list[str]:
    return [a.strip() for a in (raw or "").split(",") if a.strip()]


def record_from_esummary(doc: dict[str, Any]) -> GeneRecord:
    org = doc.get("organism") or {}
    name = doc.get("description") or doc.get("nomenclaturename") or ""
    symbol = doc.get("name") or doc.get("nomenclaturesymbol") or ""
    gtype = infer_gene_type(name, symbol)
    status = "live"
    if doc.get("currentid") and str(doc.get("currentid")) not in ("", "0"):
        status = f"replaced by Gene ID {doc['currentid']}"
    elif doc.get("status") not in ("", None, 0, "0"):
        status = f"status {doc.get('status')}"
    return GeneRecord(
        symbol=symbol,
        name=name,
        aliases=_split_aliases(doc.get("otheraliases", "")),
        organism=org.get("scientificname"),
        tax_id=int(org["taxid"]) if str(org.get("taxid", "")).isdigit() else None,
        chromosome=doc.get("chromosome") or None,
        map_location=doc.get("maplocation") or None,
        gene_type=gtype,
        gene_type_source="name" if gtype else None,
        summary=doc.get("summary") or None,
        mim=[str(m) for m in doc.get("mim", []) or []],
        status=status,
        **({"designations": [d for d in doc["otherdesignations"].split("|") if d]}
           if doc.get("otherdesignations") else {}),
    )


def rank_genes(hits: list[Evidence], query: str, prefer_taxid: int | None) -> list[Evidence]:
    """Preferred organism first, then exact symbol, then alias match; else keep input order."""
    q = query.lower()

    def key(ev: Evidence) -> tuple[int, int, int]:
        rec = GeneRecord.of(ev) or GeneRecord()
        return (
            0 if prefer_taxid is not None and rec.tax_id == prefer_taxid else 1,
            0 if str(rec.symbol or "").lower() == q else 1,
            0 if q in (a.lower() for a in rec.aliases) else 1,
        )

    return sorted(hits, key=key)  # stable: NCBI relevance order within ties


def _record(ev: Evidence) -> GeneRecord:
    """The gene record of one of this source's own hits."""
    rec = GeneRecord.of(ev)
    if rec is None:
        raise TypeError(f"gene: evidence {ev.source}:{ev.id} is not a gene record")
    return rec


class GeneRetriever(GeneFields, Retriever):
    name = "gene"
    manual = MANUAL
    query_format = QUERY_FORMAT

    def __init__(self, eutils: EUtils, retmax: int = 20, prefer_taxid: int | None = 9606,
                 local: Any = None):
        self.eutils = eutils
        self.retmax = retmax
        self.prefer_taxid = prefer_taxid
        self.local: GeneStore | None = local  # fills gene_type from gene_info

    @classmethod
    def from_settings(cls, settings: Settings) -> GeneRetriever:
        path = gene_store_path(settings)
        local = GeneStore(path) if path.exists() else None
        return cls(EUtils.from_settings(settings, "gene"), settings.ncbi.retmax,
                   settings.ncbi.prefer_taxid, local)

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        q = require_gene_query(query)
        partial = False
        if q.isdigit():
            ids, matched = [q], "gene_id"
        else:
            res = self.eutils.esearch("gene", q, retmax=self.retmax)
            if not res.found("gene", f"NCBI Gene has no record for {q!r}"):
                return []
            ids, matched = res.ids, ("ensembl" if _ENSEMBL.match(q) else "search")
            # one identifier NCBI did not find whole (it searched a piece of it, "RP11")
            partial = " " not in q and q.lower() in (p.lower() for p in res.phrases_not_found)
        hits = self._summaries(ids, q, matched)
        if not q.isdigit() and self.prefer_taxid is not None and not any(
                _record(h).tax_id == self.prefer_taxid for h in hits):
            hits = self._preferred_organism(q, matched) + hits
        if partial:  # NCBI searched a part of the identifier: keep records carrying all of it
            hits = [h for h in hits if _record(h).matched in ("symbol", "alias")]
            if not hits:
                raise NoRecord("gene", f"NCBI Gene has no record for {q!r} (it could match only part of it: "
                                        f"{res.translation or 'a shorter term'})")
        return rank_genes(hits, q, self.prefer_taxid)[:k]

    def _summaries(self, ids: list[str], q: str, matched: str) -> list[Evidence]:
        summ = self.eutils.esummary("gene", ids)
        hits = []
        for uid, doc in summ.docs.items():
            rec = record_from_esummary(doc)
            changes: dict[str, Any] = {"matched": self._how(q, rec, matched), "backend": "eutils"}
            if summ.truncated:
                changes["partial_response"] = True
            hits.append(gene_evidence(uid, rec.with_fields(**changes, **self._enrich(uid))))
        return hits

    def _preferred_organism(self, q: str, matched: str) -> list[Evidence]:
        """Records of the preferred organism for `q` from a search restricted to it; [] when
        there are none or the search cannot be made (e.g. not in a replayed recording)."""
        try:
            res = self.eutils.esearch("gene", f"{q} AND txid{self.prefer_taxid}[Organism:exp]", retmax=self.retmax)
            if not res.ids or q.lower() in (p.lower() for p in res.phrases_not_found):
                return []
            return [h for h in self._summaries(res.ids, q, matched) if _record(h).tax_id == self.prefer_taxid]
        except ToolError:
            return []

    def fill_summaries(self, hits: list[Evidence], query: str) -> str | None:
        """Fill the RefSeq summaries local records lack from E-utilities (the same search, so
        a replayed recording answers it too). Returns None, or why nothing was filled."""
        missing = {h.id: h for h in hits if not _record(h).summary}
        if not missing:
            return None
        try:
            remote = self.search(SearchRequest.of(query, max(len(hits), 1)))
        except ToolError as e:
            return str(e)
        filled = 0
        for r in remote:
            h = missing.get(r.id)
            if h is not None and (summary := _record(r).summary):
                rec = _record(h).with_fields(summary=summary, summary_source="eutils")
                h.metadata, h.text = rec.as_metadata(), gene_text(rec)
                filled += 1
        return None if filled else "E-utilities returned no summary for these records"

    @staticmethod
    def _how(q: str, rec: GeneRecord, default: str) -> str:
        if str(rec.symbol or "").lower() == q.lower():
            return "symbol"
        if q.lower() in (a.lower() for a in rec.aliases):
            return "alias"
        return default

    def _enrich(self, gene_id: str) -> dict[str, Any]:
        """The gene type (and Ensembl ids) gene_info gives a record, when the store has it."""
        if self.local is None:
            return {}
        row = self.local.by_gene_id(gene_id)
        if row and row.get("gene_type"):
            return {"gene_type": row["gene_type"], "gene_type_source": "gene_info", "ensembl": row.get("ensembl", [])}
        return {}

    def close(self) -> None:
        if self.local is not None:
            self.local.close()


# ---- backend local: the gene store ---------------------------------------------------


def store_evidence(g: dict[str, Any], matched: str) -> Evidence:
    """A gene as the store gives it (`GeneStore.lookup`), in the shape of both backends."""
    rec = GeneRecord(
        symbol=g["symbol"],
        name=g["name"],
        aliases=g["aliases"],
        organism="Homo sapiens" if g["tax_id"] == 9606 else None,
        tax_id=g["tax_id"],
        chromosome=g["chromosome"],
        map_location=g["map_location"],
        gene_type=g["gene_type"],
        gene_type_source="gene_info" if g["gene_type"] else None,
        summary=None,
        mim=g["mim"],
        ensembl=g["ensembl"],
        matched=matched,
        hgnc_id=g.get("hgnc_id"),
        previous_symbols=g.get("previous", []),
        designations=[d for d in (g.get("other_designations") or "").split("|") if d],
        backend="local",
        **{key: g.get(key, []) for key in ("processes", "pathways", "diseases")},
    )
    return gene_evidence(str(g["gene_id"]), rec)


class LocalGeneRetriever(GeneFields, Retriever):
    """`gene` source, backend `local`: answers from the SQLite gene store."""

    name = "gene"
    manual = MANUAL
    query_format = QUERY_FORMAT + " (or a cytogenetic band such as 16q22.1)"

    def __init__(self, store: GeneStore, prefer_taxid: int | None = 9606):
        self.store = store
        self.prefer_taxid = prefer_taxid

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalGeneRetriever:
        return cls(GeneStore(gene_store_path(settings)), settings.ncbi.prefer_taxid)

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        require_gene_query(query)
        return [store_evidence({**g, **self.store.annotations(g["gene_id"])}, how)
                for g, how in self.store.lookup(query, self.prefer_taxid, limit=k)]

    def close(self) -> None:
        self.store.close()
