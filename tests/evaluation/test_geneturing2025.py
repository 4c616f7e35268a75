"""GeneTuring-2025's CSV layout is read beside GeneGPT's JSON layout, and each module is
scored by its rule; the development items are real records (PROVENANCE beside them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from biorag.contracts.errors import InputError
from evaluation import geneturing2025 as g
from evaluation.benchmarks import load_benchmark

DATA = Path(__file__).resolve().parents[1] / "data" / "evaluation"


def test_both_layouts_load():
    items = load_benchmark("geneturing", DATA / "geneturing2025_dev.csv")
    assert {it.fmt for it in items} == {g.FMT}
    modules = {it.task for it in items}
    assert {"Amino acid translation", "TF regulation", "Gene name extraction", "SNP location",
            "Human genome DNA alignment (programming)"} <= modules
    assert all(g.scorer_for(m) is not None for m in modules)
    old = load_benchmark("geneturing", DATA / "geneturing_dev.json")
    assert {it.fmt for it in old} == {"geneturing"} and len(old) > 0


def test_a_csv_without_the_columns_is_refused(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("Task,Question,Answer\nGene alias,What is X?,Y\n")
    with pytest.raises(InputError, match="missing column"):
        load_benchmark("geneturing", bad)
    unknown = tmp_path / "y.csv"
    unknown.write_text("Module,Question,Goldstandard\nProtein folding,Fold it,Z\n")
    with pytest.raises(InputError, match="no scoring rule for module 'Protein folding'"):
        load_benchmark("geneturing", unknown)


@pytest.mark.parametrize(("module", "answer", "gold", "score"), [
    ("Amino acid translation", "MVTF*\n(standard code)", "MVTF", 1.0),
    ("Amino acid translation", "mvtf", "MVTF", 1.0),
    ("Amino acid translation", "MVTA", "MVTF", 0.0),
    ("TF regulation", "Activation (28 PMIDs); Repression (3 PMIDs)", "Activation", 1.0),
    ("TF regulation", "Repression (3 PMIDs); Activation (1 PMID)", "Activation", 0.0),
    ("TF regulation", "Insufficient evidence: TRRUST v2 records no regulation", "Repression", 0.0),
    ("Gene name extraction", "APOE, TOMM40", "TOMM40, APOE", 1.0),
    ("Gene name extraction", "APOE", "TOMM40, APOE", 0.5),
    ("Gene name extraction", "No gene", "No gene", 1.0),
    ("Gene name extraction", "APOE", "No gene", 0.0),
    ("SNP location", "chr13", "chr13", 1.0),
    ("Human genome DNA alignment (programming)", "chr8:7081648-7081782", "chr8:7081648-7081782", 1.0),
    ("Multi-species DNA alignment (programming)", "Caenorhabditis elegans", "worm", 1.0),
    ("DNA sequence extraction", "acgt ACGT", "ACGTACGT", 1.0),
])
def test_module_rules(module, answer, gold, score):
    assert g.score(module, answer, gold)[1] == score
