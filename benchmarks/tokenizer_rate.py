"""Texts per second one tokenizer process supplies to the embed stage (a benchmark, not a test).

    python -m benchmarks.tokenizer_rate [--records ../shared/data/pubmed_xml/pubmed_records.jsonl.gz]

On accelerator machines the build's embed stage waits for its tokenizer processes (issue
27), so their rate per core bounds it. This times `indexing.encode.tokenize` on real
abstracts (title and abstract, as the build embeds them) in one process on one core, two
ways, in the same run:

- `library`: the `tokenizers` library on a prefix of each text (the path before the BERT
  fast path, and still the path of any other tokenizer);
- `fast`: `indexing.bert_pretokenize`: BERT's normalizer and pre-tokenizer in Python,
  WordPiece once per distinct word. `cold` starts with an empty word cache, as a build's
  first chunk does; `warm` runs the corpus again with the cache of the first pass, as a
  build's later chunks mostly do (their frequent words are cached, their rare ones not:
  a build lies between the two).

Both must give the same ids for every text: the run says so, and fails otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # one core: the rate of one tokenizer process
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SAMPLE = Path(__file__).resolve().parents[1] / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"


def timed(fn, texts: list[str], batch: int) -> tuple[float, list[list[int]]]:
    out: list[list[int]] = []
    t0 = time.perf_counter()
    for s in range(0, len(texts), batch):
        out += fn(texts[s : s + batch])
    return len(texts) / (time.perf_counter() - t0), out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.tokenizer_rate", description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=Path, default=SAMPLE, help="PubMed records, JSONL(.gz) with title and "
                   "abstract (default: the repository's sample)")
    p.add_argument("--tokenizer", help="sentence-transformers directory (default: the bundled embedder's)")
    p.add_argument("--batch", type=int, default=512, help="texts per call, as a tokenizer process is given them")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    a = p.parse_args(argv)

    from benchmarks.index_scale_data import read_records
    from indexing.encode import fast_path, forget_words, tokenize, tokenizer_spec

    if a.tokenizer is None:
        from biorag.ml.embedder import BUNDLED, model_path

        a.tokenizer = model_path(BUNDLED)
    spec = tokenizer_spec(a.tokenizer)
    if spec is None:
        raise SystemExit(f"error: {a.tokenizer}: not a sentence-transformers directory with tokenizer.json")
    texts = [f"{r.get('title') or ''}\n{r['abstract']}".strip() for r in read_records(str(a.records))]
    if not texts:
        raise SystemExit(f"error: {a.records}: no records with an abstract")

    library_tok, fast_tok = spec.load(), spec.load()
    tokenize(library_tok, spec, texts[:8], library_only=True)
    t0 = time.perf_counter()
    fast = fast_path(fast_tok)  # built once: `tokenize` below uses this one
    setup_s = time.perf_counter() - t0
    tokenize(fast_tok, spec, texts[:8])
    forget_words(fast_tok)
    library, want = timed(lambda b: tokenize(library_tok, spec, b, library_only=True), texts, a.batch)
    cold, got_cold = timed(lambda b: tokenize(fast_tok, spec, b), texts, a.batch)
    warm, got_warm = timed(lambda b: tokenize(fast_tok, spec, b), texts, a.batch)
    prepared = [t.lower() if spec.lower else t for t in texts]
    share = sum(fast.prepare(t) is not None for t in prepared) / len(texts) if fast else 0.0
    same = got_cold == want and got_warm == want
    r = {"records": str(a.records), "texts": len(texts), "tokenizer": a.tokenizer, "batch": a.batch,
         "mean_tokens": round(sum(map(len, want)) / len(want), 1),
         "library_per_s": round(library, 1), "fast_cold_per_s": round(cold, 1), "fast_warm_per_s": round(warm, 1),
         "fast_share": round(share, 4), "fast_setup_s": round(setup_s, 3), "same_ids": same,
         "load_avg": list(os.getloadavg())}
    if a.json:
        print(json.dumps(r))
    else:
        print(f"{r['texts']} real abstracts ({r['mean_tokens']} tokens on average), one process, batches of {a.batch}; "
              f"load average {r['load_avg'][0]:.2f}")
        print(f"library path:          {r['library_per_s']:>8} texts/s")
        print(f"BERT fast path, cold:  {r['fast_cold_per_s']:>8} texts/s ({cold / library:.2f} x)")
        print(f"BERT fast path, warm:  {r['fast_warm_per_s']:>8} texts/s ({warm / library:.2f} x)")
        print(f"texts on the fast path: {share:.1%}; its setup {r['fast_setup_s']} s per process; "
              f"ids the same as the library's: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
