"""Questions that ask what class a gene's product is, read by the gene-class field.

Among options that are genes, the one of a class ("Which of these encodes a kinase?
A) TP53 B) BRAF", `option_subjects`) is chosen by each option's gene-class field. Whether
one named gene is of a class ("Is TP53 a tumor suppressor gene?") is a claim for the
literature: the gene's names could say Yes where they state the class, but where they do
not (RB1's never say "tumor suppressor") only the literature can, and the loop has no step
yet from a record that does not answer to the literature. Either way the question's words,
once its question words and framing ("which of these", "encodes a ... gene") are set aside,
must be a class and nothing more (`biorag.knowledge.gene_classes.asked_class`): words
before the class narrow it ("a receptor tyrosine kinase"); words after it ask something of
it ("Which kinase phosphorylates tau?", "Is BRAF a kinase inhibitor target?") and are read
the usual way. A class word inside the class phrase is no entity of its own: "tumor" of
"a tumor suppressor" is no phenotype, "E3" of "an E3 ubiquitin ligase" no gene.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from biorag.contracts.sources import Source, declared_fields
from biorag.knowledge.gene_classes import AskedClass, asked_class, class_phrase, class_words
from biorag.understanding.intent import normalise, plan
from biorag.understanding.question_model import Entity, Intent
from biorag.understanding.question_words import FILLER
from biorag.understanding.unknown_names import POLITE

CLASS_FIELD = "gene_class"
#: words that frame a class question without narrowing the class
_FRAME = frozenset("""which what these those following listed below above one ones option options choice
choices gene genes protein proteins product products encode encodes encoded encoding code codes coding for
is are be was a an the act acts as classified considered known example function functions serve serves
does do it""".split())


def names_class(text: str) -> bool:
    """Whether a text names a gene class at all."""
    return class_phrase(text) is not None


def in_class(entity: Entity, text: str) -> bool:
    """Whether a name found in the text is part of the class it names."""
    found = class_phrase(text)
    return found is not None and \
        set(class_words(entity.span or entity.text)) <= set(class_words(text)[found[1]:found[2]])


def class_asked(text: str, sources: Mapping[str, Source] | None) -> tuple[Intent, AskedClass] | None:
    """(the gene-class intent, the class asked) when the text, less its framing, asks for a
    class and nothing more; None otherwise."""
    if not sources or (asked := _asked(text, ())) is None:
        return None
    intent = plan(CLASS_FIELD, {"gene"}, declared_fields(sources))
    return (intent, asked) if intent is not None else None


def _asked(text: str, leave_out: Sequence[str]) -> AskedClass | None:
    """The class the text asks for once its framing and the names in `leave_out` (the gene
    it is asked of) are set aside (at most two narrowing words before it)."""
    text = normalise(text)
    for name in leave_out:
        text = text.replace(f" {normalise(name).strip()} ", " ")
    words = [w for w in text.split() if w not in FILLER and w not in POLITE and w not in _FRAME]
    asked = asked_class(" ".join(words))
    return asked if asked is not None and len(asked.modifiers) <= 2 else None


def asks_class_of_gene(text: str, entities: list[Entity]) -> bool:
    """"Is TP53 a tumor suppressor gene?": the text names one gene (besides any name inside
    the class phrase) and asks, of it, for a class only."""
    genes = [e for e in entities if e.kind == "gene" and e.confident and not in_class(e, text)]
    if len(genes) != 1 or not names_class(text):
        return False
    g = genes[0]
    return _asked(text, [n for n in (g.span, g.text) if n]) is not None
