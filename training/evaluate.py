"""Retrieval evaluation of an embedder: recall@k and MRR with exact (brute-force) search.

Two benchmarks, run before and after fine-tuning:
- held-out pairs: each held-out query (title, question, MeSH question) against all
  held-out abstracts; gold = its own record's abstract;
- PubMedQA: each question against the 1,000 PubMedQA contexts; gold = its own context
  (the same task `biorag eval retrieval --dataset pubmedqa` runs over a Milvus index).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from training.pairs import Pair
from training.records import QAItem

KS = (1, 4, 10)


def encode(model, texts: Sequence[str], batch_size: int = 64, progress: bool = False, desc: str = "") -> np.ndarray:
    if progress and desc:
        print(f"  encoding {len(texts)} {desc}", flush=True)
    emb = model.encode(
        list(texts), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True,
        show_progress_bar=progress,
    )
    return np.asarray(emb, dtype=np.float32)


def ranks_of_gold(queries: np.ndarray, docs: np.ndarray, gold: Sequence[int]) -> np.ndarray:
    """1-based rank of each query's gold document under cosine similarity."""
    scores = queries @ docs.T
    gold_scores = scores[np.arange(len(gold)), np.asarray(gold)]
    return (scores > gold_scores[:, None]).sum(axis=1) + 1


def summarise(ranks: np.ndarray, ks: Sequence[int] = KS) -> dict[str, float]:
    if len(ranks) == 0:
        return {"n": 0}
    out: dict[str, float] = {"n": int(len(ranks))}
    for k in ks:
        out[f"recall@{k}"] = round(float((ranks <= k).mean()), 4)
    out["mrr"] = round(float((1.0 / ranks).mean()), 4)
    return out


def eval_pairs(model, pairs: Sequence[Pair], limit: int | None = None, batch_size: int = 64,
               progress: bool = False) -> dict[str, dict[str, float]]:
    """Per pair kind and overall, over the first `limit` held-out records."""
    index: dict[str, int] = {}
    docs: list[str] = []
    for p in pairs:
        if p.pmid not in index:
            if limit is not None and len(index) >= limit:
                break
            index[p.pmid] = len(docs)
            docs.append(p.positive)
    used = [p for p in pairs if p.pmid in index]
    if not used:
        return {}
    d = encode(model, docs, batch_size, progress, "held-out abstracts")
    q = encode(model, [p.query for p in used], batch_size, progress, "held-out queries")
    ranks = ranks_of_gold(q, d, [index[p.pmid] for p in used])
    out = {"all": summarise(ranks)}
    for kind in sorted({p.kind for p in used}):
        sel = np.array([p.kind == kind for p in used])
        out[kind] = summarise(ranks[sel])
    return out


def eval_pubmedqa(model, items: Sequence[QAItem], limit: int | None = None, batch_size: int = 64,
                  progress: bool = False) -> dict[str, float]:
    items = list(items)[: limit or None]
    if not items:
        return {}
    d = encode(model, [it.context for it in items], batch_size, progress, "PubMedQA contexts")
    q = encode(model, [it.question for it in items], batch_size, progress, "PubMedQA questions")
    return summarise(ranks_of_gold(q, d, list(range(len(items)))))
