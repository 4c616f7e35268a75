"""Asking the dictionary (a `Lexicon`: the gene store's symbols, aliases, IDs and names,
disease and phenotype names) about spans of a question, and a gene entity from its hits.
A broken dictionary degrades to patterns: it never stops a question.
"""

from __future__ import annotations

from biorag.contracts.sources import EntityKind, Lexicon, LexiconHit
from biorag.understanding.question_model import Entity


def safe_lookup(lexicon: Lexicon, spans: list[str], kinds: tuple[EntityKind, ...]) -> list[LexiconHit]:
    """The dictionary's hits of `kinds` for `spans` (each asked once); none when it fails."""
    try:
        return lexicon.lookup_spans(list(dict.fromkeys(spans)), kinds)
    except Exception:  # a broken dictionary degrades to patterns, it never stops a question
        return []


def gene_entity(tok: str, hits: list[LexiconHit]) -> Entity:
    """A dictionary-linked gene. An official symbol or ID decides (no two genes share
    one); otherwise every gene that has the name as a previous symbol or an alias is a
    candidate, and several make it ambiguous: "NEP" was DDR1's symbol once and is MME's
    alias, and either may be meant."""
    strength = {"symbol": 0, "gene_id": 0, "ensembl": 0, "hgnc": 0}
    best = min(strength.get(h.how, 1) for h in hits)
    top = sorted((h for h in hits if strength.get(h.how, 1) == best), key=lambda h: h.how != "previous")
    canonical = tuple(dict.fromkeys(h.canonical for h in top))
    kind: EntityKind = "ensembl" if all(h.kind == "ensembl" for h in top) else "gene"
    # the dictionary's spelling is what sources are asked for (the question's when it is one)
    name = next((h.name for h in top if h.name == tok), top[0].name)
    ident = top[0].ident if len(canonical) == 1 else ""
    return Entity(kind, name, True, canonical, top[0].how, span=tok if tok != name else "", ident=ident)
