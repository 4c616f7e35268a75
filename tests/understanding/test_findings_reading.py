"""A yes/no claim read from a structured abstract's findings (biorag.loop.findings and the
findings tier of biorag.loop.literature_reading), on real PubMedQA abstracts: the 80 labelled
items of tests/data/training/pubmedqa_sample.json (PQA-L, MIT; their question, their
labelled context paragraphs without the conclusion). The gold decisions are not used: these
tests pin how a claim is read, not a score (`biorag eval pubmedqa --with-context` measures).

- a Yes or No rests only on sentences of the results (or conclusions), never on background,
  aims or methods;
- a question put as a study's title ("The nurse cystoscopist: a feasible option?") is a
  claim to check, and reads the same with "Answer yes, no or maybe." after it or a polite
  lead before it;
- a null finding denies a claim of an effect and confirms one of sameness; a finding of no
  harm confirms a claim of safety, unless the harm is what is asked;
- an abstract without labels gives no finding to read this way.
"""

from __future__ import annotations

import pytest

from biorag.loop.extractive import split_sentences
from biorag.loop.findings import (
    null_finding,
    reports_finding,
    section_of,
    states_effect,
    without_harms,
)
from biorag.loop.literature_question import read_question
from biorag.loop.literature_reading import finding_polarity
from biorag.understanding.analysis import analyse
from biorag.understanding.intent import normalise
from tests.understanding.pubmedqa_sample import ITEMS, evidence, reader


@pytest.fixture(scope="module")
def read(agent):
    return reader(agent)


def _sentence(pmid: str, start: str) -> str:
    return next(s for s in split_sentences(evidence(pmid).text) if s.startswith(start))


def test_a_yes_or_no_rests_only_on_findings(read):
    answered = 0
    for pmid, item in ITEMS.items():
        ev = evidence(pmid)
        r = read(item["QUESTION"], ev)
        if r.first_line not in ("Yes.", "No."):
            continue
        answered += 1
        assert r.sufficient and r.support, (item["QUESTION"], r.text)
        for s in r.support:
            assert reports_finding(ev, s.text), (item["QUESTION"], section_of(ev, s.text), s.text)
    assert answered >= 40, answered  # the claims these abstracts answer are read, not declined


#: the request PubMedQA's harness adds (evaluation/benchmarks.py); people add it too
REQUEST = "Answer yes, no or maybe."


def _wordings(question: str) -> list[str]:
    bare = question.rstrip("?")
    return [f"{question}\n{REQUEST}", f"Quick question: {bare[0].lower() + bare[1:]}?\n{REQUEST}",
            f"{bare}? thanks\n{REQUEST}", f"{question} {REQUEST}"]


def test_every_wording_of_a_claim_reads_the_same(read):
    differ = []
    for pmid, item in ITEMS.items():
        ev = evidence(pmid)
        first, *others = [read(q, ev).first_line for q in _wordings(item["QUESTION"])]
        differ += [(item["QUESTION"], first, other) for other in others if other != first]
    assert not differ, differ[:5]


@pytest.mark.parametrize("question", [
    "Therapeutic anticoagulation in the trauma patient: is it safe?",
    "Cold knife conization vs. LEEP. Are they the same procedure?",
    "Amblyopia - is visual loss permanent?",
])
def test_a_question_put_after_a_title_is_a_claim(agent, question):
    for q in (question, f"{question}\n{REQUEST}"):
        assert read_question(analyse(q, agent.retrievers, agent.lexicon)).kind == "yes_no", q


@pytest.mark.parametrize("question", [
    "The nurse cystoscopist: a feasible option?",
    "Stage I non-small cell lung carcinoma: really an early stage?",
    "Lloyd-Davies position with Trendelenburg--a disaster waiting to happen?",
])
def test_a_verbless_title_question_is_a_claim_when_yes_or_no_is_requested(agent, question):
    # alone, a verbless question may ask anything ("A child has seizures and ataxia: any
    # idea?" asks for genes: tests/geneset/test_search_request.py)
    assert read_question(analyse(f"{question}\n{REQUEST}", agent.retrievers, agent.lexicon)).kind == "yes_no"


def test_a_null_finding_denies_an_effect_and_confirms_sameness(agent):
    null = _sentence("10593212", "No significant differences were found between the LOC")
    assert null_finding(null)
    effect = read_question(analyse("Does loss of consciousness predict neuropsychological decrements after concussion?",
                                   agent.retrievers, agent.lexicon))
    same = read_question(analyse("Is neuropsychological performance after concussion the same with and without loss "
                                 "of consciousness?", agent.retrievers, agent.lexicon))
    assert finding_polarity(null, effect) == "No"
    assert same.sameness and finding_polarity(null, same) == "Yes"
    # a finding of an association confirms the claim of one
    association = _sentence("11776681", "Excellent association between acceleration response")
    assert states_effect(association) and not null_finding(association)
    predictor = read_question(analyse("Is intrapartum vibroacoustic stimulation an effective predictor of fetal "
                                      "acidosis?", agent.retrievers, agent.lexicon))
    assert finding_polarity(association, predictor) == "Yes"


def test_no_harm_confirms_safety_unless_the_harm_is_asked():
    finding = _sentence("10966337", "There were no adverse events")
    cut, harm_free = without_harms(finding, normalise("Are short stay wards in a children's hospital safe?"))
    assert harm_free and "adverse" not in cut
    kept, harm_free = without_harms(finding, normalise("Do short stay wards cause adverse events in children?"))
    assert not harm_free and kept == finding


def test_only_results_and_conclusions_are_findings():
    ev = evidence("10593212")
    for s in split_sentences(ev.text):
        label = section_of(ev, s)
        assert label, s
        assert reports_finding(ev, s) == (label == "RESULTS"), (label, s)
    # without its labels, the same abstract gives no finding to read this way
    bare = evidence("10593212", labelled=False)
    assert not any(reports_finding(bare, s) for s in split_sentences(bare.text))
