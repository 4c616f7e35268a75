"""Scoring MeSH taggers: set metrics, ranking precision and MeSH-filtered retrieval.

- micro/macro precision, recall and F1 of the predicted sets (at most k names each)
  against the gold descriptors (all of them, including those outside a head's label space:
  a label the head cannot predict counts as missed);
- precision@k of the ranking (hits among the first k predictions / k);
- filtered retrieval: PubMedQA questions searched over the PubMedQA contexts with exact
  cosine search, unfiltered and with the tagger's predictions as the MeSH filter (a
  context passes when it carries any predicted descriptor, as `array_contains_any` does in
  the index); recall@k of the gold context, and how often the filter keeps the gold context.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np


def set_metrics(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> dict[str, float]:
    tp: Counter = Counter()
    fp: Counter = Counter()
    fn: Counter = Counter()
    for g, p in zip(gold, pred, strict=True):
        gs, ps = set(g), set(p)
        for x in gs & ps:
            tp[x] += 1
        for x in ps - gs:
            fp[x] += 1
        for x in gs - ps:
            fn[x] += 1
    TP, FP, FN = sum(tp.values()), sum(fp.values()), sum(fn.values())
    micro_p = TP / (TP + FP) if TP + FP else 0.0
    micro_r = TP / (TP + FN) if TP + FN else 0.0
    micro_f1 = 2 * micro_p * micro_r / (micro_p + micro_r) if micro_p + micro_r else 0.0
    labels = set(tp) | set(fp) | set(fn)
    f1s = []
    for lab in labels:
        denom = 2 * tp[lab] + fp[lab] + fn[lab]
        f1s.append(2 * tp[lab] / denom if denom else 0.0)
    return {
        "n": len(gold),
        "micro_precision": round(micro_p, 4),
        "micro_recall": round(micro_r, 4),
        "micro_f1": round(micro_f1, 4),
        "macro_f1": round(float(np.mean(f1s)) if f1s else 0.0, 4),
        "empty_predictions": sum(1 for p in pred if not p),
    }


def precision_at_k(gold: Sequence[Sequence[str]], ranked: Sequence[Sequence[str]], k: int) -> float:
    if not gold:
        return 0.0
    return round(float(np.mean([len(set(r[:k]) & set(g)) / k for g, r in zip(gold, ranked, strict=True)])), 4)


def tagger_report(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]],
                  ranked: Sequence[Sequence[str]], sources: Sequence[str], ks: Sequence[int] = (1, 3)) -> dict:
    """Metrics overall and per example source (title / pubmedqa)."""

    def one(idx: list[int]) -> dict:
        g = [gold[i] for i in idx]
        out = set_metrics(g, [pred[i] for i in idx])
        for k in ks:
            out[f"precision@{k}"] = precision_at_k(g, [ranked[i] for i in idx], k)
        return out

    report = {"all": one(list(range(len(gold))))}
    for src in sorted(set(sources)):
        report[src] = one([i for i, s in enumerate(sources) if s == src])
    return report


def filtered_retrieval(
    questions: Sequence[str],
    gold_index: Sequence[int],
    contexts: Sequence[str],
    context_mesh: Sequence[set[str]],
    taggers: dict[str, Callable[[str], list[str]]],
    embedder,
    k: int = 4,
) -> dict[str, dict[str, float]]:
    """Recall@k of the gold context without a filter and with each tagger's filter."""
    from training.evaluate import encode

    d = encode(embedder, contexts)
    q = encode(embedder, questions)
    scores = q @ d.T
    out: dict[str, dict[str, float]] = {}
    top = np.argsort(-scores, axis=1)[:, :k]
    out["unfiltered"] = {"n": len(questions), f"recall@{k}": round(float(np.mean([g in t for g, t in zip(gold_index, top, strict=True)])), 4)}
    for name, tag in taggers.items():
        hits, kept, empty = [], [], 0
        for i, question in enumerate(questions):
            terms = set(tag(question))
            if not terms:
                empty += 1
                allowed = np.ones(len(contexts), dtype=bool)  # no filter: the retriever searches unfiltered
            else:
                allowed = np.array([bool(terms & m) for m in context_mesh])
            kept.append(bool(allowed[gold_index[i]]))
            s = np.where(allowed, scores[i], -np.inf)
            ranked = np.argsort(-s)[:k]
            hits.append(gold_index[i] in ranked[np.isfinite(s[ranked])])
        out[name] = {
            "n": len(questions),
            f"recall@{k}": round(float(np.mean(hits)), 4),
            "gold_kept_by_filter": round(float(np.mean(kept)), 4),
            "no_terms": empty,
        }
    return out
