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


def test_answer_columns_in_the_file_are_scored_beside_ours(tmp_path):
    """A file carrying other systems' answers (the paper lists its models' answers) gets a
    reference column per answer column, scored by the same rules on the questions run; a
    column of numbers (an id) is not an answer column."""
    from evaluation.report import render_markdown

    path = tmp_path / "with_answers.csv"
    path.write_text(
        "Module,Question,Goldstandard,Row,GPT-4o\n"
        "TF regulation,The regulatory relationship between transcription factor A and gene B is,Activation,1,"
        "Activation\n"
        "TF regulation,The regulatory relationship between transcription factor C and gene D is,Repression,2,"
        "Activation\n"
        "Amino acid translation,Translate atggcc,MA,3,MA\n")
    items = load_benchmark("geneturing", path)
    assert [it.meta.get("answers") for it in items] == [{"GPT-4o": "Activation"}, {"GPT-4o": "Activation"},
                                                         {"GPT-4o": "MA"}]
    (ref,) = g.answer_columns_scored(items)
    assert ref.values == {"TF regulation": 0.5, "Amino acid translation": 1.0, "overall": 2 / 3}
    assert "GPT-4o" in ref.column and "3 answers" in ref.source
    only_tf = load_benchmark("geneturing", path, tasks=["TF regulation"])
    assert g.answer_columns_scored(only_tf)[0].values == {"TF regulation": 0.5, "overall": 0.5}
    assert g.answer_columns_scored(load_benchmark("geneturing", DATA / "geneturing2025_dev.csv")) == []
    text = render_markdown([], "geneturing", references=[ref])
    assert "GPT-4o (answers in the file)" in text and "the questions file's column 'GPT-4o'" in text
    overall = next(line for line in text.splitlines() if line.startswith("| **all questions**"))
    assert overall.endswith("| 0.67 |"), overall
    assert "GeneGPT-slim (paper" not in text  # the 2023 questions' rows are not beside these
