"""Run one configuration over a list of items: answer, score, record, resume.

The harness takes any callable `question -> Answer` (the CLI passes a real Agent's
`answer`; tests may pass anything that returns an object with Answer's fields). Per
configuration it appends one JSON line per question to `results.jsonl` as soon as the
question is done, so an interrupted run loses nothing; a later run with the same
configuration hash (its cache key: settings, model, code, stores, index; see
`evaluation.config`) skips every question already answered without error, with the same
question text and gold answer (`force` redoes them). Answers recorded in a sibling folder
under the same key (the same configuration spelled another way) are reused too. A question that raises or exceeds the timeout is recorded with its
error and score 0, and the run continues; only a `ConfigError` (a broken set-up that
would fail every question) stops the configuration, after recording that question.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from biorag.contracts.errors import ConfigError
from evaluation import geneturing2025
from evaluation.benchmarks import Item
from evaluation.config import Configuration
from evaluation.scoring import Judge, Scored, score_answer

log = logging.getLogger(__name__)
AnswerFn = Callable[[str], Any]
RESULTS = "results.jsonl"
NOT_RECORDED = "not recorded"


class QuestionTimeout(Exception):
    def __init__(self, message: str, partial: list[Any] | None = None):
        super().__init__(message)
        #: trace events the question emitted before the deadline (see check_deadline)
        self.partial = partial or []


_deadline = threading.local()
#: timed-out calls still running (stopping at their next step); see wait_for_stragglers
_STRAGGLERS: set[threading.Thread] = set()
_STRAGGLERS_LOCK = threading.Lock()


def check_deadline(_event: Any = None) -> None:
    """Cooperative cancellation, usable as the agent's `on_event` hook: raises
    QuestionTimeout in a question's thread once its deadline has passed, so a timed-out
    question stops at its next step instead of keeping the (shared) model busy."""
    if _event is not None and getattr(_deadline, "events", None) is not None:
        _deadline.events.append(_event)
    at = getattr(_deadline, "at", None)
    if at is not None and time.monotonic() > at:
        raise QuestionTimeout("cancelled at the question deadline")


def call_with_timeout(fn: AnswerFn, question: str, timeout: float | None) -> Any:
    """Run fn(question) in a daemon thread and wait at most `timeout` seconds.

    Python cannot kill a thread: on timeout the caller moves on at once; the call
    stops at its next `check_deadline` (if `fn` wires it in, as the CLI does for the
    agent) or else runs to completion in the background, its result discarded."""
    if not timeout:
        return fn(question)
    box: dict[str, Any] = {}
    events: list[Any] = []

    def run() -> None:
        _deadline.at = time.monotonic() + timeout
        _deadline.events = events
        try:
            box["value"] = fn(question)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    t = threading.Thread(target=run, daemon=True, name="eval-question")
    t.start()
    t.join(timeout)
    if t.is_alive():
        with _STRAGGLERS_LOCK:
            _STRAGGLERS.add(t)
        raise QuestionTimeout(f"timed out after {timeout:g} s", partial=list(events))
    if "error" in box:
        raise box["error"]
    return box["value"]


def wait_for_stragglers(max_wait: float = 60.0) -> int:
    """Join timed-out calls that are still running (they stop at their next step);
    return how many are left after `max_wait` seconds. Run after each configuration so
    stragglers do not compete with the next one (the CLI also shares one LLM object
    between configurations, so a straggler's model call and the next one serialise)."""
    deadline = time.monotonic() + max_wait
    with _STRAGGLERS_LOCK:
        threads = list(_STRAGGLERS)
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    with _STRAGGLERS_LOCK:
        _STRAGGLERS.difference_update({t for t in threads if not t.is_alive()})
        return len(_STRAGGLERS)


def _dump(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    return obj


def trace_facts(trace: list[Any]) -> tuple[list[str], list[str]]:
    """(tools called, replay misses) from an answer's trace: every retrieve step's
    retriever, and the retrieve steps whose error says the request was not recorded."""
    tools, misses = [], []
    for ev in trace:
        ev = _dump(ev)
        if ev.get("step") != "retrieve":
            continue
        name = ev.get("retriever") or "?"
        tools.append(name)
        if NOT_RECORDED in (ev.get("error") or "").lower():
            misses.append(f"{name}: {ev.get('query') or ''}".strip())
    return tools, misses


def build_row(item: Item, config: Configuration, answer: Any | None, latency_s: float,
              error: str | None, judge: Judge | None, partial: list[Any] | None = None) -> dict[str, Any]:
    """One results.jsonl line. Without an answer (error/timeout) the trace is whatever
    the question emitted before it stopped (`partial`), so a timeout can be diagnosed."""
    row: dict[str, Any] = {
        "id": item.id, "benchmark": item.benchmark, "task": item.task,
        "question": item.question, "gold": item.gold,
        "config": config.name, "config_hash": config.hash,
        "latency_s": round(latency_s, 3),
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if item.meta.get("documents") is not None:  # BioASQ: document recall and MAP (evaluation/bioasq_scores.py)
        row["gold_documents"] = item.meta["documents"]
    if answer is None:
        trace = [_dump(e) for e in partial or []]
        tools, misses = trace_facts(trace)
        row.update(answer=None, prediction=None, score=0.0, metrics={},
                   rounds=max((e.get("round", 0) for e in trace), default=0), sufficient=False,
                   tools=tools, replay_misses=misses, llm_ms=0.0, citations=[], trace=trace, error=error)
        return row
    text = getattr(answer, "answer", "") or ""
    trace = [_dump(e) for e in (getattr(answer, "trace", None) or [])]
    tools, misses = trace_facts(trace)
    timings = _dump(getattr(answer, "timings", None)) or {}
    try:
        if item.fmt == geneturing2025.FMT:
            pred, value = geneturing2025.score(item.task, text, item.gold)
            scored = Scored(pred, value, rule=geneturing2025.FMT)
        else:
            scored = score_answer(item.fmt, item.task, item.question, text, item.gold, item.options, judge)
        score, prediction, metrics, rule, score_error = (
            scored.score, scored.prediction, scored.metrics, scored.rule, None)
    except Exception as e:  # a judge failing must not lose the answer
        score, prediction, metrics, rule, score_error = 0.0, None, {}, "", f"scoring failed: {e}"
    row.update(
        answer=text, prediction=prediction, score=score, metrics=metrics, rule=rule,
        rounds=getattr(answer, "rounds", 0), sufficient=getattr(answer, "sufficient", False),
        tools=tools, replay_misses=misses, llm_ms=timings.get("llm_ms", 0.0),
        agent_ms=timings.get("total_ms", 0.0),
        citations=[_dump(c) for c in (getattr(answer, "citations", None) or [])],
        trace=trace, error=error or score_error,
    )
    return row


def read_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of a results.jsonl; a torn last line (killed mid-write) is ignored."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def latest_rows(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Last row per question id (a retried question supersedes its error row)."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        out[r["id"]] = r
    return out


@dataclass
class RunResult:
    config: Configuration
    out_dir: Path
    rows: list[dict[str, Any]] = field(default_factory=list)
    answered: int = 0
    skipped: int = 0
    errors: int = 0


def run_configuration(items: list[Item], answer_fn: AnswerFn, config: Configuration,
                      out_dir: str | Path, workers: int = 1, timeout: float | None = None,
                      force: bool = False, judge: Judge | None = None,
                      progress: bool = True, shared_from: str | Path | None = None) -> RunResult:
    """Answer every item not yet answered under `config.hash`; return all rows (in
    item order) for this item list. Writes `<out_dir>/results.jsonl` and `config.json`.
    `shared_from`: the evaluation folder whose other configuration folders may hold
    answers under the same key (another spelling of this configuration)."""
    if workers < 1:
        raise ValueError("workers must be >= 1")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({
        "name": config.name, "description": config.description, "hash": config.hash, "key": config.hash,
        "identity": config.identity, "switches": config.switches, "settings": config.settings.redacted(),
    }, indent=2, default=str))
    path = out / RESULTS
    wanted = {it.id: it for it in items}
    existing = [r for r in read_rows(path) if r.get("config_hash") == config.hash]
    if force:  # drop this item list's rows; keep others (e.g. a different --limit)
        existing = [r for r in existing if r["id"] not in wanted]
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in existing))
    done = {i: r for i, r in latest_rows(existing).items() if i in wanted and _same_question(r, wanted[i])
            and not r.get("error")}
    if not force and shared_from is not None:
        shared = _shared_rows(Path(shared_from), out, config, {i: it for i, it in wanted.items() if i not in done})
        if shared:
            with path.open("a", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in shared.values())
            done.update(shared)
    todo = [it for it in items if it.id not in done]
    result = RunResult(config, out, skipped=len(done))

    lock = threading.Lock()
    fresh: dict[str, dict[str, Any]] = {}
    bar = _progress(len(items), len(done), config.name, progress)
    running = [sum(r["score"] for r in done.values()), len(done)]

    fatal: list[ConfigError] = []
    first = [True]  # the first question this process answers for the configuration warms it up

    def one(item: Item) -> None:
        if fatal:  # the configuration is broken: every further question would fail alike
            return
        with lock:
            warmup, first[0] = first[0], False
        t = time.perf_counter()
        answer, error, partial = None, None, None
        try:
            answer = call_with_timeout(answer_fn, item.question, timeout)
        except QuestionTimeout as e:
            error, partial = f"QuestionTimeout: {e}", e.partial
        except ConfigError as e:
            fatal.append(e)
            error = f"{type(e).__name__}: {e}"
        except Exception as e:  # recorded, never fatal
            error = f"{type(e).__name__}: {e}"
        row = build_row(item, config, answer, time.perf_counter() - t, error, judge, partial)
        if warmup:
            row["warmup"] = True  # loads models and stores: left out of latency figures (evaluation.spread)
        with lock:
            with path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            fresh[item.id] = row
            running[0] += row["score"]
            running[1] += 1
            result.errors += bool(row["error"])
            bar.update(1)
            bar.set_postfix(score=f"{running[0] / running[1]:.3f}", errors=result.errors)

    try:
        if workers == 1:
            for it in todo:
                one(it)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="eval") as pool:
                for fut in as_completed([pool.submit(one, it) for it in todo]):
                    fut.result()
    finally:
        bar.close()
        left = wait_for_stragglers()
        if left:
            log.warning("%d timed-out question(s) of %s still running", left, config.name)
    if fatal:
        raise ConfigError(f"configuration '{config.name}' cannot answer questions: {fatal[0]}")
    result.answered = len(fresh)
    merged = {**done, **fresh}
    result.rows = [merged[it.id] for it in items if it.id in merged]
    return result


def _same_question(row: dict[str, Any], item: Item) -> bool:
    return row.get("question") == item.question and row.get("gold") == item.gold


def _shared_rows(folder: Path, out: Path, config: Configuration,
                 wanted: dict[str, Item]) -> dict[str, dict[str, Any]]:
    """Answers under the same key in sibling configuration folders (another spelling of
    the same configuration), relabelled for this one."""
    found: dict[str, dict[str, Any]] = {}
    if not wanted:
        return found
    for other in sorted(folder.glob("*/" + RESULTS)):
        if other.parent.resolve() == out.resolve():
            continue
        for i, r in latest_rows([r for r in read_rows(other) if r.get("config_hash") == config.hash]).items():
            if i in wanted and i not in found and not r.get("error") and _same_question(r, wanted[i]):
                found[i] = {**r, "config": config.name, "reused_from": other.parent.name}
    return found


class _NoBar:
    def update(self, n: int) -> None: ...
    def set_postfix(self, **kw: Any) -> None: ...
    def close(self) -> None: ...


def _progress(total: int, initial: int, name: str, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=name, unit="q", dynamic_ncols=True)
