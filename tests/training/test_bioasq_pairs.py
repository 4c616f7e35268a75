"""BioASQ training pairs: 7B-11B questions -> their gold documents, nothing of 12B, on real
golden-file questions (tests/data/training/bioasq, PROVENANCE.md there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biorag.contracts.errors import InputError
from indexing.bioasq_golden import read_golden
from training.bioasq_pairs import bioasq_pairs
from training.pairs import Pair, pmid_unique_batches
from training.prepare import Prepared, prepare

BIOASQ = Path(__file__).resolve().parents[1] / "data" / "training" / "bioasq"


def _golden(name: str) -> list[dict]:
    return json.loads((BIOASQ / name).read_text())["questions"]


def _gold(q: dict) -> set[str]:
    return {s["document"].rstrip("/").rsplit("/", 1)[-1] for s in q["snippets"]}


def test_pairs_hold_training_questions_and_nothing_of_the_test_batch():
    test_qs = _golden("12B2_golden.json")
    test_bodies = {q["body"] for q in test_qs}
    test_gold = set().union(*map(_gold, test_qs))
    train_qs = [q for q in _golden("8B2_golden.json") if q["body"] not in test_bodies]

    pairs, counts = bioasq_pairs(BIOASQ)

    assert {p.query for p in pairs} == {q["body"] for q in train_qs}
    assert not {p.pmid for p in pairs} & test_gold
    assert counts["bioasq_questions"] == len(train_qs) == 4
    assert counts["bioasq_questions_also_in_test"] == 1
    expected = {(q["body"], pmid) for q in train_qs for pmid in _gold(q) - test_gold}
    assert {(p.query, p.pmid) for p in pairs} == expected
    assert counts["bioasq_pairs_dropped_test_documents"] == sum(len(_gold(q) & test_gold) for q in train_qs) > 0
    # the positive is the document as the training batch gives it: its snippets, joined
    train_docs = {d["pmid"]: d["abstract"] for d in read_golden([BIOASQ / "8B2_golden.json"])[1]}
    for p in pairs:
        assert p.kind == "bioasq" and p.positive == train_docs[p.pmid]
        snippets = [s["text"] for q in train_qs for s in q["snippets"] if s["document"].endswith("/" + p.pmid)]
        assert all(text in p.positive for text in snippets)


def test_at_most_n_documents_per_question():
    pairs, _ = bioasq_pairs(BIOASQ, max_per_question=2)
    per_question: dict[str, int] = {}
    for p in pairs:
        per_question[p.query] = per_question.get(p.query, 0) + 1
    assert max(per_question.values()) == 2 and len(per_question) == 4


def test_prepare_from_bioasq_alone(tmp_path):
    manifest = prepare([], tmp_path, bioasq=BIOASQ, heldout=0.2, seed=0, progress=False)
    data = Prepared.open(tmp_path)
    train, held = data.pairs("train"), data.pairs("heldout")
    assert train and held and {p.kind for p in train + held} == {"bioasq"}
    assert not {p.pmid for p in train} & {p.pmid for p in held}  # split by PMID
    pairs, _ = bioasq_pairs(BIOASQ)
    assert sorted((p.pmid, p.query) for p in train + held) == sorted((p.pmid, p.query) for p in pairs)
    assert manifest.extra["bioasq_pairs"] == len(pairs)
    assert manifest.extra["pairs_train_by_kind"] == {"bioasq": len(train)}
    assert data.pairs("train", kinds=("title",)) == []


def test_prepare_with_nothing_to_read_says_what_to_give(tmp_path):
    with pytest.raises(InputError, match="--input.*--bioasq"):
        prepare([], tmp_path, progress=False)
    with pytest.raises(InputError, match="no BioASQ \\*_golden.json files"):
        prepare([], tmp_path, bioasq=tmp_path, progress=False)


def test_batches_never_repeat_a_query():
    """One question with several gold documents: two of its pairs in one batch would make each
    document the other's negative."""
    pairs = [Pair(f"{i}", "bioasq", f"question {i % 5}", f"document {i}") for i in range(40)]
    batches = pmid_unique_batches(pairs, 8, seed=0)
    for b in batches:
        assert len({pairs[i].query for i in b}) == len(b) <= 8
    assert sorted(i for b in batches for i in b) == list(range(40))
