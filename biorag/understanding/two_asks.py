"""Two asks in one question, one for a record and one for the literature ("Where is FTO
located, and does it affect obesity risk?"): each part is answered on its own, the second
with the first part's subject in place of its pronoun ("does FTO affect obesity risk?").

Two record fields in one sentence ("Where is FTO, and is it protein coding?") keep the rule
of biorag.understanding.intent (the first one's field); this module only splits where the parts go to
different places, so neither part's answer stands in for the other's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from biorag.contracts.sources import Lexicon, Source
from biorag.understanding.analysis import analyse
from biorag.understanding.entity_patterns import clean_question
from biorag.understanding.intent import LEADS_QUESTION, NEXT_QUESTION
from biorag.understanding.options import split_options
from biorag.understanding.question_model import Analysis

#: words that stand for the first part's subject in the second part
_PRONOUN = re.compile(r"\b(?:it|its|it's|they|them|their|this gene|the gene|this disease|the disease|"
                      r"this condition|the condition|this protein|the protein)\b", re.I)
#: "or" between the parts: the second offers another wording of the first, not a second ask
_ALTERNATIVE = re.compile(r"\bor\b", re.I)
_SUBJECT_KINDS = ("gene", "disease", "phenotype", "rsid", "gene_list")


def _goes_to(a: Analysis) -> str | None:
    """"record", "literature", or None when the part asks nothing it can be routed by."""
    if a.intent is not None:
        return "record"
    if a.free_text and a.asks is not None:
        return "literature"
    return None


def _subject(a: Analysis) -> str | None:
    for kind in _SUBJECT_KINDS:
        for e in a.entities:
            if e.kind == kind and e.confident:
                return e.span or e.text
    return None


def split_asks(question: str, sources: Mapping[str, Source] | None, lexicon: Lexicon | None) -> list[str] | None:
    """The parts of a question that asks a record and the literature at once, each readable
    on its own (the first part's subject put in for a pronoun), or None when it does not."""
    stem, options = split_options(clean_question(question))
    if options or not sources:
        return None
    ends = [m.group(0) for m in NEXT_QUESTION.finditer(stem)]
    pieces = [p for p in NEXT_QUESTION.split(stem) if p.strip()]
    if len(pieces) < 2:
        return None
    parts, analyses = [], []
    for i, piece in enumerate(pieces):
        if i and not (LEADS_QUESTION.match(piece) or (i < len(ends) and "?" in ends[i])):
            return None  # words after a question that ask nothing ("... map? for my thesis")
        if i and _ALTERNATIVE.search(ends[i - 1]):
            return None  # one ask put two ways ("Is X still its name, or what is it called now?")
        text = piece.strip(" ,;")
        if i:
            subject = _subject(analyses[0])
            if subject and _subject(analyse(text, sources, lexicon)) is None and _PRONOUN.search(text):
                text = _PRONOUN.sub(subject, text, count=1)
        text = text if text.endswith(("?", ".", "!")) else text + "?"
        parts.append(text[0].upper() + text[1:])
        analyses.append(analyse(text, sources, lexicon))
    routes = [_goes_to(a) for a in analyses]
    if None in routes or len(set(routes)) < 2:
        return None
    return parts
