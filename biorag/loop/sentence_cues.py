"""What a sentence of an abstract says, read by word lists (resources/reading_words.json):
whether it only announces a study's aim or method, denies or guesses, which way a change
went, and which abbreviations its record defines. `literature_reading` uses them to choose
the sentences an answer quotes."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from biorag.understanding.intent import normalise

_RESOURCES = Path(__file__).parents[1] / "resources"
#: words are compared by their first letters ("increases", "increased": "incre")
_STEM = 5


def stem(word: str) -> str:
    return word[:_STEM]


@cache
def _lists() -> dict:
    return json.loads((_RESOURCES / "reading_words.json").read_text(encoding="utf-8"))


def reading_entry(kind: str) -> dict:
    """An entry of resources/reading_words.json as written (its about, its words or lists)."""
    return _lists()[kind]


@cache
def reading_words(kind: str) -> tuple[str, ...]:
    """A word list of resources/reading_words.json, each phrase normalised."""
    return tuple(normalise(w).strip() for w in _lists()[kind]["words"])


@cache
def asked_types() -> dict[str, frozenset[str]]:
    return {kind: frozenset(normalise(w).strip() for w in ws) for kind, ws in _lists()["asked_types"]["words"].items()}


def has_phrase(norm: str, phrase: str) -> bool:
    return f" {phrase} " in norm


def holds_any(norm: str, phrases: tuple[str, ...]) -> bool:
    """`norm` (normalised text) holds one of the phrases as whole words."""
    return any(has_phrase(norm, p) for p in phrases)


def only_announces(sentence: str) -> bool:
    """The sentence only announces a study's aim or method ("To assess ...", "We evaluated
    ...", "Patients were randomized ..."), reporting no finding."""
    norm = normalise(sentence)
    opens = any(norm.startswith(f" {p} ") for p in reading_words("aim_openers"))
    method = any(has_phrase(norm, p) for p in reading_words("method_phrases"))
    if not (opens or method):
        return False
    return not any(has_phrase(norm, p) for p in reading_words("finding_markers"))


def negated(sentence: str, claimed: tuple[str, ...] = ()) -> bool:
    """The sentence denies what it says ("did not increase", "no association"). A negation
    the claim itself makes (`claimed_negations`: "impairment [without dementia]") is part of
    what is said, not a denial of it."""
    norm = normalise(sentence)
    for p in reading_words("not_negations") + claimed:
        norm = norm.replace(f" {p} ", " ")
    return any(has_phrase(norm, p) for p in reading_words("negations"))


def claimed_negations(norm: str) -> tuple[str, ...]:
    """Each negation of a normalised question with the word after it ("without dementia")."""
    return tuple(m.group(1) for p in reading_words("negations")
                 for m in re.finditer(rf"(?<= )({re.escape(p)} \S+)(?= )", norm))


def says_protective_against_cause(asked: str, sentence: str) -> bool:
    """The question (normalised) asks what causes something, and the sentence says its thing
    protects against it ("a coding mutation (A673T) in the APP gene that protects against
    Alzheimer's disease"): the opposite of an answer."""
    return holds_any(asked, reading_words("causal_asks")) and \
        holds_any(normalise(sentence), reading_words("protective_words"))


def hedged(sentence: str) -> bool:
    """The sentence guesses, asks or plans rather than states ("may", "remains unclear")."""
    norm = normalise(sentence)
    return any(has_phrase(norm, p) for p in reading_words("hedges"))


def directions(norm: str) -> set[str]:
    lookalikes = reading_words("direction_lookalikes")
    stems = {stem(w) for w in norm.split() if not w.startswith(lookalikes)}
    found = set()
    for name in ("up", "down"):
        if stems & {stem(w) for w in reading_words(f"direction_{name}")}:
            found.add(name)
    return found


_ABBREVIATION = re.compile(r"([A-Za-z][\w'\- ]{2,80}?)\s*\(([A-Z][A-Za-z0-9\-]{1,9})\)")


@cache
def abbreviations(text: str) -> tuple[tuple[str, str], ...]:
    """(long form, abbreviation) pairs a record defines: "Alzheimer's disease (AD)"."""
    return tuple((m.group(1).lower(), m.group(2).lower()) for m in _ABBREVIATION.finditer(text or ""))


def states_change(text: str) -> bool:
    """The sentence says which way something went, or that it did not ("increases", "did not
    alter")."""
    return bool(directions(normalise(text))) or negated(text)


#: a possessive inside a name: "Alzheimer's disease" and "Alzheimer disease" are one name
_POSSESSIVE_IN_NAME = re.compile(r"(?<=[a-z])['\u2019]s(?![a-z0-9])")


def name_pattern(name: str) -> re.Pattern:
    """`name` with optional separators between its letter and digit groups, in lower case;
    a possessive between two words is optional ("Alzheimer's disease", "Alzheimers disease"
    and "Alzheimer disease" read alike)."""
    groups = re.findall(r"[a-z]+|\d+", _POSSESSIVE_IN_NAME.sub("", name.lower()))
    body = ""
    for i, g in enumerate(groups):
        if i:
            letters = g[0].isalpha() and groups[i - 1][0].isalpha()
            body += r"(?:['\u2019]?s)?[^a-z0-9]{0,3}" if letters else r"[^a-z0-9]{0,3}"
        body += re.escape(g)
    return re.compile(rf"(?<![a-z0-9]){body}s?(?![a-z0-9])")
