"""The `hpo` source's inheritance field: how a disease is inherited, as HPO annotates it
(phenotype.hpoa's rows of aspect I, carried by each `DiseaseRecord`).

The answer is the disease the question names: the first record's and every record of the
same name (OMIM's and Orphanet's entries of "Huntington disease"), each saying what it
states. Its first line holds the modes, each with its HP id, and the entries that state them
("Autosomal dominant inheritance (HP:0000006), HPO's annotation of Huntington disease
(OMIM:143100)"); where the entries annotate different modes, a second line gives each
entry's own, and an entry of that name annotating none is named too. A disease whose entries
annotate no mode (qualifiers such as incomplete penetrance alone name none) is no answer:
the reading says so, and names what the records hold as a lead only.
"""

from __future__ import annotations

import re

from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from retrievers.hpo.record import DiseaseRecord, InheritanceTerm

DISEASE_INHERITANCE = AnswerField(
    "disease_inheritance", "mode of inheritance of a disease (HPO's inheritance annotations)",
    ("inheritance", "inherited", "inheritance pattern", "pattern of inheritance", "mode of inheritance",
     "inheritance mode", "hereditary pattern",
     # a question ending on the word asks whether or how the disease is passed on
     "hereditary $", "heritable $"),
    ("disease",),
    # a mode named with no other ask ("Marfan syndrome: autosomal dominant or recessive?");
    # weak, for a disease name holding these words may go unrecognised
    weak_cues=("autosomal dominant", "autosomal recessive", "x linked", "x linked recessive", "x linked dominant",
               "y linked", "mitochondrial inheritance", "dominant or recessive"))

_NONE = "no mode of inheritance annotated"


def _key(name: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


def _modes(rec: DiseaseRecord) -> list[InheritanceTerm]:
    return [t for t in rec.inheritance if not t.qualifier]


def _terms_text(terms: list[InheritanceTerm]) -> str:
    return "; ".join(f"{t.name} ({t.id})" for t in terms)


def _entry(rec: DiseaseRecord) -> str:
    """One entry and what it annotates ("Huntington disease (ORPHA:399): no mode ...")."""
    return f"{rec.name} ({rec.disease_id}): {_terms_text(rec.inheritance) if _modes(rec) else _NONE}"


def read_inheritance(evidence: list[Evidence]) -> Reading | None:
    """The inheritance of the disease the records are about (see the module docstring)."""
    diseases = DiseaseRecord.all_of(evidence)
    if not diseases:
        return None
    name = diseases[0][1].name
    asked = [(e, r) for e, r in diseases if _key(r.name) == _key(name)]
    stated = [r for _, r in asked if _modes(r)]
    release = diseases[0][1].hpo_release
    explanation = f"HPO inheritance annotations of {name} ({', '.join(r.disease_id for _, r in asked)}; HPO {release})"
    used = [e for e, _ in asked]
    if not stated:
        forms = [(e, r) for e, r in diseases if _form_of(r.name, name) and _modes(r)]
        if forms:
            return _by_form(name, forms, explanation)
        return _none_annotated(name, asked, diseases, explanation)
    terms = {t.id: t for r in stated for t in r.inheritance}
    ordered = sorted(terms.values(), key=lambda t: t.qualifier)  # modes first, each in the records' order
    # each mode also as a question writes it, without HPO's closing "inheritance": an option
    # "X-linked recessive" is the value "X-linked recessive inheritance"
    values = list(dict.fromkeys([t.name for t in ordered] + [t.name.removesuffix(" inheritance") for t in ordered]))
    if len({_terms_text(r.inheritance) for r in stated}) == 1:
        ids = " and ".join(r.disease_id for r in stated)
        first = f"{_terms_text(ordered)}, HPO's annotation of {name} ({ids})"
        rest = [_entry(r) for _, r in asked if not _modes(r)]
    else:
        first = f"{_terms_text(ordered)}: HPO's annotations of the entries named {name} differ"
        rest = [_entry(r) for _, r in asked]
    text = first + ("\n" + "; ".join(rest) if rest else "")
    return Reading(values, used, explanation, text=text)


#: what follows a disease's name in the name of one of its forms: a number ("Alport syndrome 2,
#: autosomal recessive", "... 3B"), a type, or the mode itself ("Alport syndrome, X-linked")
_FORM_TAIL = re.compile(r"^(?:\d+[a-z]?|type|x linked|autosomal|y linked|mitochondrial)\b")


def _form_of(candidate: str, name: str) -> bool:
    """`candidate` names a form of the disease `name` (`_FORM_TAIL`)."""
    key, asked = _key(candidate), _key(name)
    return key.startswith(asked + " ") and _FORM_TAIL.match(key[len(asked) + 1:]) is not None


def _by_form(name: str, forms: list[tuple[Evidence, DiseaseRecord]], explanation: str) -> Reading:
    """A disease annotated no mode of its own whose forms each are ("Alport syndrome": X-linked,
    autosomal recessive and autosomal dominant forms): each mode with the forms that state it.
    A claim of one mode holds for the forms that state it, which the line names."""
    by_mode: dict[str, tuple[InheritanceTerm, list[DiseaseRecord]]] = {}
    for _, r in forms:
        for t in _modes(r):
            by_mode.setdefault(t.id, (t, []))[1].append(r)
    lines = [f"{t.name} ({t.id}): " + ", ".join(f"{r.name} ({r.disease_id})" for r in rs) for t, rs in by_mode.values()]
    modes = [t.name for t, _ in by_mode.values()]
    values = list(dict.fromkeys(modes + [m.removesuffix(" inheritance") for m in modes]))
    text = f"{name} is inherited by form (HPO annotates its forms, not {name} itself): " + "; ".join(lines)
    return Reading(values, [e for e, _ in forms], explanation.replace(f"of {name} (", f"of the forms of {name} (", 1),
                   text=text, holds_for="for some of its forms" if len({_terms_text(_modes(r)) for _, r in forms}) > 1 else "")


def _none_annotated(name: str, asked: list[tuple[Evidence, DiseaseRecord]],
                    diseases: list[tuple[Evidence, DiseaseRecord]], explanation: str) -> Reading:
    """No entry of the name annotates a mode: refused, with what the records hold as a lead
    (an entry's qualifiers, and the modes of other names the search found)."""
    ids = " and ".join(r.disease_id for _, r in asked)
    lead = [f"{r.name} ({r.disease_id}): only {_terms_text(r.inheritance)}" for _, r in asked if r.inheritance]
    others = [(e, r) for e, r in diseases if _key(r.name) != _key(name) and _modes(r)]
    if others:
        lead.append("other names HPO matched: " + "; ".join(_entry(r) for _, r in others))
    return Reading([], [*(e for e, _ in asked), *(e for e, _ in others)], explanation,
                   text="\n".join(lead) or f"{name} ({ids}): {_NONE}",
                   refused=f"HPO annotates no mode of inheritance for {name} ({ids})")
