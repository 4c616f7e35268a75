"""Questions that ask what something does, not a record's field, though a field's cue word
is in them: where an action happens ("Where does gamma-secretase cleave APP?", not where APP
lies) and what a named gene acts on ("Which genes does EWS-FLI1 activate in Ewing sarcoma?",
not its official name). `literature_asks` sends both to the literature."""

from __future__ import annotations

import re
from collections.abc import Mapping

from biorag.contracts.sources import Source
from biorag.understanding.intent import NEXT_QUESTION, field_vocabulary, normalise
from biorag.understanding.question_model import Entity, Intent
from biorag.understanding.question_words import FILLER, NOT_GENES, filler
from biorag.understanding.unknown_names import POLITE

#: words of a where-question that say where a gene or a sequence lies, not an action
_WHERE_NOT_ACTION = frozenset({"behind", "for", "of", "on", "in", "at", "within", "inside", "near", "exactly",
                               "genome", "genomic", "sequence", "human"})


def _forms(word: str) -> set[str]:
    """A word and the forms a cue word may take in it ("positioned": position, "maps": map)."""
    forms = {word, word + "s", word.removesuffix("s"), word.removesuffix("d"), word.removesuffix("ed")}
    return forms | {word.removesuffix("ing"), word.removesuffix("ing") + "e"} if word.endswith("ing") else forms


#: a where-question: "where" and the words after it (in the question's first part)
_WHERE_CLAUSE = re.compile(r"(?:^| )where (.+)")


def where_of_action(blanked: str, sources: Mapping[str, Source]) -> tuple[str, ...]:
    """The words of a where-question (its first part) that ask where something acts, not
    where a gene lies: "Where does gamma-secretase cleave ∎?" ("gamma", "secretase",
    "cleave"), "Where is ∎ expressed?" ("expressed",) where no source's field is asked by
    "expressed". Empty when every word left is a field's cue word ("located", "map",
    "chromosome"), filler ("the gene for ∎") or holds a digit ("where is FLURBLE1 located":
    an unknown symbol)."""
    parts = [p for p in NEXT_QUESTION.split(blanked) if p and p.strip()]
    m = _WHERE_CLAUSE.search(normalise(parts[0] if parts else blanked))
    if m is None:
        return ()
    vocabulary = field_vocabulary(sources)
    stop = NOT_GENES | FILLER | POLITE | _WHERE_NOT_ACTION
    left = [w for w in m.group(1).split()
            if w.isalpha() and w not in stop and not filler(w)
            and not _forms(w) & vocabulary]
    return tuple(left)


#: "which genes does ∎ <verb>": the genes a named gene acts on
_GENES_ACTED_ON = re.compile(r" (?:which|what) genes? (?:does|do|did|can|could|will|would) ∎ ([a-z]+) ")


def gene_acts_on(entities: list[Entity], blanked: str) -> str | None:
    """The verb of "Which genes does EWS-FLI1 activate in Ewing sarcoma?": the question asks
    which genes a gene it names acts on (None for any other question)."""
    kinds = {e.kind for e in entities if e.confident}
    if "gene" not in kinds or not kinds <= {"gene", "disease", "phenotype"}:
        return None
    m = _GENES_ACTED_ON.search(normalise(blanked))
    return None if m is None or filler(m.group(1)) else m.group(1)


def cues_verb(field: Intent | None, verb: str) -> bool:
    """The field read from the question is asked by that verb: "Which genes does TP53
    activate?" keeps its curated targets. Where it is not (the weak "which gene" read an
    official name, because the regulation cue "activate" holds only at a question's end),
    the question asks what the gene acts on, a relation for the literature."""
    cues = {normalise(c.removesuffix(" $")).strip() for hop in (field.hops if field is not None else ())
            for c in (*hop.field.cues, *hop.field.weak_cues)}
    return bool(_forms(verb) & cues)
