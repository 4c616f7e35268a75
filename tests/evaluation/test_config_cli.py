"""Ablation specs, configuration identity, and the `biorag eval` commands."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biorag.contracts.errors import ConfigError
from biorag.settings import load_settings
from cli.commands.evaluate import run_benchmark
from cli.main import app
from evaluation.config import Variant, build_configuration, parse_ablations

DATA = Path(__file__).parents[1] / "data" / "evaluation"


def test_ablation_names_follow_the_paper(tmp_path):
    assert [v.name for v in parse_ablations(None)] == ["full"]
    allv = parse_ablations(["all"])
    assert [v.name for v in allv] == ["full", "D1", "D2", "D3", "C1", "C2", "C3"]
    assert {v.name: v.disable for v in allv}["D1"] == ["gene"]
    assert {v.name: v.disable for v in allv}["C1"] == ["mesh_filter"]
    assert {v.name: v.disable for v in allv}["C3"] == ["self_eval"]
    combo = parse_ablations(["D1+C3", "-blast", "full", "D1+C3"])
    assert [v.name for v in combo] == ["D1+C3", "-blast", "full"]
    assert combo[0].disable == ["gene", "self_eval"] and combo[1].disable == ["blast"]
    m = parse_ablations(["M:paper", "M:Llama-3-8B-Instruct"])
    assert m[0].preset == "paper" and m[1].sets == ["llm.model=Llama-3-8B-Instruct"]
    gguf = tmp_path / "q.gguf"
    gguf.write_bytes(b"GGUF")
    assert parse_ablations([f"M:{gguf}"])[0].sets == [f"llm.model_path={gguf}", "llm.model=q"]
    for bad in ["X9", "", "D1+", "M:", "M:/no/such/q.gguf"]:
        with pytest.raises(ConfigError):
            parse_ablations([bad])


def test_configuration_hash_tracks_settings_and_cassette(tmp_path):
    cas = tmp_path / "cassette.jsonl"
    cas.write_text('{"url": "a", "response": "1"}\n')
    base = load_settings(sets=["tool_io.mode=replay", f"tool_io.cassette={cas}"])
    a = build_configuration(Variant("full", ""), base, cas)
    b = build_configuration(Variant("full", ""), load_settings(sets=["tool_io.mode=replay", f"tool_io.cassette={cas}"]), cas)
    assert a.hash == b.hash and len(a.hash) == 12
    assert a.identity["tool_io"]["cassette_sha256"] and a.identity["index"]["collection"] == "pubmed"
    assert a.identity["model"]["backend"] == "embedded"
    d1 = build_configuration(Variant("D1", ""), load_settings(sets=["tool_io.mode=replay"], disable=["gene"]), cas)
    assert d1.hash != a.hash
    cas.write_text('{"url": "a", "response": "2"}\n')  # same settings, different recording
    assert build_configuration(Variant("full", ""), base, cas).hash != a.hash
    other_model = load_settings(sets=["llm.backend=openai", "llm.model=m", "llm.base_url=http://127.0.0.1:1/v1"])
    ident = build_configuration(Variant("M:m", ""), other_model, None).identity["model"]
    assert ident == {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:1/v1"}
    assert a.dirname == f"full__{a.hash}"


def test_cli_errors_are_one_line():
    runner = CliRunner()
    res = runner.invoke(app, ["eval", "geneturing"])
    assert res.exit_code == 2 and "--questions is required" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["eval", "geneturing", "-q", str(DATA / "geneturing_dev.json"), "--ablate", "Z1"])
    assert res.exit_code == 2 and "unknown ablation 'Z1'" in res.output
    res = runner.invoke(app, ["eval", "mmlu", "-q", str(DATA / "nope.csv")])
    assert res.exit_code == 2 and "does not exist" in res.output
    res = runner.invoke(app, ["eval", "geneturing", "-q", str(DATA / "geneturing_dev.json"), "-t", "Gene aliases"])
    assert res.exit_code == 2 and "unknown task" in res.output


def test_run_benchmark_over_several_configs_then_rebuild_report(tmp_path):
    from biorag.loop.agent import Agent
    from tests.spine.records import GENES, RecordRetriever

    def factory(settings):
        rs = {"gene": RecordRetriever("gene", GENES), "dbsnp": RecordRetriever("dbsnp", [])}
        return Agent(settings, llm=None, retrievers={k: v for k, v in rs.items() if settings.sources[k].enabled}).answer

    files = run_benchmark("geneturing", DATA / "geneturing_dev.json", sets=["planner=rules"],
                          disable=["omim", "blast", "pubmed", "web"], ablate=["full", "D1"],
                          tasks=["Gene alias", "Gene location"], limit=2, out=tmp_path, answer_factory=factory)
    assert sorted(p.name.split("__")[0] for p in tmp_path.glob("*__*")) == ["D1", "base"]
    md = files["report.md"].read_text()
    assert "| Gene alias | 2 | 1.00 [0.34–1.00] | 0.00 [0.00–0.66] |" in md  # LMP10 and SNAT6 found in Gene; nothing without it
    (tmp_path / "report.md").unlink()
    res = CliRunner().invoke(app, ["eval", "report", str(tmp_path), "--no-plots"])
    assert res.exit_code == 0, res.output
    assert "| Gene alias | 2 | 1.00 [0.34–1.00] | 0.00 [0.00–0.66] |" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("bench,path,n,task", [
    ("mmlu", "mmlu", 6, "medical_genetics"),
    ("medmcqa", "medmcqa_dev_sample.jsonl", 3, "Physiology"),
    ("pubmedqa", "pubmedqa_sample.json", 3, "pubmedqa"),
    ("bioasq", "bioasq_11B1_sample.json", 6, "list"),  # yes/no, factoid and list questions; summaries skipped
    ("genehop", "genehop_dev.json", 30, "SNP gene function"),
])
def test_loaders_read_real_samples(bench, path, n, task):
    from evaluation.benchmarks import load_benchmark

    items = load_benchmark(bench, DATA / path)
    assert len(items) == n and task in {it.task for it in items}
    assert len({it.id for it in items}) == n
    if bench in ("mmlu", "medmcqa"):
        assert all(it.gold in "ABCD" and len(it.options) == 4 and "\nD. " in it.question for it in items)
    if bench == "pubmedqa":
        assert sorted(it.gold for it in items) == ["maybe", "no", "yes"]
    if bench == "bioasq":
        assert {it.task for it in items} == {"yesno", "factoid", "list"}
