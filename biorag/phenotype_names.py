"""How HPO names and ids are written, shared by the HPO store's build and its reader.

Names are compared normalised: lower case, words only, each word singular, so "Seizures",
"seizure" and "SEIZURE." meet. Term ids are kept as numbers (HP:0001250 -> 1250).
"""

from __future__ import annotations

import re

from biorag.errors import InputError

_WORD = re.compile(r"[a-z0-9]+")
_TERM_ID = re.compile(r"\s*HP:(\d{7})\s*", re.I)


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def name_words(text: str) -> list[str]:
    """The normalised words of a text (lower case, singular)."""
    return [singular(w) for w in _WORD.findall(text.lower())]


def normalise(text: str) -> str:
    return " ".join(name_words(text))


def term_number(hpo_id: str) -> int | None:
    """HP:0001250 -> 1250; None when it is not an HPO term id."""
    m = _TERM_ID.fullmatch(str(hpo_id))
    return int(m.group(1)) if m else None


def require_term_number(hpo_id: str) -> int:
    n = term_number(hpo_id)
    if n is None:
        raise InputError(f"'{hpo_id}' is not an HPO term id (expected HP: and 7 digits, e.g. HP:0001250)")
    return n
