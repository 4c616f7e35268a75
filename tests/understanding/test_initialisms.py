"""Initialisms (biorag.knowledge.initialisms): a token is read as the initials of the question's
words only when it is written as an initialism, in the forms abstracts use."""

from __future__ import annotations

import pytest

from biorag.knowledge.initialisms import initialism_words, phrase_initials, spelled_initials


@pytest.mark.parametrize("token, initials", [
    ("Aβ42", "AB"), ("Aβ", "AB"), ("Abeta", "AB"), ("Abeta42", "AB"), ("TBI", "TBI"), ("TNFalpha", "TNFA"),
    ("Beta", ""), ("beta", ""), ("amyloid", ""), ("The", ""), ("A", ""), ("Alzheimer", ""), ("ABCDEFG", ""),
])
def test_a_token_spells_initials_only_when_it_is_an_initialism(token, initials):
    assert spelled_initials(token) == initials


def test_the_words_a_sentence_writes_as_initials():
    initials = phrase_initials(["amyloid", "beta", "toxicity"])
    assert initials["AB"] == ("amyloid", "beta") and initials["ABT"] == ("amyloid", "beta", "toxicity")
    sentence = "Consistently, Aβ43 showed a higher propensity to aggregate and was more neurotoxic than Aβ42."
    assert initialism_words(sentence, initials) == ["amyloid", "beta", "amyloid", "beta"]
    assert initialism_words("A beta-sheet rich fold and an AD patient.", initials) == []


@pytest.mark.parametrize("written, read", [
    ("Aβ42", "abeta 42"), ("Abeta42", "abeta 42"), ("aβ", "abeta"), ("TNF-α", "tnf-alpha"),
    ("IL-1β levels", "il-1beta levels"), ("the beta cells", "the beta cells"), ("Alzheimer", "alzheimer"),
])
def test_greek_letters_read_spelled_with_a_glued_number_apart(written, read):
    from biorag.knowledge.initialisms import spelled_greek

    assert spelled_greek(written) == read
