"""Initialisms a record uses without defining them: "Aβ42" for the question's "amyloid-beta
42", "TBI" for "traumatic brain injury". Abstracts in a field write its standard short forms
bare, so the record's own bracketed definitions (`sentence_cues.abbreviations`) miss them.
A sentence's token stands for a run of the question's words when its letters are their
initials, a Greek letter read as its Latin one (β: B). The other way round, a question's
name that ends in a Greek letter is searched as the initialisms abstracts write for it
(`written_initialisms`: "amyloid-beta 42" as Aβ42, Abeta42)."""

from __future__ import annotations

import re

#: the Greek letters gene and protein names use, by the name that spells each out (the
#: gene dictionaries spell them: `name_extraction` reads "TNF-α" as "TNF-alpha")
GREEK_LETTERS = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "κ": "kappa",
                 "λ": "lambda", "μ": "mu", "σ": "sigma", "τ": "tau", "ω": "omega"}
#: a symbol read as the Latin initial it stands for in an initialism (β: B)
_INITIAL = {symbol: name[0].upper() for symbol, name in GREEK_LETTERS.items()}
#: letters spelled out that end a written name ("amyloid-beta", "Abeta"); not "tau" (spelled
#: out it is the protein), "mu" or "omega" (words of their own: "mu opioid", "omega-3")
_SYMBOL = {name: symbol for symbol, name in GREEK_LETTERS.items() if name not in ("tau", "mu", "omega")}
_SPELLED = re.compile(f"({'|'.join(_SYMBOL)})$")
_TOKEN = re.compile(r"[A-Za-z\u0370-\u03ff]+")
_GREEK_SYMBOL = re.compile(f"[{''.join(GREEK_LETTERS)}]")
_GLUED_NUMBER = re.compile(f"({'|'.join(GREEK_LETTERS.values())})(?=[0-9])")


def spelled_greek(text: str) -> str:
    """Lower-case text with each Greek letter spelled out and a number glued to a spelled
    letter set apart, so that the ways a name is written read alike: "Aβ42" and "Abeta42" both
    read "abeta 42"; "TNF-α" reads "tnf-alpha"."""
    low = _GREEK_SYMBOL.sub(lambda m: GREEK_LETTERS[m.group()], text.lower())
    return _GLUED_NUMBER.sub(r"\1 ", low)


def spelled_initials(token: str) -> str:
    """The capital letters `token` spells when it is an initialism ("Aβ42": AB, "Abeta": AB,
    "TBI": TBI), "" when it is a word ("Beta", "amyloid") or one letter."""
    letters = "".join(c for c in token if not c.isdigit() and c != "-")
    m = _SPELLED.search(letters)
    head, tail = (letters[:m.start()], m.group(1)[0].upper()) if m and m.start() > 0 else (letters, "")
    out = "".join(_INITIAL.get(c, c) for c in head) + tail
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
            out.setdefault("".join(_INITIAL.get(w, w[0].upper()) for w in run), run)
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


def written_initialisms(text: str) -> list[str]:
    """How abstracts write a name of `text` that ends in a spelled Greek letter, in lower case:
    the initials of the one to three words before it with the letter as a symbol and spelled,
    a number right after it joined on ("amyloid-beta 42": aβ, abeta, aβ42, abeta42). Words of
    three letters or fewer do not start a name ("is amyloid beta" gives no "iaβ"); a form no
    record writes ("taβ" from "than amyloid beta") finds nothing."""
    tokens = re.findall(r"[a-z]+|[0-9]+", text.lower())
    out: dict[str, None] = {}
    for i, w in enumerate(tokens):
        if w not in _SYMBOL or i == 0:
            continue
        number = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1].isdigit() and len(tokens[i + 1]) <= 3 else ""
        for size in (1, 2, 3):
            words = tokens[max(0, i - size):i]
            if len(words) < size or not all(x.isalpha() and len(x) > 3 for x in words):
                break
            initials = "".join(x[0] for x in words)
            for form in (initials + _SYMBOL[w], initials + w):
                out.setdefault(form, None)
                if number:
                    out.setdefault(form + number, None)
    return list(out)
