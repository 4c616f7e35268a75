"""How HPO names and ids are written, shared by the HPO store's build and its reader.

Names are compared normalised: lower case, words only, each word singular, so "Seizures",
"seizure" and "SEIZURE." meet. Term ids are kept as numbers (HP:0001250 -> 1250).
"""

from __future__ import annotations

import re

from biorag.contracts.errors import InputError

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


#: words by which a finding is said to be up or down, each read as any of the others:
#: HPO lists "elevated creatine kinase" and "increased serum CK", people write "raised CK"
_UP = ("elevated", "increased", "high", "raised", "higher", "heightened")
_DOWN = ("decreased", "reduced", "low", "lowered", "lower", "diminished")
#: where a level is measured, which a synonym may or may not name
_SPECIMENS = ("serum", "circulating", "blood", "plasma")
_LEVELS = ("level", "concentration")


#: one word spelled two ways, both in clinical use, of which HPO writes one in a name and
#: maybe not in every synonym ("aortic root dilatation"; people write "aortic root dilation")
_SPELLINGS = {"dilation": "dilatation", "dilatation": "dilation"}


def phrase_variants(key: str) -> list[str]:
    """Other ways of writing a normalised phrase: a word in its other spelling ("aortic root
    dilation" -> "aortic root dilatation"); for a phrase that says a level is up or down, the
    direction word swapped for another of its own ("raised ck" -> "increased ck"), a
    specimen word added or dropped ("increased serum ck"), a trailing "level" dropped.
    Matching tries the phrase itself first; these only when it matches nothing."""
    words = key.split()
    spelled = " ".join(_SPELLINGS.get(w, w) for w in words)
    if len(words) < 2 or words[0] not in _UP + _DOWN:
        return [spelled] if spelled != key else []
    same = _UP if words[0] in _UP else _DOWN
    rests = [words[1:]]
    if rests[0][-1] in _LEVELS and len(rests[0]) > 1:
        rests.append(rests[0][:-1])  # "raised ck level": "increased ck" too
    bodies = []
    for rest in rests:
        bare = rest[1:] if rest[0] in _SPECIMENS and len(rest) > 1 else rest
        bodies += [bare, *([s, *bare] for s in _SPECIMENS)]
    out = dict.fromkeys(" ".join([w, *b]) for w in same[:3] for b in bodies)
    out.setdefault(spelled)
    out.pop(key, None)
    return list(out)


def term_number(hpo_id: str) -> int | None:
    """HP:0001250 -> 1250; None when it is not an HPO term id."""
    m = _TERM_ID.fullmatch(str(hpo_id))
    return int(m.group(1)) if m else None


def require_term_number(hpo_id: str) -> int:
    n = term_number(hpo_id)
    if n is None:
        raise InputError(f"'{hpo_id}' is not an HPO term id (expected HP: and 7 digits, e.g. HP:0001250)")
    return n


# ---- excluded features in words ("no seizures", "without hearing loss") ---------------------
#: words that put what follows them, up to the end of the clause, in the negative
_NEGATION_BEFORE = re.compile(
    r"\b(?:no|not|without|nor|never|denies|denied|lacks|lacking|free of|negative for|absence of|rule out|"
    r"ruled out for|did not have|does not have|has no|had no)\b", re.I)
#: words after a feature that deny it ("seizures were ruled out")
_NEGATION_AFTER = re.compile(r"\b(?:was|were|is|are|has been|have been)\s+(?:ruled out|excluded|not (?:seen|present|observed))\b",
                             re.I)
#: what ends a negation's reach: punctuation and words that start a new statement
_CLAUSE_END = re.compile(r"[.;!?,\n()]|:(?!\d)|\b(?:but|however|although|though|and|with|has|have|had|shows?|showed|presents?|"
                         r"presented|which|whereas|while)\b", re.I)


def negation_pieces(text: str) -> list[tuple[str, bool]]:
    """The text cut into pieces, each with whether it is negated: a negation cue reaches to
    the end of its clause ("no seizures or ataxia, and hypotonia": seizures and ataxia are
    negated, hypotonia is not). "or" and "nor" do not end a clause; "and", commas and
    "but" do. Cue words themselves are left out of the pieces."""
    pieces: list[tuple[str, bool]] = []
    pos, negated = 0, False
    cuts = sorted([(m.start(), m.end(), "end") for m in _CLAUSE_END.finditer(text)]
                  + [(m.start(), m.end(), "neg") for m in _NEGATION_BEFORE.finditer(text)])
    for start, end, kind in cuts:
        if start < pos:
            continue
        pieces.append((text[pos:start], negated))
        pos = end
        negated = kind == "neg"
    pieces.append((text[pos:], negated))
    out = []
    for piece, neg in pieces:
        if _NEGATION_AFTER.search(piece):
            piece, neg = _NEGATION_AFTER.sub(" ", piece), True
        if piece.strip():
            out.append((piece, neg))
    return out
