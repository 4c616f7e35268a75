"""Harness mechanics with the real Agent (rules planner) over real NCBI gene records:
resume never answers a question twice, --force redoes, failures and timeouts are
recorded while the run continues, replay misses are counted, reports are written."""

import csv
import json
import threading
import time
from pathlib import Path

import pytest

from biorag.contracts.errors import ConfigError, NotRecorded
from biorag.loop.agent import Agent
from biorag.settings import load_settings
from evaluation.benchmarks import load_benchmark
from evaluation.config import Variant, build_configuration
from evaluation.harness import read_rows, run_configuration
from evaluation.report import write_all
from tests.spine.records import GENES, RecordRetriever

DATA = Path(__file__).parents[1] / "data" / "evaluation"


class ReplayedGenes(RecordRetriever):
    """Real gene records; anything else is 'not recorded', like the replay store."""

    def search(self, request):
        query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
        hits = super().search(request)
        if not hits:
            raise NotRecorded("gene", f"esearch gene '{query}' not recorded in the cassette")
        return hits


class Counting:
    """question -> Answer through a real Agent, counting calls per question."""

    def __init__(self, agent, fail_on=(), slow_on=(), sleep=2.0):
        self.agent, self.fail_on, self.slow_on, self.sleep = agent, fail_on, slow_on, sleep
        self.calls: dict[str, int] = {}
        self.lock = threading.Lock()

    def __call__(self, question):
        with self.lock:
            self.calls[question] = self.calls.get(question, 0) + 1
        if any(s in question for s in self.fail_on):
            raise RuntimeError("boom")
        if any(s in question for s in self.slow_on):
            time.sleep(self.sleep)
        return self.agent.answer(question)


@pytest.fixture()
def setup():
    settings = load_settings(sets=["planner=rules"], disable=["dbsnp", "omim", "blast", "pubmed", "web"])
    agent = Agent(settings, llm=None, retrievers={"gene": ReplayedGenes("gene", GENES)})
    items = load_benchmark("geneturing", DATA / "geneturing_dev.json", tasks=["Gene alias"], limit=3)
    config = build_configuration(Variant("full", "full system"), settings, None)
    return agent, items, config


def test_resume_answers_no_question_twice_and_force_redoes(setup, tmp_path):
    agent, items, config = setup
    fn = Counting(agent)
    first = run_configuration(items[:2], fn, config, tmp_path, progress=False)
    assert first.answered == 2 and first.skipped == 0
    # an interrupted run followed by a larger one: only the new question is answered
    second = run_configuration(items, fn, config, tmp_path, progress=False)
    assert second.answered == 1 and second.skipped == 2
    assert all(n == 1 for n in fn.calls.values()) and len(fn.calls) == 3
    third = run_configuration(items, fn, config, tmp_path, progress=False)
    assert third.answered == 0 and third.skipped == 3 and sum(fn.calls.values()) == 3
    assert [r["id"] for r in third.rows] == [it.id for it in items]
    forced = run_configuration(items, fn, config, tmp_path, force=True, progress=False)
    assert forced.answered == 3 and all(n == 2 for n in fn.calls.values())
    rows = read_rows(tmp_path / "results.jsonl")
    assert len(rows) == 3  # --force replaced the rows instead of appending duplicates


def test_rows_carry_scores_trace_tools_and_replay_misses(setup, tmp_path):
    agent, items, config = setup
    run = run_configuration(items, Counting(agent), config, tmp_path, progress=False)
    by_q = {r["question"]: r for r in run.rows}
    lmp10 = by_q["What is the official gene symbol of LMP10?"]
    assert lmp10["prediction"] == "PSMB10" and lmp10["score"] == 1.0 and lmp10["gold"] == "PSMB10"
    assert lmp10["tools"] == ["gene"] and lmp10["replay_misses"] == [] and lmp10["rounds"] >= 1
    assert [e["step"] for e in lmp10["trace"]][:3] == ["select", "rewrite", "retrieve"]
    assert lmp10["config_hash"] == config.hash and lmp10["latency_s"] >= 0
    imd20 = by_q["What is the official gene symbol of IMD20?"]  # FCGR3A is not in the records
    assert imd20["score"] == 0.0 and imd20["replay_misses"] and "gene" in imd20["replay_misses"][0]
    assert imd20["error"] is None  # a tool miss is not a question failure


def test_failure_and_timeout_are_recorded_and_the_run_continues(setup, tmp_path):
    agent, items, config = setup
    fn = Counting(agent, fail_on=("SNAT6",), slow_on=("IMD20",), sleep=3.0)
    run = run_configuration(items, fn, config, tmp_path, workers=2, timeout=1.0, progress=False)
    by_q = {r["question"]: r for r in run.rows}
    assert run.errors == 2 and len(run.rows) == 3
    # the timed-out call was waited for before the run returned (no straggler left behind)
    assert not [t for t in threading.enumerate() if t.name == "eval-question"]
    assert "RuntimeError: boom" in by_q["What is the official gene symbol of SNAT6?"]["error"]
    assert "timed out after 1 s" in by_q["What is the official gene symbol of IMD20?"]["error"]
    assert by_q["What is the official gene symbol of LMP10?"]["score"] == 1.0
    # resuming retries only the failed questions
    fixed = Counting(agent)
    again = run_configuration(items, fixed, config, tmp_path, progress=False)
    assert again.answered == 2 and again.skipped == 1 and set(fixed.calls) == {
        "What is the official gene symbol of SNAT6?", "What is the official gene symbol of IMD20?"}
    assert again.errors == 0 and len(again.rows) == 3


def test_config_error_stops_the_configuration(setup, tmp_path):
    _, items, config = setup

    def broken(question):
        raise ConfigError("unknown source 'gene'")

    with pytest.raises(ConfigError, match="cannot answer questions"):
        run_configuration(items, broken, config, tmp_path, progress=False)
    assert len(read_rows(tmp_path / "results.jsonl")) == 1  # recorded, then stopped


def test_report_csv_and_plots(setup, tmp_path):
    agent, items, config = setup
    settings_d1 = load_settings(sets=["planner=rules"], disable=["gene", "omim", "blast", "pubmed", "web"])
    d1 = build_configuration(Variant("D1", "no Gene database", disable=["gene"]), settings_d1, None)
    assert d1.hash != config.hash
    runs = [
        run_configuration(items, Counting(agent), config, tmp_path / config.dirname, progress=False),
        run_configuration(items, Agent(settings_d1, llm=None, retrievers={"dbsnp": RecordRetriever("dbsnp", [])}).answer, d1,
                          tmp_path / d1.dirname, progress=False),
    ]
    files = write_all(runs, "geneturing", tmp_path, questions="geneturing_dev.json")
    for name in ("scores.csv", "report.md", "scores.png", "latency.png"):
        assert files[name].exists() and files[name].stat().st_size > 0
    assert files["scores.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(files["scores.csv"].open()))
    alias = {r["config"]: r for r in rows if r["task"] == "Gene alias"}
    assert float(alias["full"]["score"]) == pytest.approx(2 / 3, abs=1e-4)  # LMP10, SNAT6 in the records; IMD20 not
    assert float(alias["D1"]["score"]) == 0.0 and alias["D1"]["n"] == "3"
    assert int(alias["full"]["replay_misses"]) >= 1
    assert (tmp_path / config.dirname / "scores.csv").exists()
    assert json.loads((tmp_path / config.dirname / "config.json").read_text())["hash"] == config.hash
    md = files["report.md"].read_text()
    assert "| task | n | full | D1 | GeneGPT-slim (paper, 50/task)" in md
    assert "| Gene alias | 3 | 0.67 [0.21–0.94] | 0.00 [0.00–0.56] | 0.84 |" in md
    assert "replay misses" in md and "## Per question" in md


def test_timed_out_question_is_cancelled_at_its_next_step(setup):
    from evaluation.harness import QuestionTimeout, call_with_timeout, check_deadline

    agent, _, _ = setup
    steps_after_deadline = []

    def slow_events(ev):
        time.sleep(0.4)  # each agent step is slow
        try:
            check_deadline(ev)
        except QuestionTimeout:
            steps_after_deadline.append(ev.step)
            raise

    def fn(q):
        return agent.answer(q, on_event=slow_events)

    with pytest.raises(QuestionTimeout, match="timed out after 0.5 s") as exc:
        call_with_timeout(fn, "What is the official gene symbol of LMP10?", 0.5)
    assert [e.step for e in exc.value.partial] == ["select"]  # what it was doing when it ran out
    time.sleep(1.0)
    assert len(steps_after_deadline) == 1  # the agent stopped at the first step past the deadline
    check_deadline(None)  # the caller's own thread has no deadline
