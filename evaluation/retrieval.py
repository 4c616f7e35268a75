"""Retrieval benchmark behind `biorag eval retrieval` (a benchmark, not a test; part of the
package so that the installed command runs it).

Builds an index over the dataset's gold contexts plus real PubMed records as distractors
(paths given on the command line, e.g. ../shared/data), then asks every question and
scores where the gold PMID(s) land:

- dense:        the PubMed retriever, no filter;
- mesh_gold:    filter = up to 3 MeSH descriptors of the gold record (most specific first,
                check tags such as Humans excluded) — an oracle upper bound for the filter;
- mesh_tagger:  filter = descriptors the configured tagger (`settings.mesh.tagger`: the
                vocabulary tagger or a trained classifier) predicts from the question
                (`mesh.mode=filter`);
- mesh_boost:   the same descriptors, as a boost (`mesh.mode=boost`: unfiltered
                candidates re-ranked by MeSH agreement);
- bm25:         rank-bm25 over the same cleaned corpus (title + abstract).

Filter modes use the production retriever, so its widening (`index.mesh_widen`) and its
exact path for filters matching few rows (`index.exact_filter_rows`) apply. `dense` is
`mesh.mode=off`.
Reports recall@1/4/10 and MRR@10, query latency p50/p95 per mode, build throughput split
into parse/clean/embed/load with the raw embedding rate for comparison, and index size;
writes results.csv, summary.json and retrieval.png into the output directory.

PubMedQA contexts carry no title (the question is the article title, so it is NOT used as
one: that would leak the answer). BioASQ golden files carry snippets, not abstracts: a gold
document's text is its snippets joined, questions without any snippet are skipped, and the
too-short filter is off for that build (a snippet is often one sentence).
"""

from __future__ import annotations

import csv
import gzip
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

MODES = ("dense", "mesh_gold", "mesh_tagger", "mesh_boost", "bm25")


@dataclass
class Question:
    qid: str
    text: str
    gold: list[str]
    gold_mesh: list[str] = field(default_factory=list)  # descriptor UIs


def _open(path: Path):
    return gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)


def load_pubmedqa(path: Path) -> tuple[list[Question], list[dict]]:
    from biorag.knowledge.mesh import vocabulary
    from indexing.pubmedqa_items import abstract_text

    vocab = vocabulary()
    data = json.loads(_open(path).read())
    qs, docs = [], []
    for pmid, item in data.items():
        text = abstract_text(item)
        mesh = []
        for name in item.get("MESHES") or []:
            d = vocab.get(name)
            if d:
                mesh.append({"ui": d.ui, "name": d.name, "major": False})
        docs.append({"pmid": pmid, "title": "", "abstract": text, "year": item.get("YEAR"), "mesh": mesh,
                     "languages": ["eng"]})
        qs.append(Question(pmid, item["QUESTION"], [pmid], [m["ui"] for m in mesh]))
    return qs, docs


def load_bioasq(paths: list[Path]) -> tuple[list[Question], list[dict]]:
    """Questions and gold documents of BioASQ golden files (`indexing.bioasq_golden`)."""
    from indexing.bioasq_golden import read_golden

    qs, docs = read_golden(paths)
    return [from_golden(q) for q in qs], docs


def from_golden(q) -> Question:
    """A BioASQ golden question (`indexing.bioasq_golden.GoldenQuestion`) as this benchmark's."""
    return Question(q.qid, q.body, list(q.gold))


def gold_filter(q: Question, depth_of) -> list[str]:
    from biorag.knowledge.mesh import TAGGER_STOP_NAMES, vocabulary

    vocab = vocabulary()
    ds = [vocab.by_ui[u] for u in q.gold_mesh if u in vocab.by_ui and vocab.by_ui[u].name.casefold() not in TAGGER_STOP_NAMES]
    ds.sort(key=lambda d: -depth_of(d))
    return [d.ui for d in ds[:3]]


def scores(ranked: list[str], gold: list[str]) -> dict[str, float]:
    g = set(gold)
    out = {f"recall@{k}": len(g & set(ranked[:k])) / min(len(g), k) for k in (1, 4, 10)}
    rr = 0.0
    for i, pid in enumerate(ranked[:10], 1):
        if pid in g:
            rr = 1.0 / i
            break
    out["mrr@10"] = rr
    return out


def run(settings, dataset: str, questions: list[Path], corpus: list[Path], out_dir: Path,
        limit: int | None = None, corpus_limit: int | None = None, modes: list[str] | None = None,
        rebuild: bool = False) -> dict[str, Any]:
    from biorag.contracts.models import SearchFilters
    from biorag.ml.embedder import Embedder
    from biorag.ml.mesh_classifier import build_tagger
    from biorag.understanding.search_request import parse_request
    from indexing.build import build_index
    from indexing.clean import Cleaner
    from indexing.reader import expand_inputs, read_file
    from indexing.records import PubmedRecord
    from retrievers.pubmed.retriever import PubMedRetriever

    out_dir.mkdir(parents=True, exist_ok=True)
    modes = modes or list(MODES)
    if dataset == "pubmedqa":
        qs, gold_docs = load_pubmedqa(questions[0])
    elif dataset == "bioasq":
        qs, gold_docs = load_bioasq(questions)
        modes = [m for m in modes if m != "mesh_gold"]  # BioASQ golden files carry no MeSH
    else:
        raise ValueError(f"unknown dataset {dataset}")
    if limit:  # a quick run: the first N questions and only their gold documents (+ distractors)
        qs = qs[:limit]
        keep = {g for q in qs for g in q.gold}
        gold_docs = [d for d in gold_docs if str(d["pmid"]) in keep]

    # corpus: gold contexts + distractors (real records), written as JSONL for the normal build
    corpus_file = out_dir / f"{dataset}_corpus.jsonl"
    gold_ids = {d["pmid"] for d in gold_docs}
    n_distract = 0
    with open(corpus_file, "w") as f:
        for d in gold_docs:
            f.write(json.dumps(d) + "\n")
        for p in expand_inputs(corpus) if corpus else []:
            for item in read_file(p):
                if isinstance(item, PubmedRecord) and str(item.pmid) not in gold_ids and item.abstract:
                    if corpus_limit is not None and n_distract >= corpus_limit:
                        break
                    f.write(json.dumps({"pmid": item.pmid, "title": item.title, "abstract": item.abstract,
                                        "year": item.year, "languages": item.languages,
                                        "mesh": [{"ui": m.ui, "name": m.name, "major": m.major} for m in item.mesh]}) + "\n")
                    n_distract += 1

    settings = settings.model_copy(deep=True, update={"data_dir": out_dir / "store"})
    if dataset == "bioasq":
        # a gold document here is its snippets (often one sentence): the abstract-length filter
        # would drop most of them (3,056 of the first 4,720 read), leaving nothing to find
        settings.index.min_abstract_words = 0
    alias = f"bench_{dataset}"
    settings.index.collection = alias
    embedder = Embedder.from_settings(settings)
    report = None
    store = out_dir / "store" / "milvus" / "pubmed.db"
    from biorag.ml import pubmed_schema as ps
    from biorag.ml.vector_store import open_store

    # one client for build and search: a Lite file belongs to one process, and reopening it
    # in the same process right after closing can hit pymilvus' stale connection cache
    client = open_store(str(store), create=True)
    if rebuild or ps.resolve_collection(client, alias) is None:  # none yet, or an interrupted build: resume it
        report = build_index(settings, [corpus_file], alias=alias, rebuild=rebuild, embedder=embedder, client=client)
    from indexing.mesh_counts import ensure_counts

    ensure_counts(client, ps.resolve_collection(client, alias))  # an index built before counts were kept
    # the cleaned corpus, as the build saw it: sampled for the raw embedding rate, and BM25's corpus
    cleaner = Cleaner(min_words=settings.index.min_abstract_words)
    cleaned = [rec for rec in map(cleaner, read_file(corpus_file)) if rec is not None]
    raw_rate, raw_rates = _raw_embed_rate(embedder, [rec.document_text() for rec in cleaned])

    retriever = PubMedRetriever.from_settings(settings)
    retriever._embedder = embedder
    retriever._client = client
    tagger = build_tagger(settings) if {"mesh_tagger", "mesh_boost"} & set(modes) else None
    bm25 = bm25_ids = None
    if "bm25" in modes:
        from rank_bm25 import BM25Okapi

        bm25_ids = [str(rec.pmid) for rec in cleaned]
        bm25 = BM25Okapi([_tok(rec.document_text()) for rec in cleaned])

    from biorag.knowledge.mesh import vocabulary

    depth = lambda d: d.depth  # noqa: E731
    rows = []
    lat: dict[str, list[float]] = {m: [] for m in modes}
    from tqdm import tqdm

    for q in tqdm(qs, desc=f"{dataset} questions", unit="q"):
        for mode in modes:
            t0 = time.perf_counter()
            filt = None
            info: dict = {}
            if mode == "bm25":
                s = bm25.get_scores(_tok(q.text))
                ranked = [bm25_ids[i] for i in np.argsort(-s)[:10]]
            else:
                mesh = []
                if mode == "mesh_gold":
                    mesh = gold_filter(q, depth)
                elif mode in ("mesh_tagger", "mesh_boost"):
                    mesh = [vocabulary().resolve(t).ui for t in tagger.tag(q.text, settings.mesh.max_terms)]
                filt = SearchFilters(mesh=mesh, mesh_mode="boost" if mode == "mesh_boost" else "filter")
                hits = retriever.search(parse_request(q.text, 10, source="pubmed", sources={"pubmed": retriever},
                                                      filters=filt))
                ranked, info = [e.id for e in hits], hits.info
            lat[mode].append(time.perf_counter() - t0)
            rows.append({"qid": q.qid, "mode": mode, "mesh": ";".join(filt.mesh) if filt else "",
                         "widened": bool(info.get("widened")), "path": info.get("path", "") if filt and filt.mesh else "",
                         **scores(ranked, q.gold)})
    retriever.close()

    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    summary: dict[str, Any] = {"dataset": dataset, "questions": len(qs), "corpus_gold": len(gold_docs),
                               "corpus_distractors": n_distract, "modes": {}}
    for mode in modes:
        mr = [r for r in rows if r["mode"] == mode]
        summary["modes"][mode] = {
            **{m: round(float(np.mean([r[m] for r in mr])), 4) for m in ("recall@1", "recall@4", "recall@10", "mrr@10")},
            "p50_ms": round(float(np.percentile(lat[mode], 50) * 1000), 1),
            "p95_ms": round(float(np.percentile(lat[mode], 95) * 1000), 1),
            "filtered_share": round(float(np.mean([bool(r["mesh"]) for r in mr])), 3),
            "widened_share": round(float(np.mean([r["widened"] for r in mr])), 3),
            "exact_share": round(float(np.mean([r["path"] == "exact" for r in mr])), 3),
        }
    if report is not None:
        s = report.seconds
        summary["build"] = {"kept": report.kept, "read": report.read, "dropped": report.dropped,
                            "wall_s": round(s["wall"], 1), "parse_s": round(s["parse"], 1), "clean_s": round(s["clean"], 1),
                            "embed_s": round(s["embed"], 1), "load_s": round(s["load"], 1),
                            "startup_s": round(s.get("startup", 0.0), 1),
                            "records_per_s": round(report.records_per_s(), 2),
                            "embed_in_build_per_s": round(report.kept / s["embed"], 2) if s["embed"] else 0.0}
        summary["build"]["build_vs_raw_embed_rate"] = round(report.records_per_s() / raw_rate, 3)
    summary["raw_embed_rate_per_s"] = round(raw_rate, 2)
    summary["raw_embed_rate_samples"] = [round(r, 2) for r in raw_rates]
    summary["index_size_mb"] = round(sum(p.stat().st_size for p in store.rglob("*") if p.is_file()) / 1e6, 1)
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    _chart(summary, out_dir / "retrieval.png")
    return summary


def _raw_embed_rate(embedder, texts: list[str], n: int = 512, repeats: int = 3) -> tuple[float, list[float]]:
    """The embedder alone, warm, in this process, with the build's batch size: the median
    rate over `repeats` disjoint samples of n of the cleaned corpus texts, each spread evenly
    over the corpus (gold contexts come first in the file and differ in length from abstracts, so a
    prefix would be biased). One sample is not enough: on the BioASQ corpus single readings
    ranged from 22.5/s to 31.3/s."""
    import statistics

    from indexing.build import BATCH

    step = max(1, len(texts) // n)
    embedder.embed_documents(texts[:32])  # warm-up: first-call allocations
    rates = []
    for r in range(repeats):
        sample = texts[r * step // repeats::step][:n]
        t0 = time.perf_counter()
        for i in range(0, len(sample), BATCH):
            embedder.embed_documents(sample[i:i + BATCH])
        rates.append(len(sample) / (time.perf_counter() - t0))
    return statistics.median(rates), rates


def _tok(text: str) -> list[str]:
    import re

    return re.findall(r"[a-z0-9]+", text.lower())


def _chart(summary: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = list(summary["modes"])
    metrics = ["recall@1", "recall@4", "recall@10", "mrr@10"]
    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(modes)
    for i, m in enumerate(modes):
        ax.bar([j + i * width for j in range(len(metrics))], [summary["modes"][m][x] for x in metrics], width, label=m)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(metrics))], metrics)
    ax.set_ylim(0, 1)
    ax.set_title(f"{summary['dataset']}: {summary['questions']} questions, "
                 f"{summary['corpus_gold'] + summary['corpus_distractors']} documents")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(modes), frameon=False)  # off the bars
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
