"""BioASQ task B measures, as the challenge computes them (Tsatsaronis et al. 2015; the
BioASQ evaluation measures document of task B), over finished `biorag eval bioasq` rows.

- yes/no: accuracy, and macro-F1 = the mean of the F1 of "yes" and the F1 of "no" (an
  answer that is neither counts against its gold class's recall), beside the macro-F1 of
  always answering the majority class of the same questions;
- factoid: strict and lenient accuracy and MRR over the top 5 (`evaluation.scoring`);
- list: per question precision (stated items that match a gold item), recall (gold items
  matched) and F1, each averaged over the questions;
- documents: the PMIDs the answer cites, in order, against the question's gold documents:
  recall@10 (found / min(gold, 10), as `evaluation.retrieval.scores` caps it) and MAP@10
  (the sum of the precision at each gold hit in the first 10, over min(gold, 10)).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any


def _norm(s: str) -> str:
    return " ".join(str(s).casefold().split())


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def yesno_macro_f1(golds: Sequence[str], preds: Sequence[str | None]) -> float:
    """Mean F1 of the classes "yes" and "no"; a prediction that is neither is wrong for both."""
    out = []
    for c in ("yes", "no"):
        tp = sum(1 for g, p in zip(golds, preds, strict=True) if g == c and p == c)
        fp = sum(1 for g, p in zip(golds, preds, strict=True) if g != c and p == c)
        fn = sum(1 for g, p in zip(golds, preds, strict=True) if g == c and p != c)
        out.append(f1(tp / (tp + fp) if tp + fp else 0.0, tp / (tp + fn) if tp + fn else 0.0))
    return sum(out) / 2


def majority_baseline(golds: Sequence[str]) -> dict[str, Any]:
    """Always the most frequent gold class: its label, counts, accuracy and macro-F1."""
    counts = Counter(golds)
    label = counts.most_common(1)[0][0] if counts else "yes"
    return {"label": label, "counts": dict(counts), "accuracy": counts[label] / len(golds) if golds else 0.0,
            "macro_f1": yesno_macro_f1(golds, [label] * len(golds))}


def list_prf(predicted: Iterable[str], gold: Sequence[Any]) -> dict[str, float]:
    """`gold` is BioASQ's list answer: a list of items, each a list of synonyms (or a string)."""
    items = [{_norm(s) for s in (g if isinstance(g, list | tuple) else [g]) if str(s).strip()} for g in gold]
    items = [i for i in items if i]
    pred = list(dict.fromkeys(_norm(p) for p in predicted if str(p).strip()))
    matched_gold = {i for i, syns in enumerate(items) if syns & set(pred)}
    correct = sum(1 for p in pred if any(p in syns for syns in items))
    p = correct / len(pred) if pred else 0.0
    r = len(matched_gold) / len(items) if items else 0.0
    return {"precision": p, "recall": r, "f1": f1(p, r)}


def gold_pmids(question: dict) -> list[str]:
    """The PMIDs of a BioASQ question's gold `documents` (URLs ending in the PMID)."""
    out = []
    for d in question.get("documents") or []:
        tail = str(d).rstrip("/").rsplit("/", 1)[-1]
        if tail.isdigit():
            out.append(tail)
    return list(dict.fromkeys(out))


def document_scores(ranked: Sequence[str], gold: Sequence[str], k: int = 10) -> dict[str, float]:
    g = set(gold)
    if not g:
        return {"doc_recall@10": 0.0, "doc_map@10": 0.0}
    top = list(dict.fromkeys(ranked))[:k]
    hits, ap = 0, 0.0
    for i, pid in enumerate(top, 1):
        if pid in g:
            hits += 1
            ap += hits / i
    denom = min(len(g), k)
    return {"doc_recall@10": hits / denom, "doc_map@10": ap / denom}


def ranked_documents(row: dict[str, Any]) -> list[str]:
    """The PMIDs an answer offers, in order: those it cites, then the PubMed records its
    searches found, round by round (the first 10 are scored, as BioASQ scores documents)."""
    out = [str(c.get("id")) for c in row.get("citations") or [] if c.get("source") == "pubmed"]
    for e in row.get("trace") or []:
        for h in e.get("hits") or []:
            cat, _, pid = str(h).partition(":")
            if cat == "pubmed" and pid:
                out.append(pid)
    return list(dict.fromkeys(out))


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The BioASQ measures of one configuration's rows (see the module docstring)."""
    out: dict[str, Any] = {}
    yn = [r for r in rows if r.get("task") == "yesno"]
    if yn:
        golds = [str(r["gold"]).strip().lower() for r in yn]
        preds = [r.get("prediction") for r in yn]
        out["yesno"] = {"n": len(yn), "accuracy": sum(g == p for g, p in zip(golds, preds, strict=True)) / len(yn),
                        "macro_f1": yesno_macro_f1(golds, preds), "majority": majority_baseline(golds),
                        "answered_yes_or_no": sum(p in ("yes", "no") for p in preds)}
    fa = [r for r in rows if r.get("task") == "factoid"]
    if fa:
        out["factoid"] = {"n": len(fa), **{m: sum((r.get("metrics") or {}).get(m, 0.0) for r in fa) / len(fa)
                                           for m in ("strict", "lenient", "mrr")}}
    li = [r for r in rows if r.get("task") == "list"]
    if li:
        out["list"] = {"n": len(li), **{f"mean_{m}": sum((r.get("metrics") or {}).get(m, 0.0) for r in li) / len(li)
                                        for m in ("precision", "recall", "f1")}}
    with_docs = [r for r in rows if r.get("gold_documents")]
    if with_docs:
        ds = [document_scores(ranked_documents(r), r["gold_documents"]) for r in with_docs]
        out["documents"] = {"n": len(ds), **{m: sum(d[m] for d in ds) / len(ds) for m in ds[0]}}
    return out


def note_lines(name: str, s: dict[str, Any], corpus: str | None = None) -> list[str]:
    """report.md lines for one configuration."""
    lines = []
    if "yesno" in s:
        y, m = s["yesno"], s["yesno"]["majority"]
        lines.append(f"{name}: yes/no ({y['n']}) accuracy {y['accuracy']:.3f}, macro-F1 {y['macro_f1']:.3f} "
                     f"against always '{m['label']}' {m['macro_f1']:.3f} ({', '.join(f'{k} {v}' for k, v in m['counts'].items())})")
    if "factoid" in s:
        f = s["factoid"]
        lines.append(f"{name}: factoid ({f['n']}) strict {f['strict']:.3f}, lenient {f['lenient']:.3f}, MRR {f['mrr']:.3f}")
    if "list" in s:
        li = s["list"]
        lines.append(f"{name}: list ({li['n']}) mean precision {li['mean_precision']:.3f}, recall "
                     f"{li['mean_recall']:.3f}, F1 {li['mean_f1']:.3f}")
    if "documents" in s:
        d = s["documents"]
        lines.append(f"{name}: documents ({d['n']} questions) recall@10 {d['doc_recall@10']:.3f}, MAP@10 "
                     f"{d['doc_map@10']:.3f} (cited PMIDs first, then those the searches found)")
    return lines


SNIPPET_CORPUS_NOTE = ("searched a snippet corpus (the gold snippets of the questions, joined per PMID, plus "
                       "any records given): NOT the official BioASQ setting, where systems search all of "
                       "PubMed; these figures are not leaderboard-comparable")


def bioasq_notes(runs: list, out_dir) -> list[str]:
    """report.md notes for every configuration, and bioasq_measures.json beside report.md."""
    import json
    from pathlib import Path

    notes, measures = [], {}
    for run in runs:
        s = summarise(run.rows)
        measures[run.config.name] = s
        notes += note_lines(run.config.name, s)
    corpus = Path(out_dir) / "corpus_index" / "corpus.json"
    if any("corpus_index" in json.dumps(getattr(r.config, "identity", ""), default=str) for r in runs):
        measures["corpus"] = json.loads(corpus.read_text()) if corpus.exists() else {}
        notes.append(SNIPPET_CORPUS_NOTE)
    (Path(out_dir) / "bioasq_measures.json").write_text(json.dumps(measures, indent=2))
    return notes
