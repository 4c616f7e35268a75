"""Yes/no questions that claim how a disease is inherited ("Is Marfan syndrome autosomal
dominant?", "Is cystic fibrosis inherited in an autosomal recessive manner?", "Is Rett
syndrome X-linked?"), read by the disease's inheritance field.

A yes/no claim about a disease goes to the literature (biorag.understanding.literature_asks):
no record states whether "visual loss is permanent". A mode of inheritance is what a disease's
inheritance record states exactly, so a claim that is one, and nothing more, is that record's:
the question, once the disease's name, its framing ("is", "inherited in an ... manner", "a
... disease") and polite words are set aside, must be modes of inheritance alone. Words after
or around the mode ("Is Marfan syndrome autosomal dominant with high penetrance in
children?") ask more than the record states and leave the question to the literature.

Whether a disease is inherited at all ("Is autism hereditary?") names no mode and stays with
the literature: a record annotating a mode for a disease's rare Mendelian form says nothing
of the common disease. The claimed mode is written in the words of HPO's term names
("autosomal dominant", "x linked"), and the answer says Yes when a value the record states
holds those words (`claim_holds`: "x linked" holds for "X-linked recessive
inheritance"), No when none does. Two modes offered ("autosomal dominant or recessive?")
claim neither: the question asks which, and the answer is the record's modes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from biorag.contracts.sources import Source, declared_fields
from biorag.understanding.intent import PLACEHOLDER, blank_entities, normalise, plan
from biorag.understanding.question_model import Entity, Intent
from biorag.understanding.question_words import FILLER
from biorag.understanding.unknown_names import POLITE

INHERITANCE_FIELD = "disease_inheritance"
#: the words a question names a mode by (normalised) -> the words HPO's term names use for it
_MODES = {
    "autosomal dominant": "autosomal dominant", "autosomal dominantly": "autosomal dominant",
    "autosomal recessive": "autosomal recessive", "autosomal recessively": "autosomal recessive",
    "x linked recessive": "x linked recessive", "x linked dominant": "x linked dominant",
    "x linked": "x linked", "sex linked": "x linked", "y linked": "y linked",
    "mitochondrial": "mitochondrial", "maternally": "mitochondrial", "maternal": "mitochondrial",
    "dominant": "dominant", "dominantly": "dominant", "recessive": "recessive", "recessively": "recessive",
    "autosomal": "autosomal", "digenic": "digenic", "oligogenic": "oligogenic", "polygenic": "polygenic",
    "sporadic": "sporadic", "semidominant": "semidominant",
}
_LONGEST = max(len(m.split()) for m in _MODES)
#: words that frame a claim of inheritance without adding to it
_FRAME = frozenset("""inherited hereditary heritable inheritable inheritance inherit transmitted passed down in as an
a the manner fashion way pattern mode form by follow follows following have has show shows trait disease disorder
condition syndrome is are does do it with through genetic genetically whether if""".split())


def inheritance_claim(core: str, entities: list[Entity],
                      sources: Mapping[str, Source] | None) -> tuple[Intent, str] | None:
    """(the inheritance intent, the claimed mode in HPO's words; "" when the question offers
    several) when `core`, a yes/no question naming a disease, claims modes of inheritance and
    nothing more; None otherwise."""
    if not sources or not any(e.confident and e.kind == "disease" for e in entities):
        return None
    modes = claimed_modes(core, entities)
    if modes is None:
        return None
    intent = plan(INHERITANCE_FIELD, {"disease"}, [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about])
    return (intent, modes[0] if len(modes) == 1 else "") if intent is not None else None


def claimed_modes(core: str, entities: list[Entity]) -> list[str] | None:
    """The modes the question claims, in HPO's words, when its words, less the names and the
    framing, are modes joined by "or" alone (at least one)."""
    named = [_without_mode(e) for e in entities if e.confident and e.kind in ("disease", "phenotype")]
    words = [w for w in normalise(blank_entities(core, named)).split()
             if w != PLACEHOLDER.strip() and w not in FILLER and w not in POLITE]
    words = [w for w in words if w not in _FRAME]
    modes, i = [], 0
    while i < len(words):
        if words[i] == "or" and modes:
            i += 1
            continue
        n = next((n for n in range(min(_LONGEST, len(words) - i), 0, -1) if " ".join(words[i:i + n]) in _MODES), 0)
        if not n:
            return None
        modes.append(_MODES[" ".join(words[i:i + n])])
        i += n
    return list(dict.fromkeys(modes)) or None


def _without_mode(e: Entity) -> Entity:
    """The name as the question wrote it, less a mode it ends on: "Is Alport syndrome X-linked?"
    finds the catalogue's "Alport syndrome, X-linked", yet claims the mode (that form's record
    then states it)."""
    words = normalise(e.text).split()
    for n in range(min(_LONGEST, len(words) - 1), 0, -1):
        if " ".join(words[-n:]) in _MODES:
            head = re.match(r"^(.*?)(?=[\s,-]+" + r"[\s,-]+".join(map(re.escape, words[-n:])) + r"\W*$)", e.text, re.I)
            if head and head.group(1).strip():
                return replace(e, text=head.group(1).strip(), span="")
    return e


def claim_holds(claimed: str, values: Sequence[str]) -> bool:
    """Whether some value holds every word of the claim ("x linked" in "X-linked recessive
    inheritance")."""
    want = set(normalise(claimed).split())
    return any(want <= set(normalise(v).split()) for v in values)
