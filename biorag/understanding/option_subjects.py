"""Options that are the subjects of a multiple-choice stem.

"Which of these genes is on chromosome 12? A) TP53 B) KRAS C) BRCA1": the stem names no
gene, each option names one, and the stem asks a gene's field (its location). Read that way,
the options become the question's genes, the intent is the field asked of a gene, and
`SubjectOptions.wanted` keeps the stem's other words ("chromosome 12"), which the chosen
option's value must state (`options.choose_by_value`). A stem that names its own subject
("Which of these is an alias of PSMB10?") is answered the usual way instead.

A stem that asks only for a class ("Which of the following is a tumor suppressor?", "Which
of these genes encodes a receptor tyrosine kinase?", `class_questions`) reads each option's
gene-class field: the class is what is wanted, and the words before it ("receptor") must
stand in the same name.
"""

from __future__ import annotations

from collections.abc import Mapping

from biorag.contracts.sources import Source, declared_fields
from biorag.understanding.class_questions import class_asked, in_class
from biorag.understanding.intent import detect_intent, normalise, plan
from biorag.understanding.options import Option, SubjectOptions, wanted_band, wanted_place
from biorag.understanding.question_model import Entity, Intent
from biorag.understanding.question_words import FILLER
from biorag.understanding.unknown_names import POLITE

#: words that frame an option question without saying what is wanted of the option
_FRAME = frozenset("""
which these those following listed below above one ones option options choice choices
has have had located location lies lie found sits encoded encodes encode belongs belong
with at in on as for by its their known called named involved involve involves participates
participate plays play role acts act takes take part
""".split())
#: a field whose values are only "Yes"/"No" cannot state the stem's other words ("encodes a
#: protein involved in DNA mismatch repair"): the gene's function is read for them instead
_YES_NO_FIELDS = frozenset({"protein_coding"})
_FUNCTION_FIELD = "summary"
#: where a band is asked for, the field that holds it (the chromosome alone cannot tell
#: 17q21.31 from 17q12)
_BAND_FIELD = "map_location"


def subject_options(stem: str, options: list[Option], entities: list[Entity],
                    sources: Mapping[str, Source] | None) -> tuple[Intent, list[Entity], SubjectOptions] | None:
    """(intent, the options as gene entities, what is wanted) when every option names one
    gene, the stem names none itself and asks a field of a gene; None otherwise."""
    if not sources or len(options) < 2 or any(e.confident and e.kind == "gene" and not in_class(e, stem)
                                              for e in entities):
        return None
    if any(len(o.names) != 1 or o.kinds != ("gene",) for o in options):
        return None
    if len({o.names[0] for o in options}) < len(options):
        return None  # two options naming one gene: no option can be told apart by its record
    genes = [Entity("gene", o.names[0], True, (o.names[0],), "symbol") for o in options]
    if (by_class := class_asked(stem, sources)) is not None:
        return by_class[0], genes, SubjectOptions(by_class[1].text, gene_class=by_class[1])
    intent = detect_intent(stem, {"gene"}, sources)
    if intent is None or len(intent.hops) != 1 or intent.hops[0].takes != ("gene",):
        return None
    if wanted_band(stem) and intent.hops[0].field.name == "chromosome":
        intent = _on_field(intent, _BAND_FIELD, sources)
    hop = intent.hops[0]
    wanted = _wanted(stem, hop.field.cues + hop.field.weak_cues)
    if hop.field.name in _YES_NO_FIELDS and set(wanted.split()) - {"not"}:
        intent = _on_field(intent, _FUNCTION_FIELD, sources)
    return intent, genes, SubjectOptions(wanted)


def _on_field(intent: Intent, name: str, sources: Mapping[str, Source]) -> Intent:
    """The intent reading the field `name` of the same source instead (when it has one)."""
    source = intent.hops[0].source
    return plan(name, {"gene"}, [(s, f) for s, f in declared_fields(sources) if s == source]) or intent


def _wanted(stem: str, cues: tuple[str, ...]) -> str:
    """The place the stem names ("chromosome 12", "17q21.31"), else its words beyond its
    question words, its framing and the field's cues."""
    if place := wanted_place(stem):
        return place
    text = normalise(stem)
    for cue in sorted(cues, key=len, reverse=True):
        text = text.replace(f" {normalise(cue).strip()} ", " ")
    return " ".join(w for w in text.split() if w not in FILLER and w not in POLITE and w not in _FRAME)
