"""Over-representation analysis: hypergeometric p-values, Benjamini-Hochberg adjusted.

For a query of n genes (those the library knows) out of a universe of N genes, a term of
K genes sharing k with the query has p = P(X >= k), X ~ Hypergeometric(N, K, n): the
chance that n genes drawn at random from the universe hit the term k times or more. The
sum is done in log space (exact, no scipy needed). P-values are adjusted across all terms
of the library that were tested (every term sharing at least one gene with the query).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from biorag.knowledge.gene_sets import Library, QueryLibrary
from biorag.knowledge.phenotype_names import name_words


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def hypergeom_sf(k: int, N: int, K: int, n: int) -> float:
    """P(X >= k) for X ~ Hypergeometric(population N, K successes in it, n draws).

    The first term comes from log-gamma; each next one from the ratio of consecutive
    terms, P(i+1)/P(i) = (K-i)(n-i) / ((i+1)(N-K-n+i+1)), and the sum stops once the terms
    no longer change it (they only fall past the mode)."""
    if not (0 <= K <= N and 0 <= n <= N):
        raise ValueError(f"bad hypergeometric parameters N={N} K={K} n={n}")
    lo, hi = max(k, 0, n - (N - K)), min(K, n)
    if lo > hi:
        return 0.0
    log_first = _log_comb(K, lo) + _log_comb(N - K, n - lo) - _log_comb(N, n)
    term, total = 1.0, 1.0  # relative to the first term
    for i in range(lo, hi):
        term *= (K - i) * (n - i) / ((i + 1) * (N - K - n + i + 1))
        total += term
        if term < total * 1e-17:
            break
    return min(1.0, math.exp(log_first + math.log(total)))


def benjamini_hochberg(pvalues: list[float]) -> list[float]:
    """Adjusted p-values (false discovery rate), in the order given."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        adjusted[i] = min(running, 1.0)
    return adjusted


@dataclass
class Enriched:
    """One tested term: overlap k of the query's n genes with the term's K, in universe N."""

    library: str
    term: str
    name: str
    overlap: list[str]
    k: int
    K: int
    n: int
    N: int
    p: float
    p_adj: float = 1.0
    extra: dict = field(default_factory=dict)

    @property
    def strength(self) -> float:
        """-log10 of the adjusted p: how strongly the term is enriched (comparable within a library)."""
        return -math.log10(max(self.p_adj, 1e-300))

    @property
    def fold(self) -> float:
        return (self.k / self.n) / (self.K / self.N) if self.n and self.K else 0.0

    def as_dict(self) -> dict:
        return {"library": self.library, "term": self.term, "name": self.name, "overlap": self.overlap,
                "k": self.k, "term_size": self.K, "query_size": self.n, "universe": self.N,
                "p": self.p, "p_adj": self.p_adj, "fold": round(self.fold, 2), **self.extra}


def enrich(genes: set[str], library: Library | QueryLibrary, min_overlap: int = 2) -> list[Enriched]:
    """Terms of `library` over-represented in `genes`, best (lowest adjusted p) first.

    Only query genes in the library's universe count (n); every term sharing at least one
    of them is tested and enters the correction; terms with fewer than `min_overlap` genes
    in common are then left out of the result (one shared gene names nothing)."""
    query = set(genes) & library.universe
    n, N = len(query), len(library.universe)
    if n == 0:
        return []
    tested = []
    for term, hit in library.terms_of(query).items():
        K = library.size(term)
        tested.append(Enriched(library.name, term, library.names[term], sorted(hit), len(hit), K, n, N,
                               hypergeom_sf(len(hit), N, K, n)))
    for e, adj in zip(tested, benjamini_hochberg([e.p for e in tested]), strict=True):
        e.p_adj = adj
    kept = [e for e in tested if e.k >= min_overlap]
    kept.sort(key=lambda e: (e.p_adj, e.p, e.K, e.term))
    return kept


def broader_cover(best: Enriched, enriched: list[Enriched], broader: set[str], alpha: float,
                  min_strength: float) -> Enriched:
    """The term that names a set: `best` (the most significant), or a broader term of it
    (`broader`: its ancestors in the library's graph) that covers more of the query genes
    at comparable significance. Comparable: significant (adjusted p <= `alpha`) and at
    least `min_strength` times the best's strength, strength being -log10 of the adjusted
    p. Among those, the one covering most genes wins; a tie goes to the smaller term (the
    more specific), then the lower p. `min_strength` > 1 keeps `best` always; at 1 a broader
    term must be as significant after correction (Benjamini-Hochberg often ties them).

    The most significant term is often a narrow one that a few genes fill (3 of 4 mismatch
    repair genes in "meiotic mismatch repair", term size 3) while its parent holds all of
    them ("mismatch repair", 4/4, as significant)."""
    wider = [e for e in enriched if e.term in broader and e.k > best.k and e.p_adj <= alpha
             and e.strength >= min_strength * best.strength]
    if not wider:
        return best
    return min(wider, key=lambda e: (-e.k, e.K, e.p_adj, e.term))


def covering_term(first: Enriched, ranked: list[Enriched], asked: int, share: float, alpha: float,
                  min_strength: float = 0.5, depth: Callable[[str], int] = lambda term: 0) -> Enriched:
    """The term that answers "which term do these genes share" in one library: `first` (its
    first-ranked term), unless `first` holds fewer than `share` of the `asked` genes. Then
    the significant term (adjusted p <= `alpha`) of `ranked` that holds the most of them,
    among those at least `min_strength` times as strong as `first` (-log10 adjusted p);
    ties go to the lower p, then the smaller term, then the deeper one (`depth`: a term's
    number of ancestors). `share` 0 keeps `first` always.

    Off by default (`geneset.go_cover_share` 0): GeneAgent's GO sets are one GO term's genes
    each, and their gold term is the first-ranked one more often than any term holding more
    of the genes, even when this GO release gives it under half of them; on sets mixing two
    GO sets, the first-ranked term is the larger set's term more often too. Figures:
    benchmarks/results/2026-11-29/README.md."""
    if share <= 0 or first.k >= share * asked:
        return first
    wider = [e for e in ranked if e.k > first.k and e.p_adj <= alpha and e.strength >= min_strength * first.strength]
    if not wider:
        return first
    return min(wider, key=lambda e: (-e.k, float(f"{e.p:.9g}"), e.K, -depth(e.term), e.term))


def _lcs_len(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b):
            prev, row[j + 1] = row[j + 1], prev + 1 if x == y else max(row[j + 1], row[j])
    return row[-1]


def name_agreement(a: list[str], b: list[str]) -> float:
    """ROUGE-L F-measure of two names' words: their longest common word subsequence over
    their lengths (1 for equal names, 0 for names sharing no word)."""
    if not a or not b:
        return 0.0
    common = _lcs_len(a, b)
    return 2 * common / (len(a) + len(b)) if common else 0.0


def consensus_term(candidates: list[tuple[Enriched, float]], power: float = 2.0,
                   cross_weight: float = 2.0) -> Enriched:
    """The candidate whose name agrees most with the other candidates' names: a
    minimum-Bayes-risk choice under ROUGE-L. `candidates` are (term, weight) pairs, most
    significant first, weight being the term's significance relative to its library's best
    (1 for the best). A term's vote is weight**`power`, normalised so that each library
    votes with a total of 1 (GO BP's many near-duplicate terms do not outvote Reactome);
    a candidate counts its own vote in full, and agreement with a term of another library
    counts `cross_weight` times (two curations naming the same process). A tie keeps the
    earlier (more significant) term.

    The single most significant term is often a narrow or side process ("rhythmic
    process" for Wnt/beta-catenin genes); the name that the top terms share words with
    is more often the one a curator gives."""
    raw = [w ** power for _, w in candidates]
    totals: dict[str, float] = {}
    for (e, _), v in zip(candidates, raw, strict=True):
        totals[e.library] = totals.get(e.library, 0.0) + v
    votes = [v / totals[e.library] if totals[e.library] else 0.0 for (e, _), v in zip(candidates, raw, strict=True)]
    words = [name_words(e.name) for e, _ in candidates]
    best, best_score = candidates[0][0], -1.0
    for i, (e, _) in enumerate(candidates):
        score = 0.0
        for j, (other, _) in enumerate(candidates):
            if i == j:
                score += votes[j]
            else:
                agree = name_agreement(words[j], words[i])
                score += votes[j] * agree * (cross_weight if other.library != e.library else 1.0)
        if score > best_score:
            best, best_score = e, score
    return best
