"""GO questions about gene sets, asked as people ask them: GeneAgent's GO sets, genes shuffled.

    .venv/bin/python -m benchmarks.go_sets --sets ../shared/data/geneagent/GO_terms.csv \
        --data-dir DIR [--limit 1000] [--others 250] [--seed 7] [--json]

DIR holds the stores a user builds (`biorag data gene-store build`, `biorag data hpo-store
build`). Each set's genes are shuffled and asked through the Agent (rules planner, local
sources): every set in the cloze "The enriched gene ontology term associated with A, B, C
is", and the first `--others` sets also in three other phrasings. A question scores when
the answer's first line contains the gold GO term name (case and punctuation ignored) and
the answer is not insufficient. The sets are read from the path given; nothing of them
is in the project.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import statistics
import time
from pathlib import Path

from application.engine import build_agent
from biorag.contracts.errors import InputError
from biorag.settings import load_settings

PHRASINGS = {
    "cloze": "The enriched gene ontology term associated with {comma} is",
    "which_go_process": "Which GO biological process is enriched in {space}?",
    "go_term_share": "what gene ontology term do {and_list} share",
    "fragment": "GO term for these genes: {slash}",
}


def _key(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _listings(genes: list[str]) -> dict[str, str]:
    return {"comma": ", ".join(genes), "space": " ".join(genes), "slash": "/".join(genes),
            "and_list": ", ".join(genes[:-1]) + " and " + genes[-1]}


def scored(answer: str, sufficient: bool, gold: str) -> bool:
    first = next((ln for ln in answer.splitlines() if ln.strip()), "")
    return sufficient and not first.lower().startswith("insufficient") and _key(gold) in _key(first)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=Path, required=True, help="GeneAgent's GO_terms.csv")
    ap.add_argument("--data-dir", type=Path, required=True, help="folder with gene_store.sqlite and hpo_store.sqlite")
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--others", type=int, default=250, help="sets also asked in the other phrasings")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-question-chars", type=int, default=None,
                    help="raise the operator's max_question_chars (large GO sets are longer than the default)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with args.sets.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))[: args.limit]
    rng = random.Random(args.seed)
    overrides = {"data_dir": str(args.data_dir), "planner": "rules"}
    if args.max_question_chars:
        overrides["max_question_chars"] = args.max_question_chars
    agent = build_agent(load_settings(overrides=overrides))
    too_long = 0
    hits: dict[str, list[bool]] = {p: [] for p in PHRASINGS}
    times: list[float] = []
    misses: list[dict] = []
    try:
        for i, row in enumerate(rows):
            genes = row["Genes"].split()
            rng.shuffle(genes)
            listing = _listings(genes)
            for name, template in PHRASINGS.items():
                if name != "cloze" and i >= args.others:
                    continue
                question = template.format(**listing)
                t0 = time.perf_counter()
                try:
                    ans = agent.answer(question)
                except InputError as e:  # a set too long for max_question_chars: a miss
                    hits[name].append(False)
                    too_long += 1
                    misses.append({"phrasing": name, "gold": row["Term_Description"], "go": row["GO"], "answer": str(e)})
                    continue
                times.append(time.perf_counter() - t0)
                ok = scored(ans.answer, ans.sufficient, row["Term_Description"])
                hits[name].append(ok)
                if not ok and len(misses) < 40:
                    misses.append({"phrasing": name, "gold": row["Term_Description"], "go": row["GO"],
                                   "answer": ans.answer.splitlines()[0][:160] if ans.answer else ""})
            if (i + 1) % 100 == 0:
                print(f"  {i + 1}/{len(rows)} sets, cloze {sum(hits['cloze']) / len(hits['cloze']):.3f}", flush=True)
    finally:
        for r in agent.retrievers.values():
            r.close()
        if agent.lexicon is not None:
            agent.lexicon.close()
    report = {
        "sets": len(rows), "seed": args.seed, "max_question_chars": agent.settings.max_question_chars,
        "refused_too_long": too_long,
        "score": {p: {"n": len(v), "right": sum(v), "share": round(sum(v) / len(v), 3) if v else None}
                  for p, v in hits.items()},
        "all_phrasings": round(sum(sum(v) for v in hits.values()) / max(1, sum(len(v) for v in hits.values())), 3),
        "seconds_per_question": {"p50": round(statistics.median(times), 3),
                                 "p95": round(sorted(times)[int(0.95 * (len(times) - 1))], 3)},
        "misses_sample": misses,
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for p, s in report["score"].items():
            print(f"{p:18s} {s['right']}/{s['n']} = {s['share']}")
        print(f"all phrasings: {report['all_phrasings']}; p50 {report['seconds_per_question']['p50']} s")


if __name__ == "__main__":
    main()
