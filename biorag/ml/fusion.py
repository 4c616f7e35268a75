"""Reciprocal rank fusion: several ranked lists of ids merged into one.

Each list votes `weight / (k + rank)` for every id in its first `depth` places (rank 1 is
the top). Ranks, not scores, are fused, so a cosine similarity and a BM25 score (which
live on unrelated scales) need no calibration. `k` damps the top places: a small k lets
one list's first hit win on its own; a large one rewards ids that several lists agree on.
The constants the PubMed retriever uses were chosen on BioASQ 7B-11B
(`benchmarks/hybrid_retrieval.py`); see the results README beside that run.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

#: the damping constant of the original RRF paper; the tuned value is a setting
DEFAULT_K = 60


@dataclass(frozen=True)
class FusedHit:
    id: Hashable
    score: float
    #: 1-based place of the id in each input list (None: not in that list's first `depth`)
    ranks: tuple[int | None, ...]


def rrf(rankings: Sequence[Sequence[Hashable]], k: float = DEFAULT_K, weights: Sequence[float] | None = None,
        depth: int | None = None, limit: int | None = None) -> list[FusedHit]:
    """Fuse ranked lists of ids. Ties keep the order of first appearance (list by list, top
    first), so the result is deterministic. An id repeated within one list counts once, at
    its best place. A list with weight 0 is ignored."""
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} ranked lists")
    scores: dict[Hashable, float] = {}
    ranks: dict[Hashable, list[int | None]] = {}
    for li, (ranking, w) in enumerate(zip(rankings, weights, strict=True)):
        if w < 0:
            raise ValueError(f"RRF weights must be >= 0, got {w}")
        seen: set[Hashable] = set()
        for rank, item in enumerate(ranking[:depth] if depth else ranking, 1):
            if item in seen:
                continue
            seen.add(item)
            slot = ranks.setdefault(item, [None] * len(rankings))
            slot[li] = rank
            scores[item] = scores.get(item, 0.0) + (w / (k + rank) if w else 0.0)
    order = sorted(scores, key=lambda i: -scores[i])  # sorted() is stable: first appearance breaks ties
    out = [FusedHit(i, scores[i], tuple(ranks[i])) for i in order if scores[i] > 0]
    return out[:limit] if limit else out
