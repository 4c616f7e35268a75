"""BioASQ's own measures (evaluation/bioasq_scores.py) and the list questions the loader now
keeps, on the bundled 11B sample (real questions) and on hand-checkable cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.benchmarks import load_bioasq
from evaluation.bioasq_scores import (
    document_scores,
    gold_pmids,
    list_prf,
    majority_baseline,
    ranked_documents,
    summarise,
    yesno_macro_f1,
)
from evaluation.scoring import score_answer

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "evaluation" / "bioasq_11B1_sample.json"


def test_majority_baseline_of_12b_counts_is_the_published_figure():
    b = majority_baseline(["yes"] * 66 + ["no"] * 36)
    assert b["label"] == "yes" and b["counts"] == {"yes": 66, "no": 36}
    assert b["macro_f1"] == pytest.approx(0.39, abs=0.005)  # F1(yes) 0.786, F1(no) 0
    assert b["accuracy"] == pytest.approx(66 / 102)


def test_macro_f1_perfect_inverted_and_unanswered():
    golds = ["yes", "no", "yes", "no", "yes"]
    assert yesno_macro_f1(golds, golds) == 1.0
    assert yesno_macro_f1(golds, ["no" if g == "yes" else "yes" for g in golds]) == 0.0
    # an answer that is neither counts against its class: recall falls, precision does not
    assert yesno_macro_f1(golds, [None, "no", "yes", "no", "yes"]) == pytest.approx((0.8 + 1.0) / 2)


def test_list_precision_recall_f1_with_synonyms():
    gold = [["deletions", "gene deletions"], ["duplications"], ["point mutations"]]
    m = list_prf(["Gene deletions", "point  mutations", "inversions"], gold)
    assert m["precision"] == pytest.approx(2 / 3) and m["recall"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 / 3)
    # two synonyms of one gold item: both correct for precision, one item for recall
    m = list_prf(["deletions", "gene deletions"], gold)
    assert m["precision"] == 1.0 and m["recall"] == pytest.approx(1 / 3)
    assert list_prf([], gold) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_document_recall_and_map_are_capped_at_ten():
    gold = [str(i) for i in range(20)]
    assert document_scores([str(i) for i in range(10)], gold) == {"doc_recall@10": 1.0, "doc_map@10": 1.0}
    d = document_scores(["x", "1", "y", "2"], ["1", "2"])
    assert d["doc_recall@10"] == 1.0 and d["doc_map@10"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert document_scores(["1"] * 5, ["1", "2"])["doc_recall@10"] == 0.5  # a repeat counts once


def test_gold_pmids_and_ranked_documents():
    q = {"documents": ["http://www.ncbi.nlm.nih.gov/pubmed/31234567", "https://pubmed.ncbi.nlm.nih.gov/2345/",
                       "http://www.ncbi.nlm.nih.gov/pubmed/31234567", "not a url"]}
    assert gold_pmids(q) == ["31234567", "2345"]
    row = {"citations": [{"source": "pubmed", "id": "9"}, {"source": "gene", "id": "7157"}],
           "trace": [{"hits": ["pubmed:1", "gene:7157", "pubmed:9"]}, {"hits": ["pubmed:2"]}]}
    assert ranked_documents(row) == ["9", "1", "2"]


def test_loader_keeps_list_questions_with_their_gold_items():
    items = load_bioasq(SAMPLE)
    kinds = sorted({i.task for i in items})
    assert kinds == ["factoid", "list", "yesno"]  # summary has no automatic measure
    lists = [i for i in items if i.task == "list"]
    assert len(lists) == 2 and all(i.fmt == "list" and isinstance(i.gold, list) for i in lists)
    assert all("documents" in i.meta for i in items)


def test_a_list_answer_is_scored_by_f1_in_any_order_and_case():
    item = next(i for i in load_bioasq(SAMPLE) if i.task == "list" and len(i.gold) == 2)
    names = [g[0] for g in item.gold]
    for text in (", ".join(names), ", ".join(reversed(names)).upper(), "\n".join(f"- {n}" for n in names)):
        s = score_answer("list", "list", item.question, text, item.gold)
        assert s.score == 1.0 and s.metrics["recall"] == 1.0, text
    half = score_answer("list", "list", item.question, f"{names[0]}, something else", item.gold)
    assert half.metrics == {"precision": 0.5, "recall": 0.5, "f1": 0.5}


def test_summary_of_rows():
    rows = [{"task": "yesno", "gold": "yes", "prediction": "yes", "gold_documents": ["1"],
             "citations": [{"source": "pubmed", "id": "1"}]},
            {"task": "yesno", "gold": "no", "prediction": None, "gold_documents": ["2"], "citations": []},
            {"task": "factoid", "metrics": {"strict": 1.0, "lenient": 1.0, "mrr": 1.0}},
            {"task": "list", "metrics": {"precision": 0.5, "recall": 1.0, "f1": 2 / 3}}]
    s = summarise(rows)
    assert s["yesno"]["accuracy"] == 0.5 and s["yesno"]["answered_yes_or_no"] == 1
    assert s["list"]["mean_f1"] == pytest.approx(2 / 3)
    assert s["documents"]["doc_recall@10"] == 0.5
