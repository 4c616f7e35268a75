"""The yes/no verdict model (biorag.loop.verdict), its training (training.yes_no_verdict)
and how the findings tier of biorag.loop.literature_reading uses it, on real PubMedQA
abstracts (tests/data/training/pubmedqa_sample.json, PQA-L, MIT; which of them are in the
official test split: pubmedqa_sample_test_split.json, a slice of test_ground_truth.json).

- training never sees a test-split item, and says so in the model it writes;
- the model only chooses among findings: a label no finding of the record states is not
  an answer ("The evidence does not say."), and a stated label quotes only findings that
  state it;
- sentences that name the whole claim and disagree are settled the same way, by the record
  of the closest one, only in favour of what one of them states;
- the shipped model reads records it was not trained on better than always saying "yes".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from biorag.loop.findings import record_findings
from biorag.loop.literature_question import read_question
from biorag.loop.literature_reading import finding_polarity
from biorag.loop.verdict import VerdictModel, load_model
from biorag.understanding.analysis import analyse
from tests.understanding.pubmedqa_sample import DATA, ITEMS, evidence, reader
from training import yes_no_verdict

TEST_SPLIT = json.loads((DATA / "pubmedqa_sample_test_split.json").read_text())


def _always(label: str) -> VerdictModel:
    """A model that reads every record as `label` (its intercept alone decides)."""
    return VerdictModel({}, tuple(5.0 if x == label else 0.0 for x in ("yes", "no", "maybe")))


@pytest.fixture()
def pubmedqa_folder(tmp_path: Path) -> Path:
    shutil.copy(DATA / "pubmedqa_sample.json", tmp_path / "ori_pqal.json")
    (tmp_path / "test_ground_truth.json").write_text(json.dumps(TEST_SPLIT))
    return tmp_path


def test_training_never_sees_the_test_split(pubmedqa_folder: Path, tmp_path: Path):
    rows = yes_no_verdict.items(pubmedqa_folder)
    assert {pmid for pmid, *_ in rows} == set(ITEMS) - set(TEST_SPLIT)
    out = tmp_path / "verdict.json"
    assert yes_no_verdict.main(["--pubmedqa", str(pubmedqa_folder), "--out", str(out), "--no-cv"]) == 0
    model = load_model(out)
    pmid, question, findings, _gold = rows[0]
    assert model.read(question, findings) in ("yes", "no", "maybe")
    about = json.loads(out.read_text())["about"]
    assert about["questions"] == len(rows) and "test split" in about["trained_on"]


def test_training_says_which_file_is_missing(tmp_path: Path, capsys):
    with pytest.raises(SystemExit):
        yes_no_verdict.main(["--pubmedqa", str(tmp_path)])
    assert "ori_pqal.json not found" in capsys.readouterr().err


@pytest.fixture(scope="module")
def read(agent):
    return reader(agent)


def _answers(read) -> dict[str, str]:
    return {pmid: read(item["QUESTION"], evidence(pmid)).first_line for pmid, item in ITEMS.items()}


def test_a_label_no_finding_states_is_not_an_answer(read, agent, monkeypatch):
    before = _answers(read)
    monkeypatch.setattr("biorag.loop.literature_reading.load_verdict_model", lambda: _always("maybe"))
    after = _answers(read)
    # the findings tier decides many of these claims; sentences that disagree stay mixed
    changed = {p for p in ITEMS if before[p] != after[p] and not after[p].startswith("The evidence is mixed")}
    assert len(changed) >= 20, len(changed)
    assert {after[p] for p in changed} == {"The evidence does not say."}
    for label in ("yes", "no"):
        monkeypatch.setattr("biorag.loop.literature_reading.load_verdict_model", lambda label=label: _always(label))
        for pmid in changed:
            ev = evidence(pmid)
            r = read(ITEMS[pmid]["QUESTION"], ev)
            assert r.first_line in (f"{label.capitalize()}.", "The evidence does not say."), (pmid, r.first_line)
            if r.sufficient:
                q = read_question(analyse(ITEMS[pmid]["QUESTION"], agent.retrievers, agent.lexicon))
                assert all(finding_polarity(s.text, q) == label.capitalize() for s in r.support), (pmid, r.text)


def test_the_shipped_model_reads_held_out_records_better_than_always_yes():
    model = load_model()
    right = sum(model.read(ITEMS[p]["QUESTION"], record_findings(evidence(p))) == gold for p, gold in TEST_SPLIT.items())
    always_yes = sum(gold == "yes" for gold in TEST_SPLIT.values())
    assert right > always_yes, (right, always_yes, len(TEST_SPLIT))


def test_sentences_that_disagree_are_settled_by_their_record_only_as_stated(read, monkeypatch):
    target = "biorag.loop.literature_reading.load_verdict_model"
    monkeypatch.setattr(target, lambda: _always("maybe"))
    mixed = {p for p, item in ITEMS.items() if read(item["QUESTION"], evidence(p)).first_line.startswith("The evidence is mixed")}
    assert len(mixed) >= 3, mixed  # "maybe" settles nothing
    for label in ("yes", "no"):
        monkeypatch.setattr(target, lambda label=label: _always(label))
        for pmid in mixed:
            r = read(ITEMS[pmid]["QUESTION"], evidence(pmid))
            assert r.first_line == f"{label.capitalize()}." and r.sufficient, (pmid, r.text)
            assert all(s.evidence.id == pmid for s in r.support)
