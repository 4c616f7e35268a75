"""Answers to a list of questions, as `biorag ask --json` gives them, with what varies from run
to run taken out: a snapshot to diff before and after a change that must not change behaviour.

    .venv/bin/python -m benchmarks.answer_snapshot --questions QUESTIONS.txt --out BEFORE.json
    (change the code)
    .venv/bin/python -m benchmarks.answer_snapshot --questions QUESTIONS.txt --out AFTER.json --diff BEFORE.json

QUESTIONS.txt holds one question a line (blank lines and lines starting with # are skipped).
Stores and index are the README's, under BIORAG_DATA_DIR. Removed from each answer: timings,
each trace event's `ms`/`llm_ms` and every `*_ms` figure in its details, and the trace event's
`outcome` (a field some versions lack).
With --diff, prints the questions whose answers differ and exits 1 if any do.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from application.engine import build_agent
from biorag.settings import load_settings

#: per-run figures and fields a version may lack: never part of the comparison
VOLATILE_EVENT_KEYS = ("ms", "llm_ms", "outcome")


def stable(answer: dict) -> dict:
    """The answer without its timings and each event's run-dependent fields."""
    answer = dict(answer)
    answer.pop("timings", None)
    answer["trace"] = [{k: _untimed(v) if k == "details" else v for k, v in ev.items() if k not in VOLATILE_EVENT_KEYS}
                       for ev in answer.get("trace", [])]
    return answer


def _untimed(details: dict) -> dict:
    """An event's details without the milliseconds its steps took."""
    return {k: v for k, v in details.items() if not k.endswith("_ms")}


def read_questions(path: Path) -> list[str]:
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, required=True, help="a text file, one question a line")
    ap.add_argument("--out", type=Path, required=True, help="where to write the snapshot (JSON)")
    ap.add_argument("--diff", type=Path, help="an earlier snapshot to compare with")
    ap.add_argument("--preset", default=None, help="settings preset (default: embedded)")
    args = ap.parse_args()
    if not args.questions.is_file():
        sys.exit(f"--questions {args.questions}: no such file")
    questions = read_questions(args.questions)
    agent = build_agent(load_settings(args.preset))
    snapshot = {}
    for i, q in enumerate(questions, 1):
        snapshot[q] = stable(agent.answer(q).model_dump(mode="json"))
        print(f"[{i}/{len(questions)}] {q[:70]} -> {snapshot[q]['answer'].splitlines()[0][:70] if snapshot[q]['answer'] else ''}",
              file=sys.stderr)
    args.out.write_text(json.dumps(snapshot, indent=1, sort_keys=True))
    if args.diff:
        before = json.loads(args.diff.read_text())
        changed = [q for q in questions if before.get(q) != snapshot[q]]
        print(f"{len(questions) - len(changed)} of {len(questions)} answers identical")
        for q in changed:
            print(f"  differs: {q}")
        sys.exit(1 if changed else 0)


if __name__ == "__main__":
    main()
