"""Typed members of set-valued entities, and the words that type them.

A gene list is a set of resolved genes (symbol and NCBI Gene ID), never the string the
question wrote: two orders of the same genes are the same entity. A symptom list is a set
of HPO terms (id and name), each observed or excluded ("no seizures"). Sources receive
these members (biorag.contracts.models.SearchFilters), not words to re-split.

The word lists live in resources/question_words.json (biorag.understanding.question_words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from biorag.understanding.question_words import words


@dataclass(frozen=True)
class Member:
    """One member of a set-valued entity: a gene (official symbol, Gene ID) or a phenotype
    (HPO term name, HP id). `excluded`: a phenotype the question says is absent."""

    name: str
    ident: str = ""
    excluded: bool = False

    @property
    def polarity(self) -> str:
        return "excluded" if self.excluded else "observed"


def gene_members(genes) -> tuple[Member, ...]:
    """The resolved genes of a list (entities with one official symbol), in symbol order:
    the set, whatever order the question wrote them in."""
    out = {e.canonical[0]: Member(e.canonical[0], e.ident) for e in genes if len(e.canonical) == 1}
    return tuple(out[s] for s in sorted(out))


_WORD = re.compile(r"[a-z0-9']+")


def excluded_at(text: str, start: int, since: int = 0) -> bool:
    """Whether the phrase starting at `start` of `text` is negated: a negation word ("no",
    "without", "denies") among the three words before it, with no word between that starts
    another assertion ("no fever but seizures", "no fever, with seizures"); only words after
    `since` (the end of the previous phenotype: "absent thumb" negates nothing after it)."""
    before = _WORD.findall(text[since:start].lower())[-3:]
    for w in reversed(before):
        if w in words("negations"):
            return True
        if w in words("negation_breaks"):
            return False
    return False


def leftover_words(normalised: str, placeholder: str) -> list[str]:
    """Words of a question (normalised, entities blanked) beyond list joiners and the
    placeholder: what a gene-list question says besides its genes."""
    return [w for w in normalised.split() if w != placeholder and w not in words("list_joiners")]


def patient_framed(text: str, name: str = "") -> bool:
    """The question describes a person's features ("child with aniridia"): a name that is
    both a phenotype and a disease is read as the phenotype. Given the `name`, the person
    must come before it: "breast cancer in Tunisian patients" names the disease of a
    population, not a person's feature."""
    lowered = text.lower()
    if name and (at := lowered.find(name.lower())) >= 0:
        lowered = lowered[:at]
    return bool(words("patients").intersection(_WORD.findall(lowered)))
