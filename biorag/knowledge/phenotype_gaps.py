"""A phenotype phrase one word short of an HPO name: "calf pseudohypertrophy" is HPO's "Calf
muscle pseudohypertrophy" (HP:0003707). People leave out a word HPO spells out; without this
the feature is reported unmatched and ranks nothing.

Only a word left out inside the name counts, never at either end: HPO's first words qualify
("congenital", "partial", "focal": with the first word left out, 1,805 names of HPO 2025-11-24
read as a more general term and 275 as the same one), and its last word is what the name is
about ("toe", "bone", "concentration", "morphology": "absent hallux" is not "absent hallux
epiphysis"). A word that denies is never left out, nor one HPO tells terms apart by
(`specifiers`: "sacral defect" is no "Sacral segmentation defect"). Each name of HPO 2025-11-24
taken out in turn and looked up as a phrase, the term or an ancestor of it was found in 689 of
1,280 matches with any word left out, 420 of 573 without these. Phrases are compared as the
store normalises names (`biorag.knowledge.phenotype_names`), and a phrase must keep two
content words: one word and a stop word fit too many names to say which.

A phrase one word short of one term may still say too little to name it: "absent end part" is
one word short of "absent knee end part" alone, yet "absent end part of thumb outermost long
bone" holds it too; "high level" is one short of "high ferritin level" alone, yet "high blood
serine level" holds it. So the terms of every name that holds the phrase's words in order are
asked too. The term taken is the one the phrase is one word short of that is an ancestor of the
others so fitted (the phrase said no more than it), and only if every term holding the phrase
is above or below it; otherwise nothing, since a guess would rank the wrong feature.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: words that carry no meaning of their own in a name: a phrase needs two others
STOP_WORDS = frozenset({"a", "an", "the", "of", "and", "or", "with", "in", "on", "to", "for", "by", "at", "from"})
#: words that say the opposite: never left out ("with bridging vein" is not "with no bridging vein")
DENYING = frozenset({"no", "not", "non", "without", "absent", "absence", "lack", "lacking", "missing"})


def cuts(key: str) -> list[tuple[str, str]]:
    """A normalised name with each inner word left out in turn, with that word ("calf muscle
    pseudohypertrophy" -> ("calf pseudohypertrophy", "muscle")), a denying word never; none
    for a name under three words."""
    words = key.split()
    return [(" ".join(words[:i] + words[i + 1:]), words[i]) for i in range(1, len(words) - 1)
            if words[i] not in DENYING]


def specifiers(named: Mapping[str, set[int]]) -> frozenset[str]:
    """Words HPO uses to tell terms apart: left out of a name (`named`: normalised name -> its
    terms), they leave another term's name more often than one of the same term ("sacral
    segmentation defect" is not "sacral defect"; "calf muscle hypertrophy" and "calf
    hypertrophy" name one term, and "muscle" tells terms apart far less often)."""
    same: dict[str, int] = {}
    other: dict[str, int] = {}
    for key, terms in named.items():
        for short, word in cuts(key):
            if short in named:
                tally = same if terms & named[short] else other
                tally[word] = tally.get(word, 0) + 1
    return frozenset(w for w, n in other.items() if n > same.get(w, 0))


class OneWordShort:
    """Phrases one inner word short of a name or synonym -> the terms so named, built once
    per store from its (normalised name, term) pairs. The word left out is never one of the
    store's `specifiers`: a phrase without it names something more general than the term."""

    def __init__(self, names: Iterable[tuple[str, int]]):
        named: dict[str, set[int]] = {}
        for key, term in names:
            named.setdefault(key, set()).add(term)
        self.specifiers = specifiers(named)
        terms: dict[str, set[int]] = {}
        for key, of in named.items():
            for short, word in cuts(key):
                if word not in self.specifiers:
                    terms.setdefault(short, set()).update(of)
        # most phrases fit one term: an int, not a set, keeps the index small
        self._terms: dict[str, int | tuple[int, ...]] = {
            k: next(iter(v)) if len(v) == 1 else tuple(sorted(v)) for k, v in terms.items()}

    def __len__(self) -> int:
        return len(self._terms)

    def terms(self, phrase: str) -> tuple[int, ...]:
        """The terms a normalised phrase is one inner word short of naming (none for a phrase
        of fewer than two content words)."""
        if sum(w not in STOP_WORDS for w in phrase.split()) < 2:
            return ()
        found = self._terms.get(phrase, ())
        return (found,) if isinstance(found, int) else found


def holds(name: list[str], phrase: list[str]) -> bool:
    """Whether a name holds the phrase's words in order, with more words anywhere."""
    rest = iter(name)
    return len(name) > len(phrase) and all(w in rest for w in phrase)


def most_general(short_of: Iterable[int], holding: Iterable[int], ancestors: Mapping[int, set[int]]) -> int | None:
    """Of the terms a phrase is one word short of (`short_of`) the one that is an ancestor of
    all the others, if every term with a name holding the phrase (`holding`) is above or below
    it; None otherwise. `ancestors`: term -> its ancestors, itself included."""
    short_of = set(short_of)
    top = [t for t in short_of if all(t in ancestors.get(o, ()) for o in short_of)]
    if len(top) != 1:
        return None
    t = top[0]
    return t if all(t in ancestors.get(h, ()) or h in ancestors.get(t, ()) for h in holding) else None
