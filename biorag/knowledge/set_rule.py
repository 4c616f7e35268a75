"""When an enriched term answers "what do these genes share".

A term that holds 2 of 8 asked genes at an adjusted p of 0.003 is over-represented, but it
does not say what the *set* shares: six genes are left unexplained. A term answers the set
when it

- holds at least `min_genes` of the asked genes,
- holds at least `min_share` of the asked genes that are known human genes (not only of
  those its library knows: a library that knows 2 of 3 genes cannot explain the third),
  and at least `min_share_at_min_genes` of them when it holds no more than `min_genes`
  (two genes meeting in a small term happens by chance: 2 of 3 answers, 2 of 8 does not),
- and is significantly enriched (adjusted p <= `alpha`).

Otherwise the answer is insufficient, and the best term is given as a lead only. The
thresholds were chosen on GeneAgent's GO and NeST sets against random sets of the same
sizes (`benchmarks/geneset_sufficiency.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from biorag.knowledge.enrichment import Enriched


@dataclass(frozen=True)
class SetRule:
    """The test a term passes to name a gene set (see the module docstring)."""

    min_genes: int
    min_share: float
    alpha: float
    min_share_at_min_genes: float = 0.0

    def _share(self, k: int) -> float:
        return max(self.min_share, self.min_share_at_min_genes) if k <= self.min_genes else self.min_share

    def explains(self, e: Enriched, asked: int) -> bool:
        """Whether `e` answers a set of `asked` known genes."""
        return e.k >= self.min_genes and e.k >= self._share(e.k) * asked and e.p_adj <= self.alpha

    def why_not(self, e: Enriched, asked: int) -> str:
        """Why `e` does not answer the set ('' when it does)."""
        if e.p_adj > self.alpha:
            return f"it is not significantly enriched (adjusted p {e.p_adj:.2g} > {self.alpha:g})"
        if e.k < self.min_genes:
            return f"it holds only {e.k} of the {asked} genes (at least {self.min_genes} needed)"
        if e.k < self._share(e.k) * asked:
            return (f"it holds only {e.k} of the {asked} genes (at least {self._share(e.k):.0%} of them "
                    f"needed to say what the set shares)")
        return ""
