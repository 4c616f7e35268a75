"""Initialisms a record uses without defining them: "Aβ42" for the question's "amyloid-beta
42", "TBI" for "traumatic brain injury". Abstracts in a field write its standard short forms
bare, so the record's own bracketed definitions (`sentence_cues.abbreviations`) miss them.
A sentence's token stands for a run of the question's words when its letters are their
initials, a Greek letter read as its Latin one (β: B)."""

from __future__ import annotations

import re

#: Greek letters, as symbols and spelled out, by the Latin initial they stand for
_GREEK = {"α": "A", "β": "B", "γ": "G", "δ": "D", "ε": "E", "κ": "K", "λ": "L", "μ": "M", "σ": "S", "τ": "T",
          "alpha": "A", "beta": "B", "gamma": "G", "delta": "D", "epsilon": "E", "kappa": "K", "lambda": "L",
          "sigma": "S", "tau": "T"}
_SPELLED = re.compile(r"(alpha|beta|gamma|delta|epsilon|kappa|lambda|sigma|tau)$")
_TOKEN = re.compile(r"[A-Za-z\u0370-\u03ff]+")


def spelled_initials(token: str) -> str:
    """The capital letters `token` spells when it is an initialism ("Aβ42": AB, "Abeta": AB,
    "TBI": TBI), "" when it is a word ("Beta", "amyloid") or one letter."""
    letters = "".join(c for c in token if not c.isdigit() and c != "-")
    m = _SPELLED.search(letters)
    head, tail = (letters[:m.start()], _GREEK[m.group(1)]) if m and m.start() > 0 else (letters, "")
    out = "".join(_GREEK.get(c, c) for c in head) + tail
    if not head or not head[0].isupper() or not out.isupper() or not out.isalpha():
        return ""
    return out if 2 <= len(out) <= 5 else ""


def phrase_initials(words: list[str]) -> dict[str, tuple[str, ...]]:
    """Initials of each run of two or three consecutive `words` (no function word among them:
    the caller passes runs), in capitals: {"AB": ("amyloid", "beta")}."""
    out: dict[str, tuple[str, ...]] = {}
    for size in (2, 3):
        for i in range(len(words) - size + 1):
            run = tuple(words[i:i + size])
            out.setdefault("".join(_GREEK.get(w, w[0]).upper()[0] for w in run), run)
    return out


def initialism_words(text: str, initials: dict[str, tuple[str, ...]]) -> list[str]:
    """The question's words that the text's initialisms stand for ("Aβ43 was more neurotoxic"
    with {"AB": ("amyloid", "beta")}: amyloid, beta)."""
    if not initials:
        return []
    out: list[str] = []
    for token in _TOKEN.findall(text):
        run = initials.get(spelled_initials(token))
        if run:
            out.extend(run)
    return out
