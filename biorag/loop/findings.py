"""What a record found, read for a yes/no claim about it.

An abstract answers a claim in its findings: the sentences of its results or conclusions
("RESULTS: ... did not differ significantly ..."), not its background ("One of the problems
with manual resuscitators is ...") nor its aims and methods. A question put as a study's
title ("Therapeutic anticoagulation in the trauma patient: is it safe?") often shares few
words with those sentences, so they are read when the record as a whole is about the claim
(`literature_question.record_about`), one finding at a time:

- a null finding ("no significant difference", "similar", "p = 0.34") denies a claim of an
  effect or a difference, and confirms one of sameness ("Is X as effective as Y?");
- a negation ("did not increase") denies, as everywhere (`sentence_cues.negated`);
- a finding of no harm ("no complications") confirms a claim of safety or feasibility,
  unless the harm is what the claim is about;
- a finding that states an effect (a significant difference, an association, a direction
  the claim asks for: `states_effect`) confirms it; one that only describes ("The mean time
  per procedure was 100 minutes") or guesses ("may") states nothing.

The word lists are data (resources/reading_words.json: "null_findings", "sameness",
"harms", "stated_effects", "finding_sections", "background_sections").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from biorag.contracts.models import Evidence
from biorag.loop.extractive import split_sentences
from biorag.loop.sentence_cues import has_phrase, holds_any, reading_words
from biorag.understanding.intent import normalise

#: a section label opening a line of an abstract ("RESULTS:", "DESIGN, SETTING, AND PARTICIPANTS:")
_SECTION = re.compile(r"^\s*([A-Z][A-Z ,/&-]{2,60}):\s+")
#: labels PubMed gives a paragraph the authors left unlabelled
_NO_LABEL = frozenset({"UNLABELLED", "UNASSIGNED"})
#: a p-value that is not significant at the usual 0.05 ("p = 0.34", "P>0.05")
_NOT_SIGNIFICANT_P = re.compile(r"\bp\s*(?:>|=|≥|>=)\s*0?\.(?:0[5-9]|[1-9])", re.I)
#: a bracket that holds only the verdict on a difference ("21.5 and 17.6 (not significant)"):
#: unlike a bracket that defines a group, it is what the finding says
_NULL_BRACKET = re.compile(r"\((?:not (?:statistically )?significant|non-?significant|n\.?s\.?)\)", re.I)


@lru_cache(maxsize=512)
def _sections(text: str) -> tuple[tuple[str, str], ...]:
    """(label, line) for each line of an abstract; "" where the line has no label (a label
    carries over to the unlabelled lines after it)."""
    out, label = [], ""
    for line in text.splitlines():
        if m := _SECTION.match(line):
            label = m.group(1).strip().upper()
            label = "" if label in _NO_LABEL else label
        out.append((label, line))
    return tuple(out)


def section_of(ev: Evidence, sentence: str) -> str:
    """The section label of the line of `ev` holding `sentence` ("RESULTS"); "" when the
    record has no labels there."""
    for label, line in _sections(ev.text or ""):
        if sentence in line:
            return label
    return ""


def _any_word(label: str, names: tuple[str, ...]) -> bool:
    return holds_any(normalise(label), names)


def reports_finding(ev: Evidence, sentence: str) -> bool:
    """The sentence stands in a results or conclusions section of a structured abstract. In
    an abstract without labels a finding cannot be told from background this way ("Less
    toxic regimens with better survival rates should be investigated"): only a sentence that
    names the whole question (`literature_question.mentions`) answers there."""
    label = section_of(ev, sentence)
    return bool(label) and _any_word(label, reading_words("finding_sections")) \
        and not _any_word(label, reading_words("background_sections"))


def concludes(ev: Evidence, sentence: str) -> bool:
    """The sentence stands in the abstract's conclusions: the authors' own reading of their
    results ("CONCLUSIONS: Pelvic osteotomy reduces failure rates ...")."""
    label = section_of(ev, sentence)
    return bool(label) and _any_word(label, reading_words("conclusion_sections"))


def record_findings(ev: Evidence) -> list[str]:
    """The sentences of `ev` that stand in its results or conclusions (`reports_finding`)."""
    return [s for s in split_sentences(ev.text or "") if reports_finding(ev, s)]


def outside_findings(ev: Evidence, sentence: str) -> bool:
    """The sentence stands under a label that reports no finding (background, aims, methods,
    outcome measures): what it says is known or planned, not what the study found."""
    return bool(section_of(ev, sentence)) and not reports_finding(ev, sentence)


#: "without" and what it leaves out, to the end of its clause ("without a significant rise in
#: complications"), and a contrast set off by commas ("Presynaptic aggregates, not Lewy bodies,
#: cause ...")
_ASIDE = re.compile(r"\bwithout\b[^,;:()]*|,\s+(?:and\s+)?not\s+[^,;:()]{1,80},", re.I)


def without_asides(sentence: str, asks: Callable[[str, str], bool]) -> str:
    """The sentence without each "without ..." phrase or ", not ...," contrast that denies
    nothing the claim asks about. A side effect spared ("Pelvic osteotomy reduces failure rates
    without a significant rise in complications"), a comparison group named by the claim's own
    subject ("24.0% versus 45.9% without osteotomy") or the alternative a finding rules out
    ("Presynaptic alpha-synuclein aggregates, not Lewy bodies, cause neurodegeneration", for
    whether the aggregates do) leave the rest of the sentence standing; "without a difference
    in failure rates" denies it. `asks(phrase, rest)` says whether the phrase names something
    the claim asks about that the rest of the sentence does not."""
    for m in reversed(list(_ASIDE.finditer(sentence))):
        before, after = sentence[:m.start()], sentence[m.end():]
        if not asks(m.group(0), before + after):
            sentence = before + (", " if m.group(0).startswith(",") else " ") + after
    return sentence


def null_finding(sentence: str) -> bool:
    """The sentence reports no effect or no difference ("no significant difference",
    "comparable", "p = 0.34")."""
    norm = normalise(outside_brackets(sentence))
    return holds_any(norm, reading_words("null_findings")) or _NOT_SIGNIFICANT_P.search(sentence) is not None \
        or _NULL_BRACKET.search(sentence) is not None


def outside_brackets(sentence: str) -> str:
    """The sentence without what it says in brackets: there it defines a group or gives a
    figure ("a negative response to VAS (no acceleration or decelerations)"), and a "no"
    inside denies nothing the finding states."""
    return re.sub(r"\([^()]*\)", " ", sentence)


@lru_cache(maxsize=1)
def _harm_free() -> re.Pattern:
    harms = "|".join(re.escape(h) for h in sorted(reading_words("harms"), key=len, reverse=True))
    return re.compile(rf"\b(?:no|without|free of|free from)\s+(?:\w+\s+){{0,2}}?(?:{harms})\b", re.I)


def without_harms(sentence: str, asked_norm: str) -> tuple[str, bool]:
    """The sentence without the harms it reports none of ("There were no complications"), and
    whether it reported such; unchanged when the claim asks about one of the harms itself
    (`asked_norm`: the normalised question)."""
    if holds_any(asked_norm, reading_words("harms")):
        return sentence, False
    cut = _harm_free().sub(" ", sentence)
    return cut, cut != sentence


#: a p-value significant at 0.05 ("p < 0.001", "P<.05")
_SIGNIFICANT_P = re.compile(r"\bp\s*(?:<|≤|<=)\s*0?\.0", re.I)


def states_effect(sentence: str) -> bool:
    """The finding states an effect, a difference or an association ("significantly lower",
    "was associated with", "p < 0.01"), not only that something was seen or measured."""
    return holds_any(normalise(sentence), reading_words("stated_effects")) or _SIGNIFICANT_P.search(sentence) is not None


def claims_sameness(norm_question: str) -> bool:
    """The claim is that two things are alike ("as effective as", "equivalent", "comparable"):
    a null finding confirms it."""
    return any(has_phrase(norm_question, p) for p in reading_words("sameness"))
