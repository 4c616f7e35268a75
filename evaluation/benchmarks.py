"""Benchmark loaders: each turns a file (or folder) into a list of `Item`s.

An item carries the exact text the agent is asked (`question`), the gold answer, the
answer format its scorer expects (`fmt`) and a stable id used for resuming runs.

| benchmark  | input                                                  | fmt        |
|------------|--------------------------------------------------------|------------|
| geneturing | `{task: {question: gold}}` JSON (GeneGPT layout)        | geneturing |
| geneturing | GeneTuring-2025 CSV `Module, Question, Goldstandard`   | geneturing2025 |
| genehop    | same layout, gold may be a list                        | geneturing |
| mmlu       | hendrycks CSV `question,A,B,C,D,letter` (file/folder)  | choice     |
| medmcqa    | JSON lines `question, opa..opd, cop (1-4)`             | choice     |
| pubmedqa   | `ori_pqal.json`: `{pmid: {QUESTION, final_decision}}`   | yesnomaybe |
| bioasq     | Task B golden JSON `{"questions": [...]}` (file/folder) | yesno, factoid |

GeneTuring/GeneHop questions are asked verbatim. Multiple-choice and yes/no items get
one fixed instruction line appended (see `INSTRUCTIONS`), the same for every config.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from biorag.contracts.errors import InputError
from biorag.host.textfile import unreadable
from evaluation import geneturing2025
from evaluation.bioasq_scores import gold_pmids

BENCHMARKS = ("geneturing", "genehop", "mmlu", "medmcqa", "pubmedqa", "bioasq")

INSTRUCTIONS = {
    "choice": "Answer with the letter of the correct option.",
    "yesno": "Answer yes or no.",
    "yesnomaybe": "Answer yes, no or maybe.",
    "factoid": "Give up to 5 candidate answers, most likely first, separated by commas.",
    "list": "List every answer, separated by commas.",
}


class Item(BaseModel):
    id: str
    benchmark: str
    task: str
    question: str = Field(description="exact text given to the agent")
    gold: Any
    fmt: str
    options: list[str] | None = None
    meta: dict[str, Any] = Field(default_factory=dict)


def load_benchmark(benchmark: str, path: str | Path, tasks: list[str] | None = None,
                   limit: int | None = None) -> list[Item]:
    """Load `benchmark` from `path`; keep only `tasks` (names as in the file, or the
    subject/type for mmlu/medmcqa/bioasq) and the first `limit` items per task."""
    loaders = {
        "geneturing": lambda p: load_geneturing(p, "geneturing"),
        "genehop": lambda p: load_geneturing(p, "genehop"),
        "mmlu": load_mmlu,
        "medmcqa": load_medmcqa,
        "pubmedqa": load_pubmedqa,
        "bioasq": load_bioasq,
    }
    if benchmark not in loaders:
        raise InputError(f"unknown benchmark '{benchmark}': choose one of {', '.join(BENCHMARKS)}")
    p = Path(path)
    if not p.exists():
        raise InputError(f"--questions {p} does not exist: give the {benchmark} file or folder")
    try:
        items = loaders[benchmark](p)
    except IsADirectoryError:
        raise InputError(f"--questions {p} is a directory: {benchmark} questions are one file") from None
    except (UnicodeDecodeError, OSError) as e:
        which = f"a file in --questions {p}" if p.is_dir() else f"--questions {p}"  # a folder's files, one by one
        raise InputError(f"{which} {unreadable(e)}: give the {benchmark} file or folder") from None
    except (KeyError, TypeError, AttributeError, ValueError) as e:  # records of another shape
        raise InputError(f"--questions {p} is not in the {benchmark} layout ({type(e).__name__}: {e})") from None
    if not items:
        raise InputError(f"{p} holds no {benchmark} questions")
    if tasks:
        known = sorted({it.task for it in items})
        unknown = [t for t in tasks if t not in known]
        if unknown:
            raise InputError(f"unknown task(s) {unknown} in {p}: tasks are {known}")
        items = [it for it in items if it.task in tasks]
    if limit is not None:
        if limit < 1:
            raise InputError("--limit must be at least 1")
        kept: list[Item] = []
        per_task: dict[str, int] = {}
        for it in items:
            if per_task.get(it.task, 0) < limit:
                per_task[it.task] = per_task.get(it.task, 0) + 1
                kept.append(it)
        items = kept
    return items


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"{path} is not valid JSON: {e}") from None


def load_geneturing(path: Path, benchmark: str = "geneturing") -> list[Item]:
    """GeneGPT layout: `{task: {question: gold}}`; or GeneTuring-2025's CSV (a `.csv` file:
    `Module, Question, Goldstandard`, see evaluation.geneturing2025). Ids are `task/index`
    in file order."""
    if path.suffix.lower() == ".csv":
        rows = geneturing2025.read_rows(path)
        seen: dict[str, int] = {}
        items = []
        for row in rows:
            i = seen[row["Module"]] = seen.get(row["Module"], -1) + 1
            items.append(Item(id=f"{row['Module']}/{i}", benchmark=benchmark, task=row["Module"],
                              question=row["Question"], gold=row["Goldstandard"], fmt=geneturing2025.FMT,
                              meta={"answers": row["answers"]} if row["answers"] else {}))
        return items
    data = _read_json(path)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError(f"{path}: expected {{task: {{question: gold}}}} (the GeneGPT JSON layout)")
    items = []
    for task, qa in data.items():
        for i, (question, gold) in enumerate(qa.items()):
            items.append(Item(id=f"{task}/{i}", benchmark=benchmark, task=task,
                              question=question, gold=gold, fmt="geneturing"))
    return items


def _choice_question(stem: str, options: list[str]) -> str:
    lines = [stem.strip()] + [f"{chr(65 + i)}. {opt}" for i, opt in enumerate(options)]
    return "\n".join(lines + [INSTRUCTIONS["choice"]])


def load_mmlu(path: Path) -> list[Item]:
    """Hendrycks CSVs (no header): `question,A,B,C,D,answer_letter`. A folder loads every
    `<subject>_<split>.csv`; the task is the subject."""
    files = sorted(path.glob("*.csv")) if path.is_dir() else [path]
    if not files:
        raise InputError(f"{path} has no .csv files (expected <subject>_<split>.csv)")
    items = []
    for f in files:
        subject = f.stem.rsplit("_", 1)[0] if "_" in f.stem else f.stem
        with f.open(newline="", encoding="utf-8") as fh:
            for i, row in enumerate(csv.reader(fh)):
                if len(row) != 6 or row[5].strip() not in "ABCD" or not row[5].strip():
                    raise InputError(f"{f} row {i + 1}: expected question,A,B,C,D,letter")
                options = row[1:5]
                items.append(Item(id=f"{subject}/{i}", benchmark="mmlu", task=subject,
                                  question=_choice_question(row[0], options),
                                  gold=row[5].strip(), fmt="choice", options=options,
                                  meta={"stem": row[0], "file": f.name}))
    return items


def load_medmcqa(path: Path) -> list[Item]:
    """MedMCQA JSON lines; `cop` is the correct option 1-4 (mapped to A-D). Task =
    subject_name."""
    items = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                options = [row["opa"], row["opb"], row["opc"], row["opd"]]
                gold = "ABCD"[int(row["cop"]) - 1]
            except (json.JSONDecodeError, KeyError, ValueError, IndexError) as e:
                raise InputError(f"{path} line {n}: not a MedMCQA record ({e})") from None
            items.append(Item(id=str(row.get("id", n)), benchmark="medmcqa",
                              task=row.get("subject_name") or "unknown",
                              question=_choice_question(row["question"], options), gold=gold,
                              fmt="choice", options=options,
                              meta={"stem": row["question"], "choice_type": row.get("choice_type")}))
    return items


def load_pubmedqa(path: Path) -> list[Item]:
    """PubMedQA labelled set (`ori_pqal.json`, or the same layout): question only
    (reasoning-required setting, no abstract given); gold = final_decision."""
    data = _read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected {{pmid: {{QUESTION, final_decision, ...}}}}")
    items = []
    for pmid, rec in data.items():
        if "QUESTION" not in rec or "final_decision" not in rec:
            raise InputError(f"{path} record {pmid}: needs QUESTION and final_decision")
        items.append(Item(id=str(pmid), benchmark="pubmedqa", task="pubmedqa",
                          question=f"{rec['QUESTION'].strip()}\n{INSTRUCTIONS['yesnomaybe']}",
                          gold=rec["final_decision"].strip().lower(), fmt="yesnomaybe",
                          meta={"pmid": pmid, "year": rec.get("YEAR")}))
    return items


def load_bioasq(path: Path) -> list[Item]:
    """BioASQ Task B golden files: yes/no, factoid and list questions (summary is skipped:
    it has no automatic measure). A folder loads every `*.json` below it. Task = `yesno`,
    `factoid` or `list`; `meta["documents"]` holds the gold PMIDs (document recall and MAP)."""
    files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
    if not files:
        raise InputError(f"{path} has no BioASQ .json files")
    items: list[Item] = []
    seen: set[str] = set()
    for f in files:
        data = _read_json(f)
        if not isinstance(data, dict) or "questions" not in data:
            raise InputError(f"{f}: expected {{\"questions\": [...]}} (BioASQ golden layout)")
        for q in data["questions"]:
            qtype = q.get("type")
            if qtype not in ("yesno", "factoid", "list") or q["id"] in seen:
                continue
            seen.add(q["id"])
            gold = q.get("exact_answer")
            if qtype == "yesno":
                gold = str(gold).strip().lower()
            items.append(Item(id=q["id"], benchmark="bioasq", task=qtype,
                              question=f"{q['body'].strip()}\n{INSTRUCTIONS[qtype]}", gold=gold,
                              fmt=qtype, meta={"file": f.name, "documents": gold_pmids(q)}))
    return items
