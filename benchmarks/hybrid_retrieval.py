"""Dense, lexical and fused retrieval on BioASQ task B: fusion tuned on 7B-11B, scored on 12B.

    python -m benchmarks.hybrid_retrieval --bioasq ../shared/data/bioasq_taskb_golden \
        --corpus ../shared/data/pubmed_xml/pubmed_records.jsonl.gz --out var/hybrid \
        [--gene-store var/data/gene_store.sqlite] [--json-out FILE] [--embedder MODEL_DIR]

Corpus: the gold documents of every batch (a gold document is its snippets joined, as
`evaluation.retrieval.load_bioasq` builds it) plus the shared PubMed records, cleaned as the
index build cleans them (the abstract-length filter off, as `biorag eval retrieval` does for
BioASQ). Metrics: capped recall@k (`evaluation.retrieval.scores`: found gold / min(gold, k)),
MRR@10 and MAP@10 (the sum of precision at each gold hit in the top 10, over min(gold, 10)).

Modes, each on the train split (7B-11B questions, those also asked in 12B removed) and the
test split (12B):
- dense:      exact cosine top-k with the index's embedder (the HNSW index finds about the
              same: `biorag eval retrieval --mode dense` measures that path);
- bm25:       rank-bm25 over the same texts, `biorag eval retrieval`'s bm25 mode;
- lexical:    the FTS5 side index the build writes (`biorag.ml.lexical_index`), question words;
- expansion:  the same index, queried with the other names of the question's MeSH
              descriptors and genes (`biorag.ml.query_expansion`);
- fused:      RRF of dense + lexical (+ expansion), with k, weights and depth chosen by a
              grid search on train recall@10 (MAP@10 breaks ties); the chosen constants are
              then applied to 12B once.

Document vectors are cached under --out (keyed by the model and the corpus), in chunks, so
a run that was stopped resumes where it was; a progress bar shows the embedding.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

DEPTH = 100
TUNE_K = (1, 2, 5, 10, 20, 60)
TUNE_W_LEX = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
TUNE_W_EXP = (0.0, 0.25, 0.5)
TUNE_DEPTH = (30, 100)


def average_precision(ranked: list[str], gold: list[str], k: int = 10) -> float:
    g = set(gold)
    hits, total = 0, 0.0
    for i, pid in enumerate(ranked[:k], 1):
        if pid in g:
            hits += 1
            total += hits / i
    return total / min(len(g), k) if g else 0.0


def score_run(ranked: list[list[str]], golds: list[list[str]]) -> dict[str, float]:
    from evaluation.retrieval import scores

    rows = [scores(r, g) | {"map@10": average_precision(r, g)} for r, g in zip(ranked, golds, strict=True)]
    return {m: round(float(np.mean([r[m] for r in rows])), 4) for m in rows[0]}


def load_split(bioasq: Path, train_batches: tuple[str, ...] = ()):
    """Questions per split (`indexing.bioasq_golden`: 12B is the test, a question also asked
    there is never tuning data) and the gold documents of every batch; `train_batches`
    ("11B", ...) keeps only those batches' questions for tuning."""
    from evaluation.retrieval import from_golden, load_bioasq
    from indexing.bioasq_golden import golden_files, read_golden, split_files, unseen

    _, docs = load_bioasq(golden_files(bioasq))
    train_files, test_files = split_files(bioasq, train_batches)
    test, _ = read_golden(test_files)
    train, _ = read_golden(train_files)
    return [from_golden(q) for q in unseen(train, test)], [from_golden(q) for q in test], docs


def corpus(gold_docs: list[dict], distractors: list[Path]) -> tuple[list[str], list[str], list[str]]:
    """(pmids, titles, abstracts) as the build would index them (cleaned)."""
    from indexing.clean import Cleaner
    from indexing.reader import expand_inputs, read_file
    from indexing.records import PubmedRecord

    cleaner = Cleaner(min_words=0)
    gold_ids = {d["pmid"] for d in gold_docs}
    recs = [PubmedRecord(pmid=d["pmid"], title=d["title"], abstract=d["abstract"], languages=["eng"]) for d in gold_docs]
    for p in expand_inputs(distractors):
        for item in read_file(p):
            if isinstance(item, PubmedRecord) and str(item.pmid) not in gold_ids and item.abstract:
                recs.append(item)
    pmids, titles, bodies = [], [], []
    for rec in recs:
        c = cleaner(rec)
        if c is not None:
            pmids.append(str(c.pmid))
            titles.append(c.title or "")
            bodies.append(c.abstract or "")
    return pmids, titles, bodies


def doc_vectors(embedder, pmids: list[str], texts: list[str], cache: Path, chunk: int = 1024,
                precision: str = "float32") -> np.ndarray:
    """Unit document vectors, cached in chunks. `precision` "query" encodes the documents with the
    query encoder (bfloat16 on an AMX CPU, `index.query_precision=auto`): about twice as fast on
    a loaded machine; the summary records which was used and its cosine to float32 on a sample."""
    from tqdm import tqdm

    key = hashlib.sha256((embedder.name + precision + "\0" + "\0".join(p + "\1" + t for p, t in zip(pmids, texts, strict=True)))
                         .encode()).hexdigest()[:16]

    def encode(batch: list[str]) -> np.ndarray:
        if precision == "float32":
            return np.asarray(embedder.embed_documents(batch), dtype=np.float32)
        return np.asarray(embedder.query_encoder.model.encode(batch, batch_size=64, normalize_embeddings=True,
                                                              convert_to_numpy=True), dtype=np.float32)

    d = cache / f"vectors-{key}"
    d.mkdir(parents=True, exist_ok=True)
    parts = []
    with tqdm(total=len(texts), desc="embedding corpus", unit="doc") as bar:
        for start in range(0, len(texts), chunk):
            f = d / f"{start:08d}.npy"
            if f.exists():
                v = np.load(f)
            else:
                v = encode(texts[start:start + chunk])
                np.save(f.with_suffix(".tmp.npy"), v)
                os.replace(f.with_suffix(".tmp.npy"), f)
            parts.append(v)
            bar.update(len(v))
    m = np.concatenate(parts)
    return m / (np.linalg.norm(m, axis=1, keepdims=True) + 1e-12)


class PostingsBM25:
    """rank-bm25's BM25Okapi scores (its idf with the epsilon floor, k1, b, document lengths),
    computed from postings: a document without a query word gets 0 from it there too, so
    the scores are the same numbers, at a cost per matching document instead of per document
    and word (rank-bm25 took about 10 s a question over 24k documents on the loaded machine)."""

    def __init__(self, bm25):
        self.bm = bm25
        post: dict[str, tuple[list[int], list[int]]] = {}
        for i, freqs in enumerate(bm25.doc_freqs):
            for w, f in freqs.items():
                ids, tfs = post.setdefault(w, ([], []))
                ids.append(i)
                tfs.append(f)
        self.post = {w: (np.asarray(ids), np.asarray(tfs, dtype=np.float64)) for w, (ids, tfs) in post.items()}
        self.norm = bm25.k1 * (1 - bm25.b + bm25.b * np.asarray(bm25.doc_len, dtype=np.float64) / bm25.avgdl)

    def get_scores(self, query: list[str]) -> np.ndarray:
        bm = self.bm
        out = np.zeros(len(self.norm))
        for q in query:
            if q not in self.post:
                continue
            ids, tf = self.post[q]
            out[ids] += (bm.idf.get(q) or 0) * (tf * (bm.k1 + 1) / (tf + self.norm[ids]))
        return out


def rank_dense(qv: np.ndarray, dv: np.ndarray, pmids: list[str], depth: int) -> list[list[str]]:
    out = []
    qv = qv / (np.linalg.norm(qv, axis=1, keepdims=True) + 1e-12)
    for start in range(0, len(qv), 256):
        sims = qv[start:start + 256] @ dv.T
        top = np.argpartition(-sims, depth, axis=1)[:, :depth]
        for s, t in zip(sims, top, strict=True):
            out.append([pmids[i] for i in t[np.argsort(-s[t])]])
    return out


def fuse(lists: list[list[list[str]]], k: float, weights: list[float], depth: int) -> list[list[str]]:
    from biorag.ml.fusion import rrf

    return [[h.id for h in rrf([lst[i] for lst in lists], k=k, weights=weights, depth=depth, limit=10)]
            for i in range(len(lists[0]))]


def tune(lists: dict[str, list[list[str]]], golds: list[list[str]], use_expansion: bool) -> tuple[dict, dict]:
    best, best_key = None, None
    names = ["dense", "lexical"] + (["expansion"] if use_expansion else [])
    for k, w_lex, w_exp, depth in itertools.product(TUNE_K, TUNE_W_LEX, TUNE_W_EXP if use_expansion else (0.0,),
                                                    TUNE_DEPTH):
        weights = [1.0, w_lex] + ([w_exp] if use_expansion else [])
        s = score_run(fuse([lists[n] for n in names], k, weights, depth), golds)
        key = (s["recall@10"], s["map@10"])
        if best_key is None or key > best_key:
            best_key, best = key, ({"k": k, "weights": dict(zip(names, weights, strict=True)), "depth": depth}, s)
    assert best is not None
    return best


class Side:
    """One corpus with its dense vectors (None: lexical only), FTS5 index and BM25."""

    def __init__(self, name: str, gold_docs: list[dict], distractors: list[Path], out: Path, embedder,
                 precision: str, lexical_only: bool):
        from rank_bm25 import BM25Okapi

        from biorag.ml import lexical_index
        from evaluation.retrieval import _tok

        self.pmids, titles, bodies = corpus(gold_docs, distractors)
        texts = [f"{t}\n{b}".strip() for t, b in zip(titles, bodies, strict=True)]  # PubmedRecord.document_text
        self.info = {"documents": len(self.pmids), "gold": len(gold_docs), "distractor_files": [str(d) for d in distractors]}
        print(f"corpus {name}: {len(self.pmids)} documents ({len(gold_docs)} gold)", file=sys.stderr)
        self.dv = None if lexical_only else doc_vectors(embedder, self.pmids, texts, out / "cache", precision=precision)
        self.precision = {"mode": "none (lexical only)" if lexical_only else precision}
        if self.dv is not None and precision != "float32":  # how far the faster vectors are from the build's
            sample = list(range(0, len(texts), max(1, len(texts) // 256)))[:256]
            ref = np.asarray(embedder.embed_documents([texts[i] for i in sample]), dtype=np.float32)
            cos = np.sum(ref * self.dv[sample], axis=1) / np.linalg.norm(ref, axis=1)
            self.precision.update(cosine_to_float32_min=round(float(cos.min()), 5),
                                  cosine_to_float32_mean=round(float(cos.mean()), 5), sample=len(sample))
        stamp = hashlib.sha256("\0".join(self.pmids).encode()).hexdigest()[:16]
        path = out / f"lexical-{stamp}.fts.sqlite"
        if not path.exists():
            lexical_index.build(path, zip(self.pmids, titles, bodies, strict=True), {"corpus": stamp})
        self.lex = lexical_index.LexicalIndex(path)
        self.okapi = BM25Okapi([_tok(t) for t in texts])
        self.bm25 = PostingsBM25(self.okapi)


def run_split(side: Side, qs, embedder, gene_names, label: str) -> tuple[dict, dict]:
    from tqdm import tqdm

    from biorag.ml import lexical_index
    from biorag.ml.query_expansion import expand
    from evaluation.retrieval import _tok

    probe = [_tok(q.text) for q in qs[:5]]
    assert all(np.allclose(side.bm25.get_scores(t), side.okapi.get_scores(t)) for t in probe), "postings != rank-bm25"
    lists: dict[str, list[list[str]]] = {"bm25": [], "lexical": [], "expansion": []}
    if side.dv is not None:
        qv = np.asarray(embedder.embed_queries([q.text for q in qs]), dtype=np.float32)
        lists["dense"] = rank_dense(qv, side.dv, side.pmids, DEPTH)
    lat: dict[str, list[float]] = {"lexical": [], "expansion": []}
    expanded = 0
    for q in tqdm(qs, desc=f"{label} lexical", unit="q"):
        sc = side.bm25.get_scores(_tok(q.text))
        lists["bm25"].append([side.pmids[i] for i in np.argsort(-sc)[:DEPTH]])
        t = time.perf_counter()
        lists["lexical"].append([p for p, _ in side.lex.search(lexical_index.query_words(q.text), DEPTH)])
        lat["lexical"].append(time.perf_counter() - t)
        t = time.perf_counter()
        ex = expand(q.text, gene_names=gene_names)
        lists["expansion"].append([p for p, _ in side.lex.search(ex.terms, DEPTH)] if ex.terms else [])
        lat["expansion"].append(time.perf_counter() - t)
        expanded += bool(ex.terms)
    golds = [q.gold for q in qs]
    out = {"questions": len(qs), "corpus": side.info, "doc_precision": side.precision,
           "expanded_share": round(expanded / max(1, len(qs)), 3),
           "modes": {m: score_run(v, golds) for m, v in lists.items()},
           "lexical_p95_ms": round(float(np.percentile(lat["lexical"], 95) * 1000), 1),
           "expansion_p95_ms": round(float(np.percentile(lat["expansion"], 95) * 1000), 1)}
    return out, {"lists": lists, "golds": golds}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Example: python -m benchmarks.hybrid_retrieval --bioasq ../shared/data/bioasq_taskb_golden "
                                        "--corpus ../shared/data/pubmed_xml/pubmed_records.jsonl.gz --out var/hybrid")
    ap.add_argument("--bioasq", type=Path, required=True, help="folder of BioASQ task B *_golden.json files (7B..12B)")
    ap.add_argument("--corpus", type=Path, action="append", default=[], help="PubMed records added as distractors (repeatable)")
    ap.add_argument("--out", type=Path, required=True, help="work folder: vector cache, lexical index, results")
    ap.add_argument("--gene-store", type=Path, help="gene store for gene-alias expansion (biorag data gene-store build)")
    ap.add_argument("--json-out", type=Path, help="also write the summary here")
    ap.add_argument("--scope", choices=["all", "split"], default="all",
                    help="all: one corpus, every batch's gold documents (+ --corpus), for both splits (the figure); "
                         "split: each split searches only its own questions' gold documents (+ --corpus): a smaller, "
                         "easier corpus for a machine that cannot embed the whole one")
    ap.add_argument("--train-batches", default="", help="tune only on questions of these batches, e.g. '11B' or "
                    "'10B,11B' (default: 7B-11B); 'none': no tuning, RRF's usual constants (k 60, equal weights) only")
    ap.add_argument("--doc-precision", choices=["float32", "query"], default="float32",
                    help="float32: as `biorag index build` embeds; query: the query encoder's dtype (bfloat16 on "
                         "AMX CPUs; its cosine to float32 on 256 documents is reported)")
    ap.add_argument("--lexical-only", action="store_true",
                    help="only the lexical modes (no embedding: minutes instead of an hour on 2 loaded cores)")
    ap.add_argument("--embedder", help="index.embedder for the dense mode: a model folder, e.g. one `biorag train "
                    "embedder` wrote (default: the bundled all-MiniLM-L6-v2); vectors are cached per model")
    ap.add_argument("--limit", type=int, help="only the first N questions of each split (a quick look; not a figure)")
    a = ap.parse_args(argv)
    for p in [a.bioasq, *a.corpus] + ([a.gene_store] if a.gene_store else []):
        if not p.exists():
            print(f"error: {p} does not exist", file=sys.stderr)
            return 2

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from biorag.ml import query_expansion
    from biorag.ml.embedder import Embedder
    from biorag.settings import load_settings

    t0 = time.perf_counter()
    batches = tuple(b.strip() for b in a.train_batches.split(",") if b.strip())
    train, test, gold_docs = load_split(a.bioasq, batches)
    if batches == ("none",):
        train = []
    if a.limit:
        train, test = train[:a.limit], test[:a.limit]
    print(f"questions: train {len(train)} ({a.train_batches or '7B-11B'}), test {len(test)} (12B)", file=sys.stderr)
    a.out.mkdir(parents=True, exist_ok=True)
    embedder = Embedder.from_settings(load_settings(sets=[f"index.embedder={a.embedder}"] if a.embedder else None))

    def own_docs(qs) -> list[dict]:
        keep = {g for q in qs for g in q.gold}
        return [d for d in gold_docs if d["pmid"] in keep]

    if a.scope == "all":
        shared = Side("all", gold_docs, a.corpus, a.out, embedder, a.doc_precision, a.lexical_only)
        sides = {"train": shared, "test": shared}
    else:  # the test corpus first: it is the figure
        sides = {"test": Side("test", own_docs(test), a.corpus, a.out, embedder, a.doc_precision, a.lexical_only)}
        if train:
            sides["train"] = Side("train", own_docs(train), a.corpus, a.out, embedder, a.doc_precision, a.lexical_only)
    gene_names = None
    if a.gene_store:
        from retrievers.stores.gene_aliases import gene_names_from
        from retrievers.stores.gene_store import GeneStore

        gene_names = gene_names_from(GeneStore(a.gene_store))

    summary: dict = {"scope": a.scope, "embedder": embedder.name, "expansion_max_names": query_expansion.MAX_NAMES,
                     "depth": DEPTH, "grid": {"k": TUNE_K, "lexical": TUNE_W_LEX, "expansion": TUNE_W_EXP,
                                               "depth": TUNE_DEPTH}, "splits": {}}
    runs = {}
    for split, qs in (("test", test), ("train", train)):
        if qs:
            summary["splits"][split], runs[split] = run_split(sides[split], qs, embedder, gene_names, split)
    if sides["test"].dv is not None:
        for split, r in runs.items():
            summary["splits"][split]["modes"]["fused_default"] = score_run(
                fuse([r["lists"]["dense"], r["lists"]["lexical"]], 60, [1.0, 1.0], DEPTH), r["golds"])
            summary["splits"][split]["modes"]["fused_default_expanded"] = score_run(
                fuse([r["lists"]["dense"], r["lists"]["lexical"], r["lists"]["expansion"]], 60, [1.0, 1.0, 0.5], DEPTH),
                r["golds"])
    if sides["test"].dv is not None and train:
        tr, te = runs["train"], runs["test"]
        for name, use_exp in (("fused", False), ("fused_expanded", True)):
            params, train_score = tune(tr["lists"], tr["golds"], use_exp)
            names = list(params["weights"])
            summary["splits"]["train"]["modes"][name] = train_score
            summary["splits"]["test"]["modes"][name] = score_run(
                fuse([te["lists"][n] for n in names], params["k"], list(params["weights"].values()), params["depth"]),
                te["golds"])
            summary[f"{name}_params"] = params
    summary["wall_s"] = round(time.perf_counter() - t0, 1)
    text = json.dumps(summary, indent=2)
    print(text)
    (a.out / f"summary_{a.scope}{'_lexical' if a.lexical_only else ''}.json").write_text(text)
    if a.json_out:
        a.json_out.parent.mkdir(parents=True, exist_ok=True)
        a.json_out.write_text(text)
    print("\n| mode | train R@10 | train MAP@10 | 12B R@1 | 12B R@10 | 12B MRR@10 | 12B MAP@10 |\n|---|---|---|---|---|---|---|")
    for m in summary["splits"]["test"]["modes"]:
        trs = summary["splits"].get("train", {}).get("modes", {}).get(m, {"recall@10": "-", "map@10": "-"})
        tes = summary["splits"]["test"]["modes"][m]
        print(f"| {m} | {trs['recall@10']} | {trs['map@10']} | {tes['recall@1']} | {tes['recall@10']} | {tes['mrr@10']} | "
              f"{tes['map@10']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
