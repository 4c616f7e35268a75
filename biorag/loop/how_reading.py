"""What the answer to a how-question must carry beyond the question's names.

Naming the question's entities together says that they are linked, not what was asked:

- asked how or why, a mechanism word ("mediated by", "required for") or a stated change
  (`says_how`); the leading record's sentence that states the mechanism is quoted beside the
  lead (`mechanism_sentence`);
- asked for a measure (`asked_measure`): how common a condition is (a prevalence, an incidence,
  a share, "1 in 2,500"), how two things differ (a comparison), or a risk (odds, a hazard, a
  raised or lowered chance), a sentence that states one (`states_measure`). "Cystic fibrosis
  is caused by mutations in CFTR" does not say how common it is.

The word lists are data (resources/reading_words.json, "mechanism_markers" and "asked_measures").
"""

from __future__ import annotations

import re
from functools import cache

from biorag.loop.extractive import ScoredSentence
from biorag.loop.sentence_cues import (
    hedged,
    holds_any,
    only_announces,
    reading_entry,
    reading_words,
    states_change,
)
from biorag.understanding.intent import normalise

_SYMBOL_TOKEN = re.compile(r"(?<![\w-])([A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9-]*)(?![\w])")


def says_how(sentence: str) -> bool:
    """The sentence says how or why, not only that two things go together: it holds a
    mechanism word ("mediated by", "required for") or states a change ("reduced the effect
    of ...")."""
    return holds_any(normalise(sentence), reading_words("mechanism_markers")) or states_change(sentence)


def mechanism_sentence(lead: ScoredSentence, ranked: list[ScoredSentence], quoted: list[ScoredSentence],
                       own: frozenset[str]) -> ScoredSentence | None:
    """The sentence of the lead's record that states the mechanism ("The mechanism involved
    JNK activation, which hyperphosphorylated dynein ..."): an abstract names the question's
    entities once and its mechanism in a later sentence that need not repeat them, nor be
    among the sentences closest to the question. Of the sentences not yet `quoted` that hold
    a mechanism word, the closest that names a molecule the question does not (`own`) is
    taken, else the closest: "Our results define a mechanism linking ..." only sums up."""
    markers = reading_words("mechanism_markers")
    said = {s.text for s in quoted}
    candidates = [s for s in ranked
                  if s.evidence.key == lead.evidence.key and s.text not in said and not only_announces(s.text)
                  and not hedged(s.text) and holds_any(normalise(s.text), markers)]
    naming = [s for s in candidates
              if any(m.group(1).lower() not in own for m in _SYMBOL_TOKEN.finditer(s.text))]
    return (naming or candidates or [None])[0]


def _measures() -> dict[str, dict]:
    return reading_entry("asked_measures")["measures"]


@cache
def _phrases(measure: str, kind: str) -> tuple[str, ...]:
    """A measure's "asks" or "markers", normalised once: `states_measure` reads every sentence."""
    return tuple(normalise(w).strip() for w in _measures()[measure][kind])


#: a superlative of frequency and the noun it ranks ("the most common cause of ...")
_SUPERLATIVE = r"(?:most common(?:ly)?|most frequent(?:ly)?|commonest|most prevalent|leading|predominant|main|principal)"
#: the noun ranked by a superlative adjective, after at most two words for a frequency ("the
#: most common presenting symptom of": symptom; "the main metabolic roles of" asks no rank);
#: "most frequently involved in" ranks no noun (a frequency is asked: "The muscle most
#: frequently involved was the psoas")
_RANKED = re.compile(r"\b(?:(?:most common|most frequent|commonest|most prevalent)\s+(?:[a-z]+\s+){0,2}?"
                     r"|(?:leading|predominant|main|principal)\s+)([a-z]+?)s?\s+(?:of|in|among|for)\b")


def asked_measure(norm: str) -> str:
    """The measure a question (normalised) asks for: "frequency", "comparison", "risk", "" or,
    for the most common thing of a kind, "ranked <noun>" ("the most common cause of dementia":
    "ranked cause")."""
    if (m := _RANKED.search(norm)) is not None:
        return f"ranked {m.group(1)}"
    for measure in _measures():
        if holds_any(norm, _phrases(measure, "asks")):
            return measure
    return ""


def states_measure(sentence: str, measure: str, names: tuple[tuple[str, tuple[re.Pattern, ...]], ...] = ()) -> bool:
    """The sentence states the asked measure: one of its words, or a figure written its way
    ("12%", "1 in 3,000", "per 100,000"). Asked for the most common thing of a kind, it ranks
    that kind of the question's names: "the most common cause of dementia", not "dementia
    is ... a leading cause of disability" (`names`: the question's (name, patterns))."""
    if not measure:
        return True
    if measure.startswith("ranked "):
        noun = re.escape(measure.removeprefix("ranked "))
        ranked = re.finditer(rf"\b{_SUPERLATIVE}\s+(?:[\w-]+\s+){{0,2}}?{noun}\w*\s+(?:of|in|among|for)\s+(.{{0,80}})",
                             sentence, re.IGNORECASE)
        return any(not names or any(p.search(m.group(1).lower()) for _n, ps in names for p in ps) for m in ranked)
    if holds_any(normalise(sentence), _phrases(measure, "markers")):
        return True
    return any(re.search(p, sentence, re.IGNORECASE) for p in _measures()[measure].get("figures", ()))


def measure_said(measure: str) -> str:
    """What a sentence must state, for a reason line ("states how common it is")."""
    if measure.startswith("ranked "):
        return f"names the most common {measure.removeprefix('ranked ')}"
    return _measures()[measure]["said"]
