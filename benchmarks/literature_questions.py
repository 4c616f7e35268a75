"""Literature questions a researcher would type, answered on the embedded preset: latency and accuracy.

    .venv/bin/python -m benchmarks.literature_questions --data-dir DIR [--questions FILE] [--planner hybrid] [--json]

DIR holds a PubMed index built from the shared records (README, "The local PubMed index":
`biorag index build --input ../shared/data/pubmed_xml/pubmed_records.jsonl.gz`) and, as a
user has it, the gene and HPO stores. The questions (default:
benchmarks/literature_dev/questions.jsonl, how they were written is in its README) each name
the PMID whose finding they ask for, in other words, with the finding's key words; some ask
about topics the corpus lacks. Per question: seconds, rounds, sufficient, the first line.
Then:

- right: sufficient, the PMID cited, and the finding stated: the expected Yes/No as the
  first line for a yes/no question, every key word in the answer for the others;
- declined: a question on an absent topic answered insufficient;
- wrong but sufficient: sufficient and not right (or sufficient on an absent topic);
- latency p50/p95 over all questions (the first, which loads the models, reported apart).

Targets (the literature issue): p50 <= 3 s, p95 <= 8 s on 2 cores. Not a test: it prints figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from application.engine import build_agent
from biorag.settings import load_settings

DEFAULT_QUESTIONS = Path(__file__).parent / "literature_dev" / "questions.jsonl"


def _load(path: Path) -> list[dict]:
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"error: --questions {path}: {e}")
    if not rows or any("question" not in r for r in rows):
        sys.exit(f"error: --questions {path}: every line must be a JSON object with a 'question'")
    return rows


def score(q: dict, answer: str, sufficient: bool, cited: set[str]) -> str:
    """"right", "declined", "wrong_sufficient" or "insufficient" for one answer."""
    if q.get("absent"):
        return "wrong_sufficient" if sufficient else "declined"
    if not sufficient:
        return "insufficient"
    first = answer.splitlines()[0].strip().lower() if answer else ""
    if str(q["pmid"]) not in cited:
        return "wrong_sufficient"
    if q.get("expected"):
        ok = first.startswith(q["expected"].lower())
    else:
        ok = all(k.lower() in answer.lower() for k in q.get("keywords", []))
    return "right" if ok else "wrong_sufficient"


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, max(0, round(p * (len(ordered) - 1))))], 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="a data dir with a PubMed index built")
    ap.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS, help="JSONL questions (default: the dev set)")
    ap.add_argument("--planner", default="hybrid", help="the embedded preset's planner (hybrid) or rules/llm")
    ap.add_argument("--limit", type=int, help="ask only the first N questions")
    ap.add_argument("--json", action="store_true", help="print the rows and figures as JSON")
    args = ap.parse_args()
    if not args.data_dir.is_dir():
        sys.exit(f"error: --data-dir {args.data_dir}: no such folder")
    questions = _load(args.questions)[:args.limit]
    agent = build_agent(load_settings("embedded", overrides={"data_dir": str(args.data_dir), "planner": args.planner}))
    rows = []
    try:
        for i, q in enumerate(questions, 1):
            t0 = time.perf_counter()
            ans = agent.answer(q["question"])
            s = time.perf_counter() - t0
            cited = {c.id for c in ans.citations if c.source == "pubmed"}
            verdict = score(q, ans.answer, ans.sufficient, cited)
            rows.append({"id": q.get("id", str(i)), "seconds": round(s, 3), "rounds": ans.rounds,
                         "sufficient": ans.sufficient, "verdict": verdict, "pmid": q.get("pmid"),
                         "cited": sorted(cited), "first_line": (ans.answer.splitlines() or [""])[0][:140]})
            print(f"[{i}/{len(questions)}] {s:6.2f}s {verdict:16s} {q['question'][:70]}", file=sys.stderr)
    finally:
        for r in agent.retrievers.values():
            r.close()
        if agent.lexicon is not None:
            agent.lexicon.close()
    warm = [r["seconds"] for r in rows[1:]] or [rows[0]["seconds"]]
    answerable = [r for r, q in zip(rows, questions, strict=True) if not q.get("absent")]
    absent = [r for r, q in zip(rows, questions, strict=True) if q.get("absent")]
    figures = {
        "planner": args.planner, "questions": len(rows), "answerable": len(answerable), "absent": len(absent),
        "right": sum(r["verdict"] == "right" for r in answerable),
        "declined_absent": sum(r["verdict"] == "declined" for r in absent),
        "wrong_but_sufficient": sum(r["verdict"] == "wrong_sufficient" for r in rows),
        "accuracy": round((sum(r["verdict"] == "right" for r in answerable)
                           + sum(r["verdict"] == "declined" for r in absent)) / max(len(rows), 1), 3),
        "cold_s": rows[0]["seconds"], "p50_s": _pct(warm, 0.5), "p95_s": _pct(warm, 0.95),
        "max_rounds": max(r["rounds"] for r in rows), "targets": {"p50_s": 3.0, "p95_s": 8.0},
    }
    if args.json:
        print(json.dumps({"figures": figures, "rows": rows}, indent=2))
        return
    for r in rows:
        print(f"{r['id']:9s} {r['seconds']:6.2f}s r{r['rounds']} {r['verdict']:16s} {r['first_line'][:90]}")
    print(json.dumps(figures, indent=2))
    print(f"median of the warm questions: {statistics.median(warm):.2f}s")


if __name__ == "__main__":
    main()
