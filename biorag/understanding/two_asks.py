"""Two asks in one question, one for a record and one for the literature ("Where is FTO
located, and does it affect obesity risk?"): each part is answered on its own, the second
with the first part's subject in place of its pronoun ("does FTO affect obesity risk?").

Two record fields in one sentence ("Where is FTO, and is it protein coding?") are split too
when they ask different fields, so the second is never dropped. Where the first part asks for a
gene of something else ("Which gene is mutated in cystic fibrosis, and what does it encode?"),
the pronoun of the second stands for that gene: the second part asks it through the first
("What does the gene mutated in cystic fibrosis encode?"), a hop the loop follows.
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
        if i and _PRONOUN.search(text) and _subject(analyse(text, sources, lexicon)) is None:
            text = _resolved(text, parts[0], analyses[0], sources, lexicon)
        text = text if text.endswith(("?", ".", "!")) else text + "?"
        parts.append(text[0].upper() + text[1:])
        analyses.append(analyse(text, sources, lexicon))
    routes = [_goes_to(a) for a in analyses]
    if None in routes:
        return None
    if len(set(routes)) < 2:  # record and record: split only where the fields differ
        if routes[0] != "record" or len({a.intent.kind for a in analyses}) < len(analyses):
            return None  # one place, one field: the question's own reading answers it
        if (whole := analyse(question, sources, lexicon).intent) is not None and len(whole.hops) > 1:
            return None  # read whole, a hop through the first ask ("Which gene is rs... in and what does it do?")
    return parts


def _resolved(text: str, first: str, first_analysis: Analysis, sources: Mapping[str, Source],
              lexicon: Lexicon | None) -> str:
    """The later part with its pronoun put back: the gene the first part asks for, through
    the first part ("the gene mutated in cystic fibrosis"), where that reads as a record
    question; else the first part's subject."""
    intent = first_analysis.intent
    through = _asked_gene(first) if intent is not None and intent.hops[-1].field.yields == "gene" else None
    if through and _subject(first_analysis) not in (None, *_genes_named(first_analysis)):
        hop = _put_back(text, through)
        read = analyse(hop, sources, lexicon).intent
        if read is not None and read.kind != intent.kind:  # not the first ask again ("how common is the gene ...")
            return hop
    subject = _subject(first_analysis)
    return _put_back(text, subject) if subject else text


#: "its" and the words to the end of the part ("what are its aliases")
_ITS_AT_END = re.compile(r"\bits\s+((?:[\w-]+\s+){0,2}[\w-]+)(?=\W*$)", re.I)


def _put_back(text: str, name: str) -> str:
    """The part with `name` for its pronoun: "its aliases" at the end as "the aliases of
    <name>" (a hop's name reads on: "the aliases of the gene that causes X"), else "<name>'s"."""
    m = _PRONOUN.search(text)
    if m.group(0).lower() != "its":
        return text[:m.start()] + name + text[m.end():]
    if (end := _ITS_AT_END.match(text, m.start())) is not None:
        return f"{text[:m.start()]}the {end.group(1)} of {name}{text[end.end():]}"
    return f"{text[:m.start()]}{name}'s{text[m.end():]}"


#: "Which gene is mutated in X", "what genes cause X": the words after the gene word
_ASKED_GENE = re.compile(r"\b(genes?)\s+((?:is|are|was|were)\s+)?(.+?)\W*$", re.I)
#: words that can follow "the gene" as they are ("mutated in", "responsible for", "that causes")
_DESCRIBES = re.compile(r"^(?:\w+ed|that|which|responsible|in|for|of|behind|underlying)\b", re.I)


def _asked_gene(first: str) -> str | None:
    """The gene a part asks for, named by what the part says of it ("the gene mutated in X";
    "What gene causes X": "the gene that causes X")."""
    m = _ASKED_GENE.search(first)
    if not m:
        return None
    gene, copula, rest = m.group(1).lower(), (m.group(2) or "").strip(), m.group(3)
    if _DESCRIBES.match(rest):
        return f"the {gene} {rest}"
    if copula:  # "Which gene is rs334 in": "the gene that rs334 is in"
        head, _, tail = rest.partition(" ")
        return f"the {gene} that {head} {copula} {tail}".rstrip()
    return f"the {gene} that {rest}"  # "What gene causes X": "the gene that causes X"


def _genes_named(a: Analysis) -> list[str]:
    return [e.span or e.text for e in a.entities if e.kind == "gene"]
