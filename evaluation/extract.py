"""Answer extraction: turn the agent's free-text answer into what a scorer compares.

One function per answer format. Each is deterministic and never guesses: when the
text does not contain an answer of the requested shape it returns None (or an empty
list) and the question scores 0. Scorers (scoring.py) then apply the benchmark's own
normalisation rules to what these functions return.
"""

from __future__ import annotations

import re

# `[gene:5699]`, `[pubmed:123, dbsnp:rs1]`, `[1]`, `[1, 2]`: citation markers the agent
# appends to claims. They are never part of an answer.
_CITATION = re.compile(r"\s*\[(?:[A-Za-z_]+:[^\]\s]+|\d+)(?:\s*[,;]\s*(?:[A-Za-z_]+:[^\]\s]+|\d+))*\]")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


def strip_citations(text: str) -> str:
    """Remove citation markers and markdown emphasis; keep everything else verbatim."""
    return _EMPHASIS.sub("", _CITATION.sub("", text or ""))


def extract_short_answer(text: str) -> str:
    """The short answer for GeneTuring/GeneHop-style scoring.

    Rule: drop citation markers and markdown emphasis, then keep the first non-empty
    line, stripped. Nothing else is changed (no case folding, no trailing-period
    removal): the GeneGPT normalisations in scoring.py are applied to this string
    exactly as they were applied to GeneGPT's raw output.
    """
    for line in strip_citations(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


# "Answer: B", "answer is (C)", "The correct answer is option D"
_ANSWER_STATEMENT = r"\banswer\s*(?:is|:|=)?\s*(?:option\s*|choice\s*)?\(?([A-{last}])\)?(?![A-Za-z])"
# "Option A", "choice (B)": weaker than an answer statement ("option B is wrong, the answer is C")
_OPTION_MENTION = r"\b(?:option|choice)\s*(?:is|:)?\s*\(?([A-{last}])\)?(?![A-Za-z])"
_FIRST_LINE = [
    # the whole first line is a letter: "B", "(B)", "B.", "B)"
    r"^\(?([A-{last}])\)?[.):]?$",
    # leading letter with a separator: "B. Paris", "(C) text", "D) text", "A: text"
    r"^\(?([A-{last}])(?:\)|\.|:)\s",
]


def extract_choice(text: str, options: list[str] | None = None, n_options: int = 4) -> str | None:
    """The chosen option letter (A, B, ...) of a multiple-choice answer, or None.

    Tried in order on the citation-free text:
    1. an answer statement: "answer is C", "Answer: (B)", "the answer is option D";
    2. the first line is just a letter ("B", "(B)", "B.");
    3. the first line starts with a lettered option ("C. Paris", "(A) ...");
    4. an option mention: "option D", "choice (B)" (the first one);
    5. when `options` are given: exactly one option text appears in the answer
       (case-insensitive, whole text) -> its letter. Several matches -> None.
    Letters are upper-case only, so the English word "a" is never read as option A.
    """
    if n_options < 1 or n_options > 26:
        raise ValueError("n_options must be 1..26")
    last = chr(ord("A") + n_options - 1)
    clean = strip_citations(text).strip()
    if not clean:
        return None
    first_line = next((ln.strip() for ln in clean.splitlines() if ln.strip()), "")
    letter = _first_upper(_ANSWER_STATEMENT.format(last=last), clean)
    if letter:
        return letter
    for pat in _FIRST_LINE:
        m = re.match(pat.format(last=last), first_line)
        if m:
            return m.group(1)
    letter = _first_upper(_OPTION_MENTION.format(last=last), clean)
    if letter:
        return letter
    if options:
        low = clean.lower()
        hits = [i for i, opt in enumerate(options[:n_options]) if opt.strip() and opt.strip().lower() in low]
        if len(hits) == 1:
            return chr(ord("A") + hits[0])
    return None


def _first_upper(pattern: str, text: str) -> str | None:
    """First match of `pattern` (keywords any case) whose captured letter is upper-case."""
    for m in re.finditer(pattern, text, re.IGNORECASE):
        if m.group(1).isupper():
            return m.group(1)
    return None


_YNM = re.compile(r"\b(yes|no|maybe)\b", re.IGNORECASE)
#: a word after "no" that makes it a determiner ("no evidence"); a conjunction does not
#: ("the answer is no because ...")
_BEFORE_WORD = re.compile(r"[ \t]+(?!(?:because|since|as|but|and|given|according|based|so)\b)[A-Za-z]", re.I)


def extract_yes_no(text: str, allow_maybe: bool = False) -> str | None:
    """"yes", "no" (or "maybe" when allowed) from a free-text answer, or None.

    Rule: the first of these words (whole word, any case) in the citation-free text
    decides, so "No, it is not..." -> no and "Yes. ... no evidence of ..." -> yes.
    Negated forms are not interpreted ("not yes" still reads yes). When maybe is not
    allowed, a leading "maybe" is skipped and the next yes/no decides. A "no" inside the
    text followed by a word is a determiner, not an answer ("there is no evidence", "the
    evidence does not say: no cited sentence ..." of a declined answer); opening the text
    it is one ("No evidence supports it").
    """
    text = strip_citations(text)
    opening = len(text) - len(text.lstrip(" \t\n\"'*"))
    for m in _YNM.finditer(text):
        word = m.group(1).lower()
        if word == "maybe" and not allow_maybe:
            continue
        if word == "no" and m.start() > opening and _BEFORE_WORD.match(text, m.end()):
            continue
        return word
    return None


_LIST_SPLIT = re.compile(r"\s*(?:[,;\n]|\band\b)\s*", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*")


def extract_factoid_list(text: str, max_items: int = 5) -> list[str]:
    """Ranked candidate answers from a factoid answer (BioASQ style: up to 5).

    Rule: on the citation-free text, each bulleted or numbered line is a candidate;
    otherwise the first non-empty line is split on commas, semicolons and the word
    "and". Candidates are stripped of surrounding spaces, quotes and a final period;
    empty and duplicate (case-insensitive) ones are dropped; order is kept.
    """
    clean = strip_citations(text)
    lines = [ln for ln in clean.splitlines() if ln.strip()]
    if not lines:
        return []
    bullets = [ln for ln in lines if _BULLET.match(ln)]
    if bullets:
        raw = [_BULLET.sub("", ln) for ln in bullets]
    else:
        raw = _LIST_SPLIT.split(lines[0])
    out: list[str] = []
    seen: set[str] = set()
    for item in raw:
        item = item.strip().strip("\"'").strip()
        if item.endswith("."):
            item = item[:-1].rstrip()
        if item and item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
        if len(out) == max_items:
            break
    return out
