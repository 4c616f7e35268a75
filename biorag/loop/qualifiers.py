"""Whose condition a sentence speaks of. A condition word of a question may carry qualifiers
(the words right before it: "osteoporotic vertebral [fractures]") or a stated cause
("fractures due to vertebral metastases"). A sentence that gives the same condition another
cause speaks of other patients, however many topic words it shares with the question:
"fractures due to vertebral metastases" does not answer for osteoporotic fractures, nor
"osteoporotic fractures" for fractures due to metastases."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from biorag.loop.sentence_cues import reading_words, stem
from biorag.understanding.intent import PLACEHOLDER, normalise

#: how many words before a condition word qualify it
_REACH = 3


@dataclass(frozen=True)
class Qualified:
    head: str  # stem of the condition word ("fract")
    before: tuple[str, ...]  # the words right before it, nearest first ("vertebral", "osteoporotic")
    cause: str = ""  # stem of the last word of its stated cause ("metas"), "" when none
    cause_short: str = ""  # stem of the abbreviation in brackets right after the cause ("mptp")


@cache
def _cues() -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(c.split()) for c in reading_words("cause_cues"))


def _chunks(text: str) -> list[list[str]]:
    """The text's words, in runs that punctuation does not cut (a cause or a qualifier never
    reaches over a comma or a full stop); brackets stay, as tokens of their own, so that a
    cause's abbreviation ("... tetrahydropyridine (MPTP)") is read with it."""
    out = []
    for part in re.split(r"[;:\[\]?!]|[.,](?=\s|$)", text):  # not the commas of "1,2,3,6"
        tokens: list[str] = []
        for piece in re.findall(r"[()]|[^()]+", part):
            tokens += [piece] if piece in "()" else normalise(piece).split()
        if tokens:
            out.append(tokens)
    return out


def qualified(text: str, heads: set[str], function: frozenset[str]) -> list[Qualified]:
    """Each occurrence in `text` of a word whose stem is in `heads`, with its qualifiers and
    cause. `function` words (and an entity's placeholder) end a qualifier or a cause."""
    out: list[Qualified] = []
    ends = function | {PLACEHOLDER.strip(), "(", ")"}
    for tokens in _chunks(text):
        for i, w in enumerate(tokens):
            if stem(w) not in heads:
                continue
            before: list[str] = []
            for b in reversed(tokens[max(0, i - _REACH):i]):
                if b in ends or b.isdigit():
                    break
                before.append(b)
            out.append(Qualified(stem(w), tuple(before), *_cause(tokens[i + 1:], ends)))
    return out


def _cause(after: list[str], ends: frozenset[str]) -> tuple[str, str]:
    """The stems of the last word of a cause stated right after a condition word ("due to
    [vertebral metastases]") and of the abbreviation in brackets after it ("induced by
    1-methyl-4-phenyl-1,2,3,6-tetrahydropyridine (MPTP)"); "" for what is not there. Numbers
    inside a chemical's name are skipped."""
    for cue in _cues():
        if tuple(after[:len(cue)]) != cue:
            continue
        run: list[str] = []
        rest = after[len(cue):]
        for i, w in enumerate(rest):
            if w in ends or len(run) == _CAUSE_WORDS:
                short = rest[i + 1] if w == "(" and i + 1 < len(rest) and rest[i + 1] not in ends else ""
                return (stem(run[-1]) if run else "", stem(short) if short else "")
            if not w.isdigit():
                run.append(w)
        return (stem(run[-1]) if run else "", "")
    return ("", "")


#: words a cause runs to at most (a chemical's name is several)
_CAUSE_WORDS = 5


def question_qualified(core: str, topic: tuple[str, ...], function: frozenset[str]) -> tuple[Qualified, ...]:
    """The question's topic words that carry a qualifier or a cause."""
    return tuple(q for q in qualified(core, set(topic), function) if q.before or q.cause)


def other_patients(text: str, stems: set[str], asked: tuple[Qualified, ...], question_stems: frozenset[str],
                   function: frozenset[str]) -> bool:
    """The sentence gives one of the question's qualified conditions a cause the question
    does not name, while the question qualifies it in a way the sentence does not; or the
    question states a cause the sentence does not name, while the sentence qualifies the
    condition with an adjective the question does not hold ("osteoporotic fractures" for
    "fractures due to metastases"). `stems` are the sentence's word stems, `question_stems`
    the question's."""
    if not asked:
        return False
    said = {q.head: [] for q in asked}
    for s in qualified(text, set(said), function):
        said[s.head].append(s)
    for q in asked:
        for s in said[q.head]:
            if s.cause and not {s.cause, s.cause_short} & question_stems and any(
                    w not in stems for w in (*map(stem, q.before), q.cause) if w):
                return True
            if q.cause and q.cause not in stems and any(
                    stem(w) not in question_stems and w.endswith(_ADJECTIVE_ENDINGS) for w in s.before):
                return True
    return False


def population(asked: tuple[Qualified, ...]) -> frozenset[str]:
    """The stems of the question's described conditions: a condition word and its qualifiers,
    where one qualifier is an adjective ("osteoporotic vertebral fractures"). A record's title
    may supply them to its sentences ("In these patients, kyphoplasty improved pain" under
    the title "Vertebral fractures due to osteoporosis")."""
    return frozenset(w for q in asked if any(b.endswith(_ADJECTIVE_ENDINGS) for b in q.before)
                     for w in (q.head, *map(stem, q.before)))


#: how a qualifier that names a kind of condition ends ("osteoporotic", "pathological",
#: "traumatic"); nouns before a condition word ("compression fractures") say how it looks,
#: not whose it is
_ADJECTIVE_ENDINGS = ("ic", "al", "ous", "ary", "ive")
