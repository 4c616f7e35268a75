"""The PhEval runner (evaluation/pheval_plugin) end to end: the real `pheval run` CLI, from
the venv `make pheval-venv` builds (PhEval pins pyarrow<20, so it cannot share .venv), ranks
the 20 published phenopackets of tests/data/phenopackets/pheval_corpus with BioRAG, and every
gene's rank in PhEval's gene results must be the rank `biorag prioritise` gives it."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from evaluation.pheval_plugin.options import MAX_TOP_K, RunnerOptions, read_options

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "phenopackets" / "pheval_corpus"
CASES = sorted((CORPUS / "phenopackets").glob("*.json"))
BIORAG = Path(sys.executable).parent / "biorag"


def pheval_command() -> Path:
    """The `pheval` of .venv-pheval (`make test` names it in BIORAG_PHEVAL)."""
    path = Path(os.environ.get("BIORAG_PHEVAL") or ROOT / ".venv-pheval" / "bin" / "pheval")
    if not path.is_file():
        pytest.fail(f"no PhEval at {path}: run `make pheval-venv` (`make test` does)")
    return path


def causative_gene(phenopacket: Path) -> str:
    doc = json.loads(phenopacket.read_text())
    gi = doc["interpretations"][0]["diagnosis"]["genomicInterpretations"][0]
    return gi["variantInterpretation"]["variationDescriptor"]["geneContext"]["symbol"]


def write_config(input_dir: Path, data_dir: Path) -> None:
    input_dir.mkdir()
    (input_dir / "config.yaml").write_text(
        "tool: biorag\ntool_version: 0.1.0\nvariant_analysis: false\ngene_analysis: true\n"
        "disease_analysis: false\ntool_specific_configuration_options:\n"
        f"  biorag_executable: {json.dumps(str(BIORAG))}\n  data_dir: {json.dumps(str(data_dir))}\n")


def test_pheval_run_gives_every_gene_the_rank_biorag_prioritise_gives(hpo_store_path, tmp_path):
    assert len(CASES) == 20
    data_dir = hpo_store_path.parent
    write_config(tmp_path / "input", data_dir)
    env = {**os.environ, "BIORAG_DATA_DIR": str(data_dir)}
    run = subprocess.run([str(pheval_command()), "run", "--input-dir", str(tmp_path / "input"), "--testdata-dir",
                          str(CORPUS), "--runner", "bioragphevalrunner", "--output-dir", str(tmp_path / "pheval")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    # the same cases, ranked by the command a user runs, to as many genes as the runner asks for
    direct = subprocess.run([str(BIORAG), "prioritise", str(CORPUS / "phenopackets"), "--out", str(tmp_path / "direct"),
                             "--top-k", str(MAX_TOP_K)], capture_output=True, text=True, env=env, timeout=600)
    assert direct.returncode == 0, direct.stderr[-3000:]

    same = hgnc = 0
    for case in CASES:
        with open(tmp_path / "direct" / f"{case.stem}.tsv", encoding="utf-8") as fh:
            expected = [(int(r["#RANK"]), r["GENE_SYMBOL"]) for r in csv.DictReader(fh, delimiter="\t")]
        rows = pq.read_table(tmp_path / "pheval" / "pheval_gene_results" / f"{case.stem}-gene_result.parquet").to_pylist()
        assert set(rows[0]) == {"rank", "score", "gene_symbol", "gene_identifier", "true_positive"}
        ranked = sorted((r["rank"], r["gene_symbol"]) for r in rows if r["rank"] > 0)
        assert len(expected) == MAX_TOP_K
        assert ranked == expected, case.stem
        same += ranked == expected
        # PhEval marks the published causative gene at BioRAG's rank, or at rank 0 (a miss) past it
        gold = causative_gene(case)
        hits = [(r["rank"], r["gene_symbol"]) for r in rows if r["true_positive"]]
        at = [rank for rank, symbol in expected if symbol == gold]
        assert hits == [(at[0] if at else 0, gold)], (case.stem, hits)
        # HGNC ids, as phenopackets name genes; NCBI's where PhEval's HGNC table lacks the gene id
        ids = [r["gene_identifier"] for r in rows if r["rank"] > 0]
        assert all(i.startswith(("HGNC:", "NCBIGene:")) for i in ids), case.stem
        hgnc += sum(i.startswith("HGNC:") for i in ids)
    assert same == 20 and hgnc >= 0.99 * 20 * MAX_TOP_K
    meta = (tmp_path / "pheval" / "results.yml").read_text()
    assert "hpo_release: '2025-01-16'" in meta and f"top_k: {MAX_TOP_K}" in meta
    command = (tmp_path / "pheval" / "tool_input_commands" / "biorag_commands.txt").read_text()
    assert command.startswith(f"{BIORAG} prioritise {CORPUS / 'phenopackets'} --top-k {MAX_TOP_K} --json")


def test_options_default_and_refuse_what_they_cannot_use(tmp_path):
    config = tmp_path / "config.yaml"
    assert read_options(None, config) == RunnerOptions()
    assert read_options({"top_k": 5, "data_dir": "~/data"}, config) == RunnerOptions(None, Path.home() / "data", 5)
    with pytest.raises(ValueError, match=r"unknown tool_specific_configuration_options \['topk'\]"):
        read_options({"topk": 5}, config)
    for bad in (0, 101, "10", True):
        with pytest.raises(ValueError, match="top_k must be a whole number from 1 to 100"):
            read_options({"top_k": bad}, config)
    with pytest.raises(ValueError, match="must be a mapping"):
        read_options(["top_k"], config)
