"""Where to put `generation.min_similarity`: how similar the best evidence sentence is to
the question when the evidence is on topic, and when it is not.

    .venv/bin/python -m benchmarks.topicality_threshold \
        --pubmedqa ../shared/data/pubmedqa/ori_pqal.json [--mmlu ../shared/data/mmlu_med/dev] \
        [--n 400] [--json]

On topic: each PubMedQA question against the sentences of its own abstract (CONTEXTS; the
title, from which PubMedQA's questions were written, is not used).
Off topic: the same question against the top-4 abstracts the agent's PubMed retriever
returns from the local index (build it first from the bundled sample:
`biorag index build --input indexing/resources/pubmed_sample`, ~1,000 Alzheimer's-disease
papers). Questions whose own MeSH terms touch that field (Alzheimer, dementia, amyloid,
tau, neurodegeneration) are counted apart as "related": their retrieval may be on topic.
With --mmlu, MMLU stems (medical subjects) against the index are a second off-topic set.

Prints the distribution of the best-sentence similarity in each set and, per threshold,
the share of each set that would pass as on topic.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import statistics
import sys
from pathlib import Path

from biorag.contracts.models import Evidence
from biorag.loop.extractive import SentenceRanker
from biorag.ml.embedder import Embedder
from biorag.settings import load_settings
from biorag.understanding.search_request import SearchRequest
from retrievers.pubmed.retriever import PubMedRetriever

RELATED = re.compile(r"alzheimer|dementia|amyloid|\btau\b|neurodegenerat|cognitive dysfunction", re.I)
THRESHOLDS = [round(0.20 + 0.05 * i, 2) for i in range(11)]


def best(ranker: SentenceRanker, question: str, evidence: list[Evidence]) -> float:
    ranked = ranker.rank(question, evidence)
    return ranked[0].similarity if ranked else 0.0


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def mmlu_stems(folder: Path, n: int) -> list[str]:
    stems: list[str] = []
    for f in sorted(folder.glob("*.csv")):
        with f.open(newline="", encoding="utf-8") as fh:
            stems += [row[0] for row in csv.reader(fh) if row]
    return stems[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pubmedqa", type=Path, required=True, help="PubMedQA ori_pqal.json")
    ap.add_argument("--mmlu", type=Path, help="folder of MMLU <subject>_<split>.csv files")
    ap.add_argument("--n", type=int, default=400, help="PubMedQA questions (random, seed 0)")
    ap.add_argument("--k", type=int, default=4, help="abstracts retrieved per question (the agent's pubmed top_k)")
    ap.add_argument("--threads", type=int, help="torch CPU threads (1 is fastest on a crowded machine)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    settings = load_settings()
    embedder = Embedder(settings.generation.embedder, device=settings.index.device)
    ranker = SentenceRanker(embedder)
    retriever = PubMedRetriever.from_settings(settings)
    items = json.loads(args.pubmedqa.read_text())
    pmids = sorted(items)
    random.Random(0).shuffle(pmids)
    groups: dict[str, list[float]] = {"on_topic": [], "off_topic": [], "related": [], "mmlu_off_topic": []}
    for done, pmid in enumerate(pmids[: args.n], 1):
        if done % 50 == 0:
            print(f"  {done}/{args.n} PubMedQA questions", file=sys.stderr, flush=True)
        item = items[pmid]
        q = item["QUESTION"]
        own = Evidence(source="pubmed", id=pmid, text="\n".join(item["CONTEXTS"]))
        groups["on_topic"].append(best(ranker, q, [own]))
        hits = [h for h in retriever.search(SearchRequest.of(q, args.k)) if h.id != pmid]
        related = any(RELATED.search(m) for m in item.get("MESHES", []))
        groups["related" if related else "off_topic"].append(best(ranker, q, hits))
    if args.mmlu:
        for stem in mmlu_stems(args.mmlu, args.n):
            groups["mmlu_off_topic"].append(best(ranker, stem, retriever.search(SearchRequest.of(stem, args.k))))
    groups = {k: v for k, v in groups.items() if v}

    summary = {
        name: {"n": len(v), "mean": round(statistics.mean(v), 3), "p05": pct(v, 0.05), "p25": pct(v, 0.25),
               "median": pct(v, 0.5), "p75": pct(v, 0.75), "p95": pct(v, 0.95)}
        for name, v in groups.items()
    }
    passing = {t: {name: round(sum(x >= t for x in v) / len(v), 3) for name, v in groups.items()} for t in THRESHOLDS}
    if args.json:
        print(json.dumps({"summary": summary, "pass_rate": passing}, indent=2))
        return
    print("best-sentence cosine similarity to the question")
    print(f"{'set':<16}{'n':>5}{'mean':>7}{'p05':>7}{'p25':>7}{'p50':>7}{'p75':>7}{'p95':>7}")
    for name, s in summary.items():
        print(f"{name:<16}{s['n']:>5}{s['mean']:>7.3f}{s['p05']:>7.3f}{s['p25']:>7.3f}{s['median']:>7.3f}"
              f"{s['p75']:>7.3f}{s['p95']:>7.3f}")
    print("\nshare passing as on topic (similarity >= threshold)")
    print(f"{'threshold':<10}" + "".join(f"{name:>16}" for name in groups))
    for t, row in passing.items():
        print(f"{t:<10}" + "".join(f"{row[name]:>16.3f}" for name in groups))


if __name__ == "__main__":
    main()
