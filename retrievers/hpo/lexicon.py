"""Phenotype names as a `Lexicon`: HPO term names and synonyms, layered over the gene store's
lexicon for every other kind."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from biorag.contracts.sources import LexiconHit
from biorag.knowledge.phenotype_names import name_words as words
from biorag.storage.sqlite_store import open_read_only
from retrievers.stores.hpo_store import NOT_PHENOTYPES, SOURCE, build_command_hint, terms_named


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
            self._con = open_read_only(self.path, SOURCE, build_command_hint(self.path), rows=True)
        return [LexiconHit(span.lower(), "phenotype", t["name"], t["name"], t["id"], "hpo")
                for key, t in terms_named(self._con, list(by_key)).items() for span in by_key[key]]

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
        if self.base is not None:
            self.base.close()
