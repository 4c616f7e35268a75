"""Entity-linking dictionaries over the local gene store (the `biorag.sources.Lexicon`
protocol the core's question understanding reads).

Gene names: every name the store holds for a gene of the preferred organism (human by
default): official symbols, aliases, previous symbols, Ensembl and HGNC IDs, locus tags
and the clone-based names (RP11-..., CTD-..., AC...) that gene_info and HGNC list. One
indexed ``IN`` query per question. Disease and phenotype names: the store's disease
dictionary (ClinVar, HPO, MeSH names and synonyms, matched on `biorag.names.disease_key`,
as `GeneStore.find_diseases` matches them) in one more query, when the store has one;
otherwise none (patterns take over).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from biorag.names import disease_key
from biorag.sources import EntityKind, LexiconHit
from biorag.sqlite_store import open_read_only
from retrievers.gene_store import build_command_hint, catalogue_forms

#: the store's kinds of name -> what linking calls them
_HOW = {"symbol": "symbol", "previous": "previous", "alias": "alias", "ensembl": "ensembl",
        "hgnc": "hgnc", "locus_tag": "alias", "gene_id": "gene_id"}


class StoreLexicon:
    def __init__(self, path: Path, prefer_taxid: int | None = 9606):
        self.path = Path(path)
        self._con = open_read_only(self.path, "gene", build_command_hint(self.path))
        self._lock = threading.Lock()  # one connection, shared by the server's threads
        self.prefer_taxid = prefer_taxid
        tables = {r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        self.has_diseases = {"disease_names", "diseases"} <= tables

    def lookup_spans(self, spans: Sequence[str], kinds: Sequence[EntityKind]) -> list[LexiconHit]:
        hits: list[LexiconHit] = []
        if "gene" in kinds or "ensembl" in kinds:
            hits += self._genes(spans)
        if ("disease" in kinds or "phenotype" in kinds) and self.has_diseases:
            hits += self._diseases(spans)
        return hits

    def _diseases(self, spans: Sequence[str]) -> list[LexiconHit]:
        by_key: dict[str, list[str]] = {}
        for span in spans:
            if key := disease_key(span):
                by_key.setdefault(key, []).append(span)
        if not by_key:
            return []
        with self._lock:
            rows = self._con.execute(
                "SELECT n.name_key, n.disease_id, n.source, d.name FROM disease_names n "
                "JOIN diseases d ON d.disease_id = n.disease_id "
                f"WHERE n.name_key IN ({','.join('?' * len(by_key))})", list(by_key)).fetchall()
        hits = [LexiconHit(span.lower(), "disease", name, name, str(did), str(source))
                for key, did, source, name in rows for span in by_key[key]]
        known = {key for key, *_ in rows}
        return hits + self._disease_heads([k for k in by_key if k not in known and " " in k], by_key)

    def _disease_heads(self, keys: list[str], by_key: dict[str, list[str]]) -> list[LexiconHit]:
        """Catalogue names whose head is the span: "Bile acid malabsorption, primary, 1" is
        a form of "bile acid malabsorption" (the part before the catalogue's first comma).
        Only for spans of two words or more that no name matches whole."""
        out: list[LexiconHit] = []
        with self._lock:
            for key in keys:
                out += [LexiconHit(span.lower(), "disease", name, name, str(did), f"{source} head")
                        for matched, did, source, name, form in catalogue_forms(self._con, key)
                        if form == "head" for span in by_key[key]]
        return out


    def _genes(self, spans: Sequence[str]) -> list[LexiconHit]:
        keys = list(dict.fromkeys(s.lower().split(".")[0] if s.lower().startswith("ens") else s.lower()
                                  for s in spans if s))
        if not keys:
            return []
        taxon = "" if self.prefer_taxid is None else " AND g.tax_id = ?"
        sql = (f"SELECT n.name_lc, n.name, n.kind, g.gene_id, g.symbol FROM names n "
               f"JOIN genes g ON g.gene_id = n.gene_id WHERE n.name_lc IN ({','.join('?' * len(keys))}){taxon}")
        params = [*keys, *([] if self.prefer_taxid is None else [self.prefer_taxid])]
        out = []
        with self._lock:
            rows = self._con.execute(sql, params).fetchall()
        for name_lc, name, kind, gene_id, symbol in rows:
            how = _HOW.get(kind, "alias")
            if how == "symbol" and name != symbol:
                how = "previous"  # gene_info's older symbol for a gene HGNC has since renamed
            out.append(LexiconHit(name_lc, "ensembl" if kind == "ensembl" else "gene", name, symbol,
                                  str(gene_id), how))
        return out

    def close(self) -> None:
        self._con.close()
