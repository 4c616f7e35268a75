"""Pathway names as a `Lexicon`: the term names of the gene-set libraries this source reads
(biorag.knowledge.pathway_names), layered over another lexicon (the gene store's, the HPO
store's) that answers every other kind, as the HPO source layers its phenotype names."""

from __future__ import annotations

from collections.abc import Sequence

from biorag.contracts.sources import EntityKind, Lexicon, LexiconHit
from biorag.knowledge.pathway_names import match


class PathwayLexicon:
    """The `biorag.contracts.sources.Lexicon` of pathway, process and gene-group names: a span's
    hits are the terms it names, the one that answers first (`pathway_names.match`); `how`
    says whether the span is the term's whole name ("whole") or its stem ("stem")."""

    def __init__(self, base: Lexicon | None = None):
        self.base = base

    def lookup_spans(self, spans: Sequence[str], kinds: Sequence[EntityKind | str]) -> list[LexiconHit]:
        hits = list(self.base.lookup_spans(spans, kinds)) if self.base is not None else []
        if "pathway" in kinds:
            hits += [LexiconHit(span.lower(), "pathway", t.name, t.name, t.term, "whole" if t.whole else "stem")
                     for span in dict.fromkeys(spans) for t in match(span)]
        return hits

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Close gene symbols come from the base lexicon (pathway names suggest none)."""
        suggest = getattr(self.base, "suggest", None)
        return suggest(name, limit) if suggest is not None else []

    def close(self) -> None:
        close = getattr(self.base, "close", None)
        if close is not None:
            close()
