"""Multiple-choice options: read from the question, and one of them chosen by evidence.

Options come in the formats exams use, on one line or on several: "A) APOE B) PSEN1",
"A. APOE" per line (MedMCQA, MedQA, MMLU as the evaluation harness writes them),
"(a) ... (b) ...", "1. ... 2. ...", and unlabelled as people type them: "Which of these is a
tumour suppressor: MYC, RB1, KRAS or ERBB2?", "Which of MYC, RB1 or KRAS is a tumour
suppressor?" (`unlabelled_options`). The stem (the question without its options) is what
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
    label: str  # as the question writes it: "B", "b", "2"; "" when the question gives none
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
    return unlabelled_options(question)


#: "which of these", "which one of the following", "which of them": a stem that asks for one
#: of a list, which may then follow without "or"
_WHICH_OF = re.compile(r"\bwhich\s+(?:one\s+)?of\s+(?:these|those|the\s+following|them)\b", re.I)
#: the stem, then the list after a colon or a question mark: "Which of these is X: A, B or C?"
_LIST_AFTER = re.compile(r"^(?P<stem>.*\bwhich\b[^:?]*?)\s*[:?]\s*(?P<items>[^:?]+?)\s*[?.]?\s*$", re.I | re.S)
#: the list inside the stem: "Which of A, B or C is X?" (the list ends at its verb)
_LIST_INSIDE = re.compile(r"^(?P<lead>.*?\bwhich\s+(?:one\s+)?of)\s+(?!these\b|those\b|the\s+following\b|them\b)"
                          r"(?P<items>[^?:]+?,[^?:]+?\bor\s+[^?:]+?)\s+(?P<verb>is|are|encodes?|codes|has|lies|maps)\b"
                          r"(?P<rest>[^?]*)\??\s*$", re.I | re.S)
_ITEM_SPLIT = re.compile(r"\s*,\s*(?:or\s+)?|\s+or\s+", re.I)
_MAX_ITEM_WORDS = 5


def unlabelled_options(question: str) -> tuple[str, list[Option]]:
    """(stem, options) of a choice written without labels, or (question, []). The list must
    offer a choice: joined by "or", or only commas after a stem that asks "which of these";
    "and" lists a set, not a choice ("Which of these genes share a pathway: A, B and C?"
    keeps its gene list). Each option is a short name (up to five words)."""
    if m := _LIST_AFTER.match(question):
        stem, items = m.group("stem").strip(), m.group("items")
        choice = bool(re.search(r"\bor\b", items, re.I)) or (_WHICH_OF.search(stem) and not re.search(r"\band\b", items, re.I))
    elif m := _LIST_INSIDE.match(question):
        stem = f"{m.group('lead')} these {m.group('verb')}{m.group('rest')}?".strip()
        items, choice = m.group("items"), True
    else:
        return question, []
    texts = [t.strip().rstrip(".") for t in _ITEM_SPLIT.split(items.strip())]
    if not choice or len(texts) < 2 or not all(t and len(t.split()) <= _MAX_ITEM_WORDS for t in texts):
        return question, []
    return stem, [Option("", t) for t in texts]


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
    return f"{option.text} (option {option.label})" if option.label else option.text


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
