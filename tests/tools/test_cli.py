"""`biorag tool ...` and `biorag data gene-store build` end to end (replay of the bundled
dev recording; the embedded preset replays by default)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_tool_gene_lmp10_replay_json():
    r = run("tool", "gene", "LMP10", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["mode"] == "replay"
    human = [h for h in out["hits"] if h["metadata"]["tax_id"] == 9606]
    assert human[0]["metadata"]["symbol"] == "PSMB10"


def test_tool_snp_json():
    r = run("tool", "snp", "rs1217074595", "--json")
    assert r.exit_code == 0, r.output
    md = json.loads(r.stdout)["hits"][0]["metadata"]
    assert md["chromosome"] == "20" and "LINC01270" in md["genes"]


def test_tool_omim_and_blast_text_output():
    r = run("tool", "omim", "Meesmann corneal dystrophy", "-k", "5")
    assert r.exit_code == 0 and "KRT12" in r.stdout and "17q21.2" in r.stdout


def test_replay_miss_is_one_line_and_non_zero():
    r = run("tool", "gene", "NOTAGENE42")
    assert r.exit_code != 0
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "not recorded" in lines[0] and "term='NOTAGENE42'" in lines[0]


def test_replay_flag_with_missing_file():
    r = run("tool", "gene", "LMP10", "--replay", "/nonexistent/x.jsonl")
    assert r.exit_code != 0 and "does not exist" in r.output


def test_gene_store_build_sample_then_local_backend(tmp_path):
    out = tmp_path / "gs.sqlite"
    r = run("data", "gene-store", "build", "--sample", "--out", str(out), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["genes"] > 2000 and out.exists()
    r = run("tool", "gene", "LMP10", "--backend", "local", "--json", "--set", f"gene_store={out}")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["hits"][0]["metadata"]["symbol"] == "PSMB10"
    # the same store feeds the omim tool: phenotype #607765 gets HSD3B7 from mim2gene_medgen
    r = run("tool", "omim", "Bile acid malabsorption", "-k", "20", "--json", "--set", f"gene_store={out}")
    assert r.exit_code == 0, r.output
    md = {h["id"]: h["metadata"] for h in json.loads(r.stdout)["hits"]}["607765"]
    assert md["genes"] == ["HSD3B7"] and md["genes_source"] == "mim2gene_medgen"


def test_local_backend_without_store_explains_build(tmp_path):
    r = run("tool", "gene", "LMP10", "--backend", "local", "--set", f"gene_store={tmp_path}/missing.sqlite")
    assert r.exit_code != 0 and "biorag data gene-store build" in r.output
