"""Degenerate model output: detected, cut and reported, never shown as an answer.

Small models fail in three recognisable ways, measured on SmolLM2-135M:
- they loop ("The answer to the question in three sentences is:" twenty times, or one
  sentence over and over);
- they stop at once (empty output);
- they answer outside the asked-for form: JSON or code instead of prose, the prompt's
  scaffolding copied back (``<evidence>``, "Question: ..."), or a preamble announcing an
  answer that never comes ("The answer is:").

`inspect_output` returns the part of a draft that may be shown (possibly empty) and one
line per problem, which the caller writes into the trace. Use it wherever generated text
becomes an answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

#: consecutive copies of one token span that mark a loop ("the the the", "X. X. X.")
MIN_COPIES = 3
#: longest repeated span looked for, in tokens
MAX_PERIOD = 60
#: a repeated "sentence" shorter than this is a split artefact ("protein kinase C."), not a loop
MIN_SENTENCE_WORDS = 3

_TOKEN = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_SCAFFOLD = re.compile(r"</?evidence>|^\s*question\s*:|^\s*answer\s*:\s*$", re.I | re.M)
_STRUCTURED = re.compile(r"^\s*(?:[{\[]|```)")
_PREAMBLE = re.compile(r":\s*$")


@dataclass
class CheckedOutput:
    """`text` is what may be shown ('' when nothing is usable); `problems` what was cut."""

    text: str
    problems: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return bool(self.text)


def _norm(token: str) -> str:
    return token.lower().strip(".,;:!?\"'()[]")


def cut_loop(text: str) -> tuple[str, str | None]:
    """Cut `text` where one span of tokens starts repeating MIN_COPIES times in a row; keep
    one copy. Returns (text, description of the loop or None)."""
    spans = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    tokens = [_norm(text[a:b]) for a, b in spans]
    n = len(tokens)
    best: tuple[int, int] | None = None  # (start, period) of the earliest loop
    for period in range(1, min(MAX_PERIOD, n // MIN_COPIES) + 1):
        need = period * MIN_COPIES
        run = 0  # length of the current stretch where tokens[i] == tokens[i - period]
        for i in range(period, n):
            run = run + 1 if tokens[i] == tokens[i - period] and tokens[i] else 0
            if run >= need - period:
                start = i - need + 1
                if best is None or start < best[0]:
                    best = (start, period)
                break
    if best is None:
        return text, None
    start, period = best
    copies = 1
    while tokens[start + copies * period : start + (copies + 1) * period] == tokens[start : start + period]:
        copies += 1
    unit = text[spans[start][0] : spans[start + period - 1][1]]
    kept = text[: spans[start + period - 1][1]]
    shown = unit if len(unit) <= 80 else unit[:77] + "..."
    return kept.strip(), f"repetition: {shown!r} x{copies} cut"


def inspect_output(draft: str, echo: Sequence[str] = ()) -> CheckedOutput:
    """The usable part of a free-text draft and what was wrong with the rest.

    `echo`: sentences of the prompt (instructions, question) a model may copy back;
    a draft sentence that is one of them is cut."""
    problems: list[str] = []
    text = (draft or "").strip()
    if not text:
        return CheckedOutput("", ["empty output"])
    if _STRUCTURED.match(text):
        return CheckedOutput("", ["off-schema: structured data or code where prose was asked for"])
    text, loop = cut_loop(text)
    if loop:
        problems.append(loop)
        ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", text)]
        if ends and ends[-1] < len(text):  # the loop broke off mid-sentence: drop the stub
            text = text[: ends[-1]]
    echoed = {" ".join(_norm(t) for t in e.split()) for e in echo if e.strip()}
    kept: list[str] = []
    seen: set[str] = set()
    repeats = 0
    for sentence in _SENTENCE_END.split(text):
        key = " ".join(_norm(t) for t in sentence.split())
        if not key:
            continue
        if _SCAFFOLD.search(sentence):
            problems.append(f"off-schema: prompt scaffolding {sentence[:60]!r} cut")
        elif key in echoed:
            problems.append(f"off-schema: prompt echoed {sentence[:60]!r} cut")
        elif key in seen and len(key.split()) >= MIN_SENTENCE_WORDS:
            repeats += 1
        else:
            seen.add(key)
            kept.append(sentence)
    if repeats:
        problems.append(f"repetition: {repeats} repeated sentence(s) cut")
    # a closing "The answer is:" announces an answer that never came
    while kept and _PREAMBLE.search(kept[-1]):
        problems.append(f"off-schema: preamble without an answer {kept.pop()[:60]!r} cut")
    return CheckedOutput(" ".join(kept).strip(), problems)
