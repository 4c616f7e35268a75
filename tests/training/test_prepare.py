"""Pair building, question derivation, the PMID split and MeSH label validation on real records."""

from __future__ import annotations

import gzip
import json

import pytest

from biorag.contracts.errors import InputError
from tests.training.conftest import PUBMEDQA, RECORDS
from training.pairs import (
    CHECK_TAGS,
    build_pairs,
    clean_title,
    is_heldout,
    mesh_question,
    title_question,
)
from training.records import MeshRef, TrainRecord, read_pubmedqa, read_records


def _raw_records():
    with gzip.open(RECORDS, "rt") as f:
        return [json.loads(line) for line in f]


def test_reader_goes_through_the_index_reader_and_cleaner():
    recs = list(read_records([RECORDS]))
    raw = _raw_records()
    assert [r.pmid for r in recs] == [str(r["pmid"]) for r in raw]
    no_abstract = [r for r in recs if r.drop_reason == "no_abstract"]
    assert len(no_abstract) == 5 and all(r.abstract == "" for r in no_abstract)
    first = recs[0]
    assert first.title and first.abstract and first.mesh
    assert all(m.ui.startswith("D") for m in first.mesh)


def test_pairs_from_a_real_record():
    rec = next(r for r in read_records([RECORDS]) if r.abstract and r.mesh)
    pairs = build_pairs(rec)
    assert {p.kind for p in pairs} == {"title", "question", "mesh"}
    assert all(p.positive == rec.abstract and p.pmid == rec.pmid for p in pairs)
    by_kind = {p.kind: p.query for p in pairs}
    assert by_kind["title"] == clean_title(rec.title)
    assert by_kind["question"].endswith("?") and clean_title(rec.title)[1:] in by_kind["question"]
    # the MeSH question names topical descriptors, never check tags
    assert any(m.name in by_kind["mesh"] for m in rec.mesh)
    assert "Humans" not in by_kind["mesh"]


def test_question_derivation_rules():
    rec = TrainRecord(pmid="1", title="[Role of APOE in dementia: a cohort study].", abstract="x " * 50)
    assert clean_title(rec.title) == "Role of APOE in dementia"
    q = title_question(rec)
    assert q.endswith("role of APOE in dementia?")  # first word lower-cased, acronym kept
    rec2 = TrainRecord(pmid="2", title="Does tau spread between neurons?", abstract="")
    assert title_question(rec2) == "Does tau spread between neurons?"
    rec3 = TrainRecord(pmid="3", title="t", abstract="", mesh=[MeshRef("D006801", "Humans"), MeshRef("D000544", "Alzheimer Disease", True, ("genetics",))])
    assert mesh_question(rec3) == "What is the genetics of Alzheimer Disease?"
    assert mesh_question(TrainRecord(pmid="4", title="t", abstract="", mesh=[MeshRef("D006801", "Humans")])) is None
    assert build_pairs(TrainRecord(pmid="5", title="A title here", abstract="too short")) == []


def test_split_is_by_pmid_stable_and_disjoint(prepared):
    train, held = prepared.pairs("train"), prepared.pairs("heldout")
    assert train and held
    assert not {p.pmid for p in train} & {p.pmid for p in held}
    assert all(is_heldout(p.pmid, 0.2, 0) for p in held)
    assert not any(is_heldout(p.pmid, 0.2, 0) for p in train)
    assert is_heldout("12345", 0.2, 0) == is_heldout("12345", 0.2, 0)
    assert 0.1 < len({p.pmid for p in held}) / len({p.pmid for p in train} | {p.pmid for p in held}) < 0.3


def test_mesh_labels_are_validated_descriptors(prepared):
    from biorag.knowledge.mesh import vocabulary

    vocab = vocabulary()
    examples = prepared.mesh("train") + prepared.mesh("heldout")
    assert {e.source for e in examples} == {"title", "pubmedqa"}
    for e in examples:
        assert e.labels
        for lab in e.labels:
            d = vocab.get(lab)
            assert d is not None and d.name == lab  # current preferred name
            assert lab not in ("Humans", "Male", "Female", "Animals", "Mice")
    qa_ids = {q.pmid for q in read_pubmedqa(PUBMEDQA)}
    assert not qa_ids & {p.pmid for p in prepared.pairs("train") + prepared.pairs("heldout")}


def test_unresolvable_labels_are_dropped_and_counted(tmp_path):
    from training.prepare import prepare

    rec = _raw_records()[0]
    topical = [m for m in rec["mesh"] if m["name"].casefold() not in CHECK_TAGS][:2]
    rec["mesh"] = topical + [{"ui": "", "name": "Not A Real Descriptor", "major": True, "qualifiers": []}]
    src = tmp_path / "one.jsonl"
    src.write_text(json.dumps(rec) + "\n")
    m = prepare([src], tmp_path / "out", heldout=0.0, progress=False)
    assert m.extra["labels_unresolved"] == 1
    assert "Not A Real Descriptor" in m.extra["unresolved_examples"]
    ex = json.loads((tmp_path / "out" / "mesh_train.jsonl").read_text().splitlines()[0])
    assert ex["labels"] == [m["name"] for m in topical]


def test_bad_inputs_are_clear(tmp_path):
    from training.prepare import Prepared, prepare

    with pytest.raises(InputError, match="no such file"):
        prepare([tmp_path / "missing.jsonl"], tmp_path / "o", progress=False)
    with pytest.raises(InputError, match="fraction"):
        prepare([RECORDS], tmp_path / "o", heldout=1.5, progress=False)
    with pytest.raises(InputError, match="biorag train prepare"):
        Prepared.open(tmp_path / "nothing-here")
    bad = tmp_path / "qa.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InputError, match="QUESTION"):
        read_pubmedqa(bad)


def test_pair_sampling_is_a_deterministic_subset(prepared):
    every = prepared.pairs("train")
    some = prepared.pairs("train", limit=20, seed=5)
    assert len(some) == 20 and all(p in every for p in some)
    assert some == prepared.pairs("train", limit=20, seed=5)
    assert some != prepared.pairs("train", limit=20, seed=6)
    only_mesh = prepared.pairs("train", kinds=("mesh",))
    assert only_mesh and {p.kind for p in only_mesh} == {"mesh"}
    assert len(prepared.pairs("train", limit=10**9)) == len(every)
