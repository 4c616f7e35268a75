"""OMIM tool: disease or gene name -> OMIM entries with their loci and genes
(E-utilities esearch db=omim, then esummary).

Evidence: ``source="omim"``, ``id`` = MIM number, ``title`` = OMIM title,
``url`` = https://omim.org/entry/<mim>. ``metadata`` keys (always present):
``title`` (OMIM's title, e.g. "KERATIN 12, TYPE I; KRT12"), ``genes`` (list of gene symbols:
for gene entries the symbol after ';' in the title; empty for phenotype entries),
``locations`` (list of cytogenetic locations, e.g. ["17q21.2"]), ``entry_type``
("gene", "gene/phenotype", "phenotype", "phenotype, molecular basis unknown", "other",
from OMIM's prefix symbol), ``prefix`` (the raw symbol: *, +, #, %, ^ or "").

Ask with a disease name for its genes and loci ("Meesmann corneal dystrophy" returns the
phenotypes MECD1/MECD2 at 17q21.2/12q13.13 and the genes KRT12, KRT3).
"""

from __future__ import annotations

import re
from typing import Any

from biorag.errors import InputError, ToolError
from biorag.models import Evidence, SearchFilters
from biorag.prompts import MANUALS
from retrievers.eutils import EUtilsRetriever

MANUAL = MANUALS["omim"]  # the text lives with every other prompt

ENTRY_TYPES = {
    "*": "gene",
    "+": "gene/phenotype",
    "#": "phenotype",
    "%": "phenotype, molecular basis unknown",
    "^": "removed",
    "": "other",
}
_SYMBOL = re.compile(r"^[A-Z0-9][A-Z0-9@.\-]*[A-Z0-9@]$|^[A-Z0-9]$")


def omim_metadata(doc: dict[str, Any]) -> dict[str, Any]:
    oid = str(doc.get("oid") or "")
    prefix = oid[0] if oid and not oid[0].isdigit() else ""
    title = str(doc.get("title") or "")
    kind = ENTRY_TYPES.get(prefix, "other")
    genes: list[str] = []
    if kind in ("gene", "gene/phenotype") and ";" in title:
        sym = title.rsplit(";", 1)[1].strip()
        if _SYMBOL.match(sym):
            genes = [sym]
    locus = str(doc.get("locus") or "")
    locations = [loc.strip() for loc in re.split(r"[,;]\s*", locus) if loc.strip()]
    return {"title": title, "genes": genes, "locations": locations, "entry_type": kind,
            "prefix": prefix, "alt_titles": doc.get("alttitles") or ""}


def omim_evidence(mim: str, md: dict[str, Any]) -> Evidence:
    lines = [f"MIM {md['prefix']}{mim} ({md['entry_type']}): {md['title']}"]
    if md["genes"]:
        lines.append("Gene: " + ", ".join(md["genes"]))
    lines.append("Location: " + (", ".join(md["locations"]) or "not mapped"))
    return Evidence(
        source="omim",
        id=str(mim),
        title=md["title"],
        text="\n".join(lines),
        url=f"https://omim.org/entry/{mim}",
        metadata=md,
    )


class OmimRetriever(EUtilsRetriever):
    name = "omim"
    manual = MANUAL
    query_format = "a disease or phenotype name, e.g. Marfan syndrome"

    def search(self, query: str, k: int, filters: SearchFilters | None = None) -> list[Evidence]:
        q = " ".join(query.strip().strip("\"'").split())
        if not q:
            raise InputError("omim: empty query; give a disease name")
        if q.isdigit() and len(q) == 6:
            ids = [q]
        else:
            res = self.eutils.esearch("omim", q, retmax=self.retmax)
            if not res.ids:
                if res.phrases_not_found:
                    raise ToolError("omim", f"OMIM has no entry for {q!r} (phrase not found)")
                return []
            ids = res.ids
        summ = self.eutils.esummary("omim", ids)
        out = []
        for uid in ids:  # keep esearch relevance order
            doc = summ.docs.get(uid)
            if doc is None:
                continue
            md = omim_metadata(doc)
            if summ.truncated:
                md["partial_response"] = True
            out.append(omim_evidence(uid, md))
        return out[:k]
