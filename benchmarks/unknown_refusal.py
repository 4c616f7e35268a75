"""How long BioRAG takes to refuse a gene name nothing holds, on the embedded preset.

    .venv/bin/python -m benchmarks.unknown_refusal [--data-dir DIR] [--planner hybrid] [--json]

Without --data-dir the gene store and the HPO store are built from the files bundled with
BioRAG into a temporary folder first (about 20 s); a data dir of your own (with a PubMed
index too, as the README's set-up has it) measures that set-up. Questions: names no record
holds ("FLURBLE1", and one-letter typos of real symbols, which get "did you mean"), each in
several phrasings. Prints, per question, the seconds, rounds, sources asked and the answer's
first line; then the first question (cold: dictionaries load) apart from the rest (warm),
p50/max. Target: a refusal in <= 2 s, warm. Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from application.engine import build_agent
from biorag.settings import load_settings

NAMES = ["FLURBLE1", "TP35", "PSEN3X", "ZQX99"]
PHRASINGS = ["where is {x} located", "What does the {x} gene do?", "{xl} chromosome?",
             "could you please tell me what {x} does? thanks"]


def _stores(folder: Path) -> None:
    from cli.commands.data import build_store
    from indexing.gene_store_build import snapshot_paths
    from indexing.hpo_store_build import build_hpo_store

    build_store(folder / "gene_store.sqlite", dict(snapshot_paths()))
    build_hpo_store(folder / "hpo_store.sqlite", progress=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, help="a data dir with the stores built (default: build them)")
    ap.add_argument("--planner", default="hybrid", help="the embedded preset's planner (hybrid) or rules/llm")
    ap.add_argument("--limit", type=int, help="ask only the first N questions (the slow set-ups of old)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    tmp = None
    data_dir = args.data_dir
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory()
        data_dir = Path(tmp.name)
        t0 = time.perf_counter()
        _stores(data_dir)
        print(f"stores built in {time.perf_counter() - t0:.1f}s -> {data_dir}")
    agent = build_agent(load_settings("embedded", overrides={"data_dir": str(data_dir), "planner": args.planner}))
    rows = []
    try:
        questions = [p.format(x=name, xl=name.lower()) for name in NAMES for p in PHRASINGS]
        for q in questions[:args.limit]:
            t0 = time.perf_counter()
            ans = agent.answer(q)
            s = time.perf_counter() - t0
            asked = [e.retriever for e in ans.trace if e.step == "retrieve"]
            rows.append({"question": q, "seconds": round(s, 3), "rounds": ans.rounds, "sources": asked,
                         "sufficient": ans.sufficient, "answer": ans.answer.split("\n")[0][:160]})
    finally:
        for r in agent.retrievers.values():
            r.close()
        if agent.lexicon is not None:
            agent.lexicon.close()
        if tmp is not None:
            tmp.cleanup()
    warm = [r["seconds"] for r in rows[1:]] or [rows[0]["seconds"]]
    figures = {"planner": args.planner, "questions": len(rows), "cold_s": rows[0]["seconds"],
               "warm_p50_s": round(statistics.median(warm), 3), "warm_max_s": round(max(warm), 3),
               "refused": sum("is not a known gene symbol" in r["answer"] for r in rows),
               "max_rounds": max(r["rounds"] for r in rows), "target_s": 2.0}
    if args.json:
        print(json.dumps({"figures": figures, "rows": rows}, indent=2))
        return
    for r in rows:
        print(f"{r['seconds']:7.3f}s  {r['rounds']:2d} rounds  {','.join(r['sources']) or '-':12s}  "
              f"{r['question']!r}\n          -> {r['answer']}")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
