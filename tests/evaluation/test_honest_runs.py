"""Evaluation results a researcher can trust: cache keys from content, honest labels and
exit codes, reports that merge, and scores with their spread.

The answers come from the real agent over real gene records (the rules planner, no LLM),
as in test_config_cli; the store whose build changes is a real SQLite store written by
`biorag.storage.sqlite_store.build_atomically`, the writer every local store uses.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biorag.contracts.errors import BioragError
from biorag.storage.sqlite_store import build_atomically, write_build_record
from cli.commands.evaluate import run_benchmark
from cli.main import app
from evaluation.spread import bootstrap, interval, wilson

DATA = Path(__file__).parents[1] / "data" / "evaluation"
QUESTIONS = DATA / "geneturing_dev.json"
BASE = dict(sets=["planner=rules"], disable=["omim", "blast", "pubmed", "web"],
            tasks=["Gene alias", "Gene location"], limit=2)


class CountingAgent:
    """The real agent over real gene records, counting the questions it is asked."""

    def __init__(self, first_delay: float = 0.0, fail: bool = False):
        self.calls = 0
        self.first_delay, self.fail = first_delay, fail

    def __call__(self, settings):
        from biorag.loop.agent import Agent
        from tests.spine.records import GENES, RecordRetriever

        rs = {"gene": RecordRetriever("gene", GENES), "dbsnp": RecordRetriever("dbsnp", [])}
        agent = Agent(settings, llm=None, retrievers={k: v for k, v in rs.items() if settings.sources[k].enabled})

        def answer(question: str):
            self.calls += 1
            if self.fail:
                raise ConnectionError("upstream unreachable")
            if self.calls == 1 and self.first_delay:
                time.sleep(self.first_delay)  # what loading a model costs the first question
            return agent.answer(question)

        return answer


def _configs(out: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in out.glob("*/config.json")}


def _gene_store(data_dir: Path, release: str) -> None:
    with build_atomically(data_dir / "gene_store.sqlite", "CREATE TABLE genes (gene_id INTEGER);") as con:
        write_build_record(con, {"inputs": {"gene_info": release}, "genes": 1})


def test_two_spellings_share_one_key_and_its_answers(tmp_path):
    agent = CountingAgent()
    run_benchmark("geneturing", QUESTIONS, **BASE, ablate=["C3"], out=tmp_path, answer_factory=agent, plots=False)
    asked = agent.calls
    assert asked == 4
    run_benchmark("geneturing", QUESTIONS, **BASE, ablate=["-self_eval"], out=tmp_path, answer_factory=agent,
                  plots=False)
    assert agent.calls == asked  # nothing asked again
    cfgs = _configs(tmp_path)
    keys = {name.split("__")[0]: c["key"] for name, c in cfgs.items()}
    assert keys["C3"] == keys["-self_eval"] and all(c["key"] == c["hash"] for c in cfgs.values())
    rows = [json.loads(x) for x in next(tmp_path.glob("-self_eval__*/results.jsonl")).read_text().splitlines()]
    assert len(rows) == 4 and all(r["config"] == "-self_eval" and r["reused_from"].startswith("C3__") for r in rows)


def test_a_changed_store_or_question_is_recomputed(tmp_path):
    data = tmp_path / "data"
    sets = [*BASE["sets"], f"data_dir={data}"]
    kw = {**BASE, "sets": sets, "out": tmp_path / "out", "plots": False}
    _gene_store(data, "2026-11-01")
    agent = CountingAgent()
    run_benchmark("geneturing", QUESTIONS, **kw, answer_factory=agent)
    first_key = next(iter(_configs(tmp_path / "out").values()))["key"]
    run_benchmark("geneturing", QUESTIONS, **kw, answer_factory=agent)
    assert agent.calls == 4  # same stores, same code: reused

    _gene_store(data, "2026-11-28")  # a new gene store build
    run_benchmark("geneturing", QUESTIONS, **kw, answer_factory=agent)
    assert agent.calls == 8
    keys = {c["key"] for c in _configs(tmp_path / "out").values()}
    assert first_key in keys and len(keys) == 2
    cfg = next(c for c in _configs(tmp_path / "out").values() if c["key"] != first_key)
    content = cfg["identity"]["content"]
    assert content["stores"]["gene_store"] not in ("absent", "") and content["code"]["package"]
    # the report shows the newest results under the name, once
    summary = [r for r in csv.DictReader((tmp_path / "out" / "scores.csv").open()) if r["task"] == "all questions"]
    assert [r["config_hash"] for r in summary] == [cfg["key"]]

    # the same id (the position in the task) with other words is another question
    bench = json.loads(QUESTIONS.read_text())
    bench["Gene alias"] = {f"{q} Answer with the symbol only.": a for q, a in bench["Gene alias"].items()}
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(bench))
    run_benchmark("geneturing", changed, **kw, answer_factory=agent)
    assert agent.calls == 10  # the two reworded alias questions, not the location ones


def test_labels_say_what_differs_from_the_full_system(tmp_path):
    agent = CountingAgent()
    run_benchmark("geneturing", QUESTIONS, **{**BASE, "disable": [*BASE["disable"], "self_eval"]},
                  ablate=["full", "D1"], out=tmp_path, answer_factory=agent, plots=False)
    cfgs = {name.split("__")[0]: c for name, c in _configs(tmp_path).items()}
    assert set(cfgs) == {"base", "D1"}  # never "full" for a system with parts switched off
    assert "no self_eval" in cfgs["base"]["description"] and "no omim" in cfgs["base"]["description"]
    assert "no gene" in cfgs["D1"]["description"] and "no self_eval" in cfgs["D1"]["description"]
    md = (tmp_path / "report.md").read_text()
    assert "full system" not in md and "no self_eval" in md


@pytest.mark.parametrize("spec,says", [
    ("M:Llama-3-70B-Instrcut", "unknown model 'Llama-3-70B-Instrcut'"),
    ("-self_evl", "unknown switch 'self_evl'"),
    ("D1+-nosuchsource", "unknown switch 'nosuchsource'"),
    ("M:/no/such/model.gguf", "no GGUF file at /no/such/model.gguf"),
])
def test_unknown_names_exit_2_before_any_question(tmp_path, spec, says):
    res = CliRunner().invoke(app, ["eval", "geneturing", "-q", str(QUESTIONS), "--ablate", spec, "-n", "1",
                                   "--out", str(tmp_path)])
    assert res.exit_code == 2, res.output
    assert says in res.output and "Traceback" not in res.output
    assert not list(tmp_path.glob("*/results.jsonl"))


def test_every_question_failing_is_a_failed_run(tmp_path):
    agent = CountingAgent(fail=True)
    with pytest.raises(BioragError) as err:
        run_benchmark("geneturing", QUESTIONS, **BASE, ablate=["full", "D1"], out=tmp_path, answer_factory=agent,
                      plots=False)
    assert err.value.exit_code == 1
    msg = str(err.value)
    assert "2 configuration(s) answered nothing" in msg and "all 4 questions failed" in msg
    assert "ConnectionError: upstream unreachable" in msg
    assert (tmp_path / "report.md").exists()  # the failures are reported, not hidden


def test_every_question_failing_exits_1_from_the_cli(tmp_path):
    """An unreachable model endpoint: every question errors, the exit code says so."""
    res = CliRunner().invoke(app, [
        "eval", "geneturing", "-q", str(QUESTIONS), "-t", "Gene alias", "-n", "2", "--no-plots",
        "--out", str(tmp_path / "out"), "--timeout", "20",
        "--set", "llm.backend=openai", "--set", "llm.base_url=http://127.0.0.1:9/v1", "--set", "planner=llm",
        "--set", f"data_dir={tmp_path / 'data'}", "--disable", "pubmed", "--disable", "web",
    ])
    assert res.exit_code == 1, res.output
    assert "answered nothing" in res.output and "all 2 questions failed" in res.output


def test_reruns_merge_into_the_report_unless_replaced(tmp_path):
    agent = CountingAgent()
    kw = {**BASE, "out": tmp_path, "answer_factory": agent, "plots": False}
    run_benchmark("geneturing", QUESTIONS, **kw, ablate=["full"])
    run_benchmark("geneturing", QUESTIONS, **kw, ablate=["D1"])
    header = next(line for line in (tmp_path / "report.md").read_text().splitlines() if line.startswith("| task |"))
    assert header.startswith("| task | n | base | D1 |")
    scores = list(csv.DictReader((tmp_path / "scores.csv").open()))
    assert {r["config"] for r in scores} == {"base", "D1"}
    run_benchmark("geneturing", QUESTIONS, **kw, ablate=["D1"], replace_report=True)
    scores = list(csv.DictReader((tmp_path / "scores.csv").open()))
    assert {r["config"] for r in scores} == {"D1"}
    assert len(list(tmp_path.glob("*/results.jsonl"))) == 2  # nothing deleted


def test_report_shows_spread_warning_and_warm_latency(tmp_path):
    agent = CountingAgent(first_delay=1.0)
    run_benchmark("geneturing", QUESTIONS, **BASE, ablate=["full"], out=tmp_path, answer_factory=agent,
                  plots=False)
    md = (tmp_path / "report.md").read_text()
    assert "Warning: fewer than 20 questions per task" in md and "Gene alias (n=2)" in md
    rows = {r["task"]: r for r in csv.DictReader((tmp_path / "scores.csv").open())}
    alias = rows["Gene alias"]
    assert alias["n"] == "2" and alias["ci_method"] == "wilson"
    low, high = float(alias["ci95_low"]), float(alias["ci95_high"])
    assert low <= float(alias["score"]) <= high and high - low > 0.5  # two questions: a wide interval
    assert f"[{low:.2f}–{high:.2f}]" in md
    every = rows["all questions"]
    assert every["warmup_excluded"] == "1"
    assert float(every["mean_latency_s"]) < 0.5  # the 1 s warm-up question is left out
    assert "warm-up excluded" in md


def test_interval_methods():
    assert wilson(0, 2)[0] == 0.0 and wilson(2, 2)[1] == 1.0
    lo, hi = wilson(8, 10)
    assert abs(lo - 0.490) < 0.002 and abs(hi - 0.943) < 0.002
    assert interval([1, 0, 1, 1])[2] == "wilson" and interval([0.5, 1, 0])[2] == "bootstrap"
    assert bootstrap([0.5, 1.0, 0.0, 0.5]) == bootstrap([0.5, 1.0, 0.0, 0.5])  # seeded
    lo, hi = bootstrap([0.5] * 30)
    assert lo == hi == 0.5
