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
    linked to, case and punctuation ignored); None when none or several do."""
    keys = {_key(v) for v in values if v}
    named = [o for o in options if keys.intersection(_key(n) for n in (o.text, *o.names))]
    return named[0] if len(named) == 1 else None


def option_line(option: Option) -> str:
    return f"{option.text} (option {option.label})"
