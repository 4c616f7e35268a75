"""A gene's other names from the local gene store, for query expansion
(`biorag.ml.query_expansion.expand(gene_names=...)`).

A word that is a human gene's official symbol ("KRAS") is that gene, even where other genes
list it as an alias; otherwise only a word that is the alias or previous symbol of exactly
one human gene is expanded ("p53" -> TP53 and its aliases). A word several genes share as an
alias is ambiguous in an abstract too, and adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from retrievers.stores.gene_store import GeneStore

HUMAN = 9606


def gene_names_from(store: GeneStore, limit: int = 10) -> Callable[[str], list[str]]:
    """A cached callable: word -> [official symbol, aliases...] (the word itself left out)."""

    @lru_cache(maxsize=4096)
    def names(word: str) -> tuple[str, ...]:
        hits = [(g, kind) for g, kind in store.lookup(word, limit=10)
                if g.get("tax_id") == HUMAN and kind in ("symbol", "alias", "previous")]
        official = {g["gene_id"]: g for g, kind in hits if kind == "symbol" and g["symbol"].casefold() == word.casefold()}
        genes = official or {g["gene_id"]: g for g, _ in hits}  # an official symbol outranks others' aliases
        if len(genes) != 1:
            return ()
        g = next(iter(genes.values()))
        out = [g["symbol"], *g.get("aliases", [])]
        return tuple(n for n in dict.fromkeys(out) if n.casefold() != word.casefold())[:limit]

    return lambda word: list(names(word))
