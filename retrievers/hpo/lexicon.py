"""Phenotype names as a `Lexicon`: HPO term names and synonyms, layered over the gene store's
lexicon for every other kind."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from biorag.contracts.sources import LexiconHit
from biorag.knowledge.phenotype_names import name_words as words
from biorag.knowledge.phenotype_names import phrase_variants
from biorag.storage.sqlite_store import open_read_only
from retrievers.stores.hpo_store import IS_PHENOTYPE, NOT_PHENOTYPES, SOURCE, build_command_hint


class PhenotypeLexicon:
    """The `biorag.contracts.sources.Lexicon` of phenotype names: HPO term names and synonyms (as the
    store normalises them), layered over another lexicon (the gene store's) that answers
    every other kind. The store opens at the first look-up; without one, no phenotype hits."""

    def __init__(self, path: Path, base=None):
        self.path = Path(path)
        self.base = base
        self._con: sqlite3.Connection | None = None

    def lookup_spans(self, spans: Sequence[str], kinds: Sequence[str]) -> list[LexiconHit]:
        hits = list(self.base.lookup_spans(spans, kinds)) if self.base is not None else []
        if "phenotype" in kinds and self.path.exists():
            hits += self._phenotypes(spans)
        return hits

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """The base lexicon's close gene symbols (`StoreLexicon.suggest`), if it has any."""
        suggest = getattr(self.base, "suggest", None)
        return suggest(name, limit) if suggest is not None else []

    def _phenotypes(self, spans: Sequence[str]) -> list[LexiconHit]:
        by_key: dict[str, list[str]] = {}
        for span in spans:
            ws = words(span)
            if not ws or (len(ws) == 1 and (ws[0] in NOT_PHENOTYPES or len(ws[0]) < 5)):
                continue
            by_key.setdefault(" ".join(ws), []).append(span)
        if not by_key:
            return []
        if self._con is None:
            self._con = open_read_only(self.path, SOURCE, build_command_hint(self.path))
        out = []
        found = self._terms(list(by_key))
        for key, (tid, name) in found.items():
            out += [LexiconHit(span.lower(), "phenotype", name, name, tid, "hpo") for span in by_key[key]]
        # a phrase no name matches as written, written as HPO does ("raised CK": "increased serum CK")
        variants = {v: key for key in by_key if key not in found for v in phrase_variants(key)}
        written: set[str] = set()
        for v, (tid, name) in self._terms(list(variants)).items():
            if variants[v] not in written:
                written.add(variants[v])
                out += [LexiconHit(span.lower(), "phenotype", name, name, tid, "hpo") for span in by_key[variants[v]]]
        return out

    def _terms(self, keys: list[str]) -> dict[str, tuple[str, str]]:
        """Normalised phrase -> (term id, name) of the phenotype terms named so: per phrase its
        own name before a synonym, then the commoner term (keys in the order given)."""
        if not keys:
            return {}
        rows = self._con.execute(
            "SELECT n.name_norm, t.id, t.name FROM term_names n JOIN terms t ON t.term = n.term "
            f"WHERE n.name_norm IN ({','.join('?' * len(keys))}) AND {IS_PHENOTYPE} "
            "ORDER BY (n.kind = 'broad'), (n.kind != 'name'), t.n_genes DESC", keys).fetchall()
        found: dict[str, tuple[str, str]] = {}
        for key, tid, name in rows:
            found.setdefault(key, (tid, name))
        return {k: found[k] for k in keys if k in found}

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
        if self.base is not None:
            self.base.close()
