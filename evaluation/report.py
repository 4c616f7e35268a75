"""Summaries of finished runs: scores.csv, report.md and PNG plots.

Input is the list of `RunResult`s of one benchmark (one per configuration); output
goes next to the configuration folders. Everything is recomputed from results.jsonl
rows, so `biorag eval report DIR` can rebuild a report at any time.

Every score comes with its spread (`evaluation.spread`): n, a 95 % interval (Wilson for
0/1 scores, a seeded bootstrap otherwise) and a warning for tasks under
`FEW_QUESTIONS` questions. Latency figures leave out the warm-up questions (the first
question of a configuration in a process, which loads models and stores) and say how
many they left out.
"""

from __future__ import annotations

import csv
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluation.bioasq_scores import bioasq_notes
from evaluation.references import MISSING_NOTE, Reference, references_for
from evaluation.scoring import DECLARED_RULES, EXTRACTION_RULES
from evaluation.spread import FEW_QUESTIONS, interval, timed_rows

MACRO = "macro average"
MICRO = "all questions"


@dataclass
class TaskStats:
    task: str
    n: int
    score: float
    errors: int
    replay_misses: int
    with_misses: int
    mean_rounds: float
    mean_latency_s: float
    median_latency_s: float
    strict: float | None = None
    lenient: float | None = None
    mrr: float | None = None
    low: float = 0.0  # 95 % interval of `score`
    high: float = 0.0
    interval_method: str = ""
    warmup: int = 0  # warm-up questions left out of the latency figures


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def task_stats(rows: list[dict[str, Any]], task: str) -> TaskStats:
    timed, warmup = timed_rows(rows)
    lat = [r["latency_s"] for r in timed]
    scores = [r["score"] for r in rows]
    low, high, method = interval(scores)
    st = TaskStats(
        task=task, n=len(rows), score=_mean(scores),
        errors=sum(1 for r in rows if r.get("error")),
        replay_misses=sum(len(r.get("replay_misses") or []) for r in rows),
        with_misses=sum(1 for r in rows if r.get("replay_misses")),
        mean_rounds=_mean([r.get("rounds", 0) for r in rows]),
        mean_latency_s=_mean(lat), median_latency_s=statistics.median(lat) if lat else 0.0,
        low=low, high=high, interval_method=method, warmup=warmup,
    )
    if rows and any(r.get("metrics") for r in rows):
        for key in ("strict", "lenient", "mrr"):
            if any(key in (r.get("metrics") or {}) for r in rows):
                setattr(st, key, _mean([(r.get("metrics") or {}).get(key, 0.0) for r in rows]))
    return st


def summarise(rows: list[dict[str, Any]]) -> list[TaskStats]:
    """Per-task stats in first-seen task order, then the macro and micro averages."""
    tasks: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        tasks.setdefault(r["task"], []).append(r)
    out = [task_stats(rs, t) for t, rs in tasks.items()]
    if out:
        micro = task_stats(rows, MICRO)
        macro = TaskStats(**{**micro.__dict__, "task": MACRO, "score": _mean([s.score for s in out])})
        # the macro average's interval: the mean of the per-task bounds is no interval; say none
        macro.low, macro.high, macro.interval_method = macro.score, macro.score, ""
        out += [macro, micro]
    return out


CSV_FIELDS = ["config", "config_hash", "benchmark", "task", "n", "score", "ci95_low", "ci95_high", "ci_method",
              "errors", "replay_misses", "questions_with_misses", "mean_rounds", "mean_latency_s",
              "median_latency_s", "warmup_excluded", "strict", "lenient", "mrr"]


def _csv_rows(run, benchmark: str) -> list[dict[str, Any]]:
    return [{
        "config": run.config.name, "config_hash": run.config.hash, "benchmark": benchmark,
        "task": s.task, "n": s.n, "score": round(s.score, 4),
        "ci95_low": round(s.low, 4) if s.interval_method else "", "ci95_high": round(s.high, 4) if s.interval_method else "",
        "ci_method": s.interval_method, "errors": s.errors, "warmup_excluded": s.warmup,
        "replay_misses": s.replay_misses, "questions_with_misses": s.with_misses,
        "mean_rounds": round(s.mean_rounds, 2), "mean_latency_s": round(s.mean_latency_s, 2),
        "median_latency_s": round(s.median_latency_s, 2),
        "strict": _r(s.strict), "lenient": _r(s.lenient), "mrr": _r(s.mrr),
    } for s in summarise(run.rows)]


def _r(x: float | None) -> float | str:
    return "" if x is None else round(x, 4)


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        w.writeheader()
        w.writerows(rows)


def write_all(runs: list, benchmark: str, out_dir: str | Path, questions: str = "",
              plots: bool = True, notes: list[str] | None = None,
              references: list[Reference] | None = None) -> dict[str, Path]:
    """Write per-config scores.csv, and the combined scores.csv, report.md, PNGs;
    `references`: the reference columns, in place of the benchmark's published ones (which
    are of another question set, as GeneGPT's 2023 rows are for a GeneTuring-2025 file)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    combined: list[dict[str, Any]] = []
    for run in runs:
        rows = _csv_rows(run, benchmark)
        write_csv(Path(run.out_dir) / "scores.csv", rows)
        combined += rows
    files = {"scores.csv": out / "scores.csv", "report.md": out / "report.md"}
    write_csv(files["scores.csv"], combined)
    if plots and runs:
        files["scores.png"] = plot_scores(runs, out / "scores.png", benchmark)
        files["latency.png"] = plot_latency(runs, out / "latency.png", benchmark)
    if benchmark == "bioasq":  # BioASQ's own measures, beside the per-task scores
        notes = [*(notes or []), *bioasq_notes(runs, out)]
    files["report.md"].write_text(render_markdown(runs, benchmark, questions, plots=plots, notes=notes,
                                                  references=references))
    return files


# ---- markdown ----------------------------------------------------------------------------


def _score_cell(s: TaskStats) -> str:
    if not s.interval_method:
        return _fmt(s.score)
    return f"{s.score:.2f} [{s.low:.2f}–{s.high:.2f}]"


def _fmt(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    esc = [[c.replace("|", "\\|").replace("\n", " ") for c in row] for row in rows]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in esc]
    return "\n".join(lines)


def render_markdown(runs: list, benchmark: str, questions: str = "", plots: bool = True,
                    notes: list[str] | None = None, references: list[Reference] | None = None) -> str:
    refs = references_for(benchmark) if references is None else references
    stats = {run.config.name: {s.task: s for s in summarise(run.rows)} for run in runs}
    tasks: list[str] = []
    for run in runs:
        for s in summarise(run.rows):
            if s.task not in tasks and s.task not in (MACRO, MICRO):
                tasks.append(s.task)
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [f"# BioRAG evaluation: {benchmark}", "",
             f"Generated {now}" + (f" from `{questions}`" if questions else "") + ".", ""]
    if notes:
        parts += [f"- {n}" for n in notes] + [""]

    parts += ["## Configurations", ""]
    parts.append(_table(
        ["config", "what", "hash", "preset / planner", "sources on", "components off", "model",
         "tool I/O", "answered", "errors"],
        [[run.config.name, run.config.description or "-", f"`{run.config.hash}`",
          f"{run.config.switches.get('preset', '?')} / {run.config.switches.get('planner', '?')}",
          ", ".join(run.config.switches.get("sources", [])) or "-",
          ", ".join(run.config.switches.get("components_off", [])) or "-",
          _model_str(run.config.identity.get("model", {})), _tool_str(run.config.identity.get("tool_io", {})),
          str(len(run.rows)), str(sum(1 for r in run.rows if r.get("error")))] for run in runs]))

    parts += ["", "## Scores per task", "",
              "Configurations side by side, each score with its 95 % interval in brackets (Wilson for 0/1 "
              "scores, bootstrap otherwise); reference columns are published figures (sources below). "
              "n = questions per task in this run.", ""]
    header = ["task", "n"] + [run.config.name for run in runs] + [ref.column for ref in refs]
    body = []
    for task in tasks + [MACRO, MICRO]:
        n = max((stats[r.config.name].get(task).n for r in runs if task in stats[r.config.name]), default=0)
        row = [f"**{task}**" if task in (MACRO, MICRO) else task, str(n)]
        row += [_score_cell(stats[r.config.name][task]) if task in stats[r.config.name] else "-" for r in runs]
        for ref in refs:
            key = {MACRO: "macro", MICRO: "overall"}.get(task, task)
            val = ref.values.get(key)
            if val is None and task == MACRO and len(ref.values) == len(tasks) and all(t in ref.values for t in tasks):
                val = _mean([ref.values[t] for t in tasks])
            row.append(_fmt(val))
        body.append(row)
    parts.append(_table(header, body))
    few = sorted({f"{t} (n={s.n})" for run in runs for t, s in stats[run.config.name].items()
                  if t not in (MACRO, MICRO) and s.n < FEW_QUESTIONS})
    if few:
        parts += ["", f"**Warning: fewer than {FEW_QUESTIONS} questions per task** in {', '.join(few)}: the "
                  "intervals are wide, and differences between configurations inside them mean nothing."]

    factoid = [(r, stats[r.config.name].get("factoid")) for r in runs]
    if any(s and s.strict is not None for _, s in factoid):
        parts += ["", "### BioASQ factoid", ""]
        parts.append(_table(["config", "n", "strict acc", "lenient acc", "MRR"],
                            [[r.config.name, str(s.n), _fmt(s.strict), _fmt(s.lenient), _fmt(s.mrr)]
                             for r, s in factoid if s]))

    parts += ["", "## Efficiency and tool use", ""]
    eff = []
    for run in runs:
        s = stats[run.config.name].get(MICRO)
        if not s:
            continue
        lat = sorted(r["latency_s"] for r in timed_rows(run.rows)[0])
        p90 = lat[min(len(lat) - 1, int(0.9 * len(lat)))] if lat else 0.0
        tools = Counter(t for r in run.rows for t in r.get("tools") or [])
        eff.append([run.config.name, _fmt(s.mean_rounds), _fmt(s.mean_latency_s, 1),
                    _fmt(s.median_latency_s, 1), _fmt(p90, 1), str(s.warmup), str(s.replay_misses),
                    str(s.with_misses), str(s.errors),
                    ", ".join(f"{k} {v}" for k, v in tools.most_common()) or "-"])
    parts.append(_table(["config", "mean rounds", "mean latency s", "median s", "p90 s", "warm-up excluded",
                         "replay misses", "questions with misses", "errors", "tool calls"], eff))
    parts += ["", "Latency leaves out each configuration's warm-up question (the first one answered in a "
              "process, which loads the model and stores); its count is the warm-up column."]
    if plots:
        parts += ["", "![score per task per configuration](scores.png)", "",
                  "![latency distribution per configuration](latency.png)"]

    parts += ["", "## Scoring rules", ""]
    if benchmark in ("geneturing", "genehop"):
        parts.append("GeneTuring/GeneHop rules as stated in the benchmark PROVENANCE note (GeneGPT's "
                     "evaluation): `Answer: ` removed, exact case-sensitive match; chromosome tasks use "
                     "the last token with `chr` prepended; recall for gene-disease and disease-location "
                     "lists; 0.5 for the right chromosome with the wrong position; Latin species names and "
                     "Yes/No mapped.")
        parts.append("")
        for task, rule in DECLARED_RULES.items():
            if benchmark == "genehop":
                parts.append(f"- **{task}**: {rule}")
        if any(r.get("rule") == "geneturing2025" for run in runs for r in run.rows):
            parts.append("- GeneTuring-2025 modules (CSV layout): the per-module rules of "
                         "`evaluation/geneturing2025.py` (its module docstring).")
        parts.append(f"- prediction extraction: {EXTRACTION_RULES['short']}.")
    else:
        parts.append(f"- extraction: {_extraction_note(benchmark)}")

    parts += ["", "## Reference sources", ""]
    parts += [f"- **{ref.column}**: {ref.source}" for ref in refs] or ["- none for this benchmark"]
    parts.append(f"- {MISSING_NOTE}")

    parts += ["", "## Per question", "",
              "Each cell: score · rounds · latency s · replay misses (E = error), then the prediction.", ""]
    ids: list[str] = []
    by_cfg = {}
    for run in runs:
        by_cfg[run.config.name] = {r["id"]: r for r in run.rows}
        ids += [r["id"] for r in run.rows if r["id"] not in ids]
    prow = []
    for qid in ids:
        first = next(by_cfg[r.config.name][qid] for r in runs if qid in by_cfg[r.config.name])
        row = [qid, _short(first["gold"], 40)]
        for run in runs:
            r = by_cfg[run.config.name].get(qid)
            if r is None:
                row.append("-")
                continue
            cell = f"{r['score']:.2f} · {r.get('rounds', 0)} · {r['latency_s']:.1f} · {len(r.get('replay_misses') or [])}"
            if r.get("error"):
                cell += " E"
            pred = _short(r.get("prediction"), 40)
            row.append(f"{cell}<br>`{pred}`" if pred else f"{cell}<br>(no prediction)")
        prow.append(row)
    parts.append(_table(["id", "gold"] + [r.config.name for r in runs], prow))
    errs = [(run.config.name, r["id"], r["error"]) for run in runs for r in run.rows if r.get("error")]
    if errs:
        parts += ["", "### Errors", ""]
        parts += [f"- {c} / {q}: {_short(e, 200)}" for c, q, e in errs]
    return "\n".join(parts) + "\n"


def _extraction_note(benchmark: str) -> str:
    return {"mmlu": EXTRACTION_RULES["choice"], "medmcqa": EXTRACTION_RULES["choice"],
            "pubmedqa": EXTRACTION_RULES["yesnomaybe"],
            "bioasq": f"yes/no: {EXTRACTION_RULES['yesno']}; factoid: {EXTRACTION_RULES['factoid']}; "
                      "factoid matching is case-insensitive equality with any gold synonym"}.get(benchmark, "")


def _short(x: Any, n: int) -> str:
    s = x if isinstance(x, str) else ("" if x is None else str(x))
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _model_str(m: dict[str, Any]) -> str:
    parts = [m.get("backend", "?"), m.get("model", "?")]
    if m.get("file"):
        parts.append(str(m["file"]))
    return " / ".join(parts)


def _tool_str(t: dict[str, Any]) -> str:
    s = t.get("mode", "?")
    if t.get("cassette"):
        s += f" {t['cassette']}"
    if t.get("cassette_sha256"):
        s += f" ({t['cassette_sha256'][:12]})"
    return s


# ---- plots -------------------------------------------------------------------------------


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_scores(runs: list, path: Path, benchmark: str) -> Path:
    """Grouped bars: one group per task (plus macro average), one bar per configuration."""
    plt = _pyplot()
    per = {run.config.name: {s.task: s.score for s in summarise(run.rows)} for run in runs}
    tasks = [t for t in dict.fromkeys(r["task"] for run in runs for r in run.rows)] + [MACRO]
    width = 0.8 / max(1, len(runs))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(tasks) + 2), 4.5))
    for i, run in enumerate(runs):
        xs = [j + i * width for j in range(len(tasks))]
        ax.bar(xs, [per[run.config.name].get(t, 0.0) for t in tasks], width, label=run.config.name)
    ax.set_xticks([j + width * (len(runs) - 1) / 2 for j in range(len(tasks))])
    ax.set_xticklabels(tasks, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    ax.set_title(f"{benchmark}: score per task per configuration")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_latency(runs: list, path: Path, benchmark: str) -> Path:
    """Latency distribution per configuration (box plot of seconds per question)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(runs) + 2), 4))
    data = [[r["latency_s"] for r in timed_rows(run.rows)[0]] or [0.0] for run in runs]
    ax.boxplot(data)
    ax.set_xticks(range(1, len(runs) + 1))
    ax.set_xticklabels([run.config.name for run in runs])
    ax.set_ylabel("seconds per question")
    ax.set_title(f"{benchmark}: latency per configuration")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
