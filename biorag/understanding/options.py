"""Multiple-choice options: read from the question, and one of them chosen by evidence.

Options come in the formats exams use, on one line or on several: "A) APOE B) PSEN1",
"A. APOE" per line (MedMCQA, MedQA, MMLU as the evaluation harness writes them),
"(a) ... (b) ...", "1. ... 2. ...". The stem (the question without its options) is what
is understood and searched; the answer is the one option the evidence names for the asked
field, or nothing (the loop then reports insufficient). Never a list beyond the options.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from biorag.knowledge.gene_classes import AskedClass, value_states

#: an option label: "(A)", "A)", "A.", "a)", "(a)", "1.", "1)", at a line start or after a space
_LABEL = re.compile(r"(?:(?<=\s)|^)(?:\(([A-Ha-h]|[1-8])\)|([A-Ha-h]|[1-8])[.)])[ \t]+(?=\S)")
_FIRSTS = {"A": "upper", "a": "lower", "1": "digit"}
_TRAILING = re.compile(r"[\s,;]*(?:\bor\b)?[\s,;]*$", re.I)


@dataclass(frozen=True)
class Option:
    label: str  # as the question writes it: "B", "b", "2"
    text: str
    #: what the option's words name (official symbols, disease names), beside its text
    names: tuple[str, ...] = ()
    #: the kinds of entity those names are ("gene", "disease")
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class SubjectOptions:
    """The options are what the stem asks about ("Which of these genes is on chromosome 12?
    A) TP53 B) KRAS"): each option's record is read for the asked field, and the chosen
    option is the one whose value states `wanted`, the stem's words beyond the field's own
    ("chromosome 12"; empty for a yes/no field such as "is protein coding"). `gene_class`:
    the class the stem asks for ("not a tumor suppressor"; `wanted` is its text), stated by
    a gene-class value only in a name's head (`biorag.knowledge.gene_classes.value_states`)."""

    wanted: str
    gene_class: AskedClass | None = None


def _style(label: str) -> str:
    return "digit" if label.isdigit() else "upper" if label.isupper() else "lower"


def _next(label: str) -> str:
    return chr(ord(label) + 1)


def split_options(question: str) -> tuple[str, list[Option]]:
    """(stem, options): the options when the question lists two or more, labelled in order
    from A, a or 1, each label of the same style; else (question, [])."""
    marks = list(_LABEL.finditer(question))
    for i, m in enumerate(marks):
        first = m.group(1) or m.group(2)
        if first not in _FIRSTS:
            continue
        seq, want = [m], _next(first)
        for later in marks[i + 1:]:
            label = later.group(1) or later.group(2)
            if label == want and _style(label) == _style(first) and bool(later.group(1)) == bool(m.group(1)):
                seq.append(later)
                want = _next(label)
        if len(seq) < 2:
            continue
        stem = question[:seq[0].start()].strip()
        if not stem:
            continue
        options = []
        for a, b in zip(seq, [*seq[1:], None], strict=True):
            text = question[a.end(): b.start() if b is not None else len(question)]
            text = _TRAILING.sub("", text.strip()).strip().rstrip(".")
            options.append(Option(a.group(1) or a.group(2), text))
        if all(o.text for o in options):
            return stem, options
    return question, []


def _key(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def choose(options: list[Option], values: list[str]) -> Option | None:
    """The one option that the values read from evidence name (its text or a name it was
    linked to, case and punctuation ignored; a value listing names, "PSMB10, LMP10, MECL1",
    or glossing one, "TP53 (tumor protein p53)", names each); None when none or several do."""
    keys = {_key(part) for v in values if v for part in (v, *re.split(r"\s*[,;(]\s*", v))}
    named = [o for o in options if keys.intersection(_key(n) for n in (o.text, *o.names))]
    return named[0] if len(named) == 1 else None


def option_line(option: Option) -> str:
    return f"{option.text} (option {option.label})"


#: a band, never the start of a word ("XPA") nor cut before its decimals ("17q21" of "17q21.31")
_BAND = re.compile(r"\b((?:[1-9]|1\d|2[0-2]|X|Y)[pq]\d{0,2}(?:\.\d{1,3})?)(?!\w|\.\d)", re.I)
_CHROMOSOME = re.compile(r"\b(?:(?:chromosome|chr)\s*([1-9]|1\d|2[0-2]|X|Y)|([1-9]|1\d|2[0-2]|X|Y)\s+chromosome)\b", re.I)
_VALUE_CHROMOSOME = re.compile(r"^\s*(?:chr)?([1-9]|1\d|2[0-2]|X|Y)(?![\d])", re.I)


def wanted_band(text: str) -> str | None:
    """A cytogenetic band the text names ("17q21.31", "12p"), or None."""
    m = _BAND.search(text)
    return m.group(1) if m else None


def wanted_place(text: str) -> str | None:
    """The band ("17q21.31") or else the chromosome ("chromosome 12") the text names, or None."""
    if band := wanted_band(text):
        return band
    m = _CHROMOSOME.search(text)
    return f"chromosome {(m.group(1) or m.group(2)).upper()}" if m else None


#: words that ask for the option whose value does not state the rest ("is not protein coding")
_NEGATIONS = frozenset({"not", "isn", "isnt", "doesn", "doesnt", "non"})


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def states(wanted: str, value: str) -> bool:
    """Whether an option's field value states what the stem wants: the band it names (the
    value's band is it or lies inside it: "17q21" holds "17q21.31"), else the chromosome
    it names, else every one of its words (plurals folded); nothing wanted: a "Yes". A
    negation ("not") asks for the value that does not state the rest ("No" when nothing is left)."""
    if band := wanted_band(wanted):
        v = value.strip().lower()
        b = band.lower()
        return v == b or (v.startswith(b) and not v[len(b)].isdigit())
    if m := _CHROMOSOME.search(wanted):
        found = _VALUE_CHROMOSOME.match(value)
        return found is not None and found.group(1).upper() == (m.group(1) or m.group(2)).upper()
    words = {_stem(w) for w in _key(wanted).split()}
    if negated := bool(words & _NEGATIONS):
        words -= _NEGATIONS
    if not words:
        return value.strip().lower() == ("no" if negated else "yes")
    return negated != (words <= {_stem(w) for w in _key(value).split()})


def choose_by_value(subject: SubjectOptions, values: dict[Option, str]) -> Option | None:
    """The one option whose value `states` what the stem wants (a gene class: `value_states`);
    None when none or several do."""
    if (asked := subject.gene_class) is not None:
        stating = [o for o, v in values.items() if value_states(asked, v)]
    else:
        stating = [o for o, v in values.items() if states(subject.wanted, v)]
    return stating[0] if len(stating) == 1 else None
