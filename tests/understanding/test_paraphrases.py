"""Every answer field, asked in many phrasings, through the real Agent (rules planner) over
the full local gene store and the replayed dev recording: the answer is the field's value,
whatever the phrasing (see phrasings.py for the phrasings and the records they use)."""

from __future__ import annotations

import pytest

from tests.understanding.heldout_phrasings import matches
from tests.understanding.phrasings import (
    DISEASE,
    GENE,
    NO_FIELD,
    NO_GENE_DISEASES,
    ONE_UNKNOWN,
    SEQUENCE,
    SNP,
    STYLES,
)


def _cases():
    for group in (GENE, SNP, DISEASE, SEQUENCE):
        for field, (entities, phrasings) in group.items():
            for x, xl, xv, expected in entities:
                for i, phrasing in enumerate(phrasings):
                    q = phrasing.format(x=x, xl=xl, xv=xv)
                    yield pytest.param(field, q, expected, id=f"{field}-{x[:12]}-{i}")


@pytest.mark.parametrize("field, question, expected", list(_cases()))
def test_field_value_whatever_the_phrasing(agent, field, question, expected):
    ans = agent.answer(question)
    if field == "organism":
        assert expected in ans.answer, (question, ans.answer)
    elif field == "alignment":
        assert ans.answer.startswith(expected), (question, ans.answer)
    elif field in ("summary", "snp_function"):  # what the gene does, or its card: never its name line
        assert matches("summary", ans.answer, expected), (question, ans.answer)
    else:
        assert ans.answer.lower() == expected.lower(), (question, ans.answer)
    assert ans.sufficient, question
    generated = [e for e in ans.trace if e.step == "generate"]
    assert generated and generated[0].decision == "structured"  # read from a record, not written


@pytest.mark.parametrize("field, question, expected", STYLES, ids=[q[:40] for _, q, _ in STYLES])
def test_written_out_names_british_spellings_context_and_two_questions(agent, field, question, expected):
    ans = agent.answer(question)
    assert matches(field, ans.answer, expected), (question, ans.answer)
    assert ans.sufficient, question


def test_a_second_ask_no_record_answers_is_named_not_dropped(agent):
    """The SNP's gene is read, then asked what it does through the SNP; LINC01270's record holds
    no function, so the second part says so and the answer is not sufficient."""
    ans = agent.answer("Which gene is rs1217074595 in and what does it do?")
    first, *rest = ans.answer.splitlines()
    assert first == "LINC01270" and not ans.sufficient, ans.answer
    assert any(line.startswith("What does the gene that rs1217074595 is in do? Insufficient evidence") for line in rest), ans.answer


@pytest.mark.parametrize("question", NO_FIELD)
def test_a_field_no_record_holds_is_insufficient(agent, question):
    ans = agent.answer(question)
    assert not ans.sufficient, (question, ans.answer)
    assert ans.answer.startswith("Insufficient evidence"), ans.answer


@pytest.mark.parametrize("question", NO_GENE_DISEASES)
def test_a_disease_no_record_links_to_a_gene_is_insufficient(agent, question):
    ans = agent.answer(question)
    assert not ans.sufficient, (question, ans.answer)


@pytest.mark.parametrize("question", ONE_UNKNOWN)
def test_a_gene_no_record_holds_beside_a_known_one_is_insufficient(agent, question):
    ans = agent.answer(question)
    assert not ans.sufficient, (question, ans.answer)
    assert ans.answer.startswith("Insufficient evidence"), ans.answer


def _cloze(p: str) -> bool:
    """A statement to complete: "The official symbol of gene CARD15 is", "X is located on"."""
    return (not p.rstrip().endswith("?") and (" is" in p or " are" in p)
            and not p.lower().startswith(("what", "which", "is ", "tell", "give", "list", "where")))


def test_every_field_has_eight_phrasings_of_each_style():
    for group in (GENE, SNP, DISEASE, SEQUENCE):
        for field, (_entities, phrasings) in group.items():
            assert len(phrasings) >= 8, field
            assert any(_cloze(p) for p in phrasings), field
            assert any(p.startswith(("Tell", "Give", "List", "Describe", "Convert", "Align")) for p in phrasings), field
            assert any("{xl}" in p for p in phrasings) and any("{xv}" in p for p in phrasings), field
            assert any(not p.rstrip().endswith("?") for p in phrasings), field
