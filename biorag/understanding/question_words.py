"""The plain words a question is read with: the word lists of resources/question_words.json
(each with what it is for), the ordinary English words, and the filler words a bare question
("What is TP53?") is made of, misspelt or not.

Word lists are data, not code: a list is changed in the data file, and the code names it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType

from biorag.knowledge.names import deletions

_RESOURCES = Path(__file__).parents[1] / "resources"


@cache
def _lists() -> dict:
    return json.loads((_RESOURCES / "question_words.json").read_text(encoding="utf-8"))


def word_list(kind: str) -> tuple[str, ...]:
    """A word list of resources/question_words.json, in the file's order."""
    return tuple(_lists()[kind]["words"])


@cache
def words(kind: str) -> frozenset[str]:
    """A word list of resources/question_words.json ("negations", "not_genes", ...) as a set."""
    return frozenset(word_list(kind))


@cache
def word_map(kind: str) -> Mapping[str, str]:
    """A word -> word mapping of resources/question_words.json ("same_word")."""
    return MappingProxyType(dict(_lists()[kind]["words"]))


@cache
def english_words() -> frozenset[str]:
    """Ordinary English words (see resources/english_words.PROVENANCE.md)."""
    with gzip.open(_RESOURCES / "english_words.txt.gz", "rt", encoding="utf-8") as fh:
        return frozenset(line.strip() for line in fh if line.strip())


#: words that are never gene names in a question (checked case-insensitively)
NOT_GENES = words("not_genes")
#: words that leave a question "bare" (asking about the entity itself: "What is TP53?")
FILLER = words("filler")
#: a letter left out of a filler word of 4 letters or more ("wat", "abut")
_LONG_FILLER_SHORT = frozenset(d for w in FILLER if len(w) >= 4 for d in deletions(w))
_FILLER_NEAR = {v: w for w in FILLER if len(w) >= 3 for v in {w} | deletions(w)}


def filler(word: str) -> bool:
    """A word that leaves a question bare ("what", "tell", "about"), or a misspelling of one:
    a letter left out of one of 4 letters or more ("wat"), or, for a word that is no English
    word, one edit away ("teh", "whta")."""
    if word in FILLER:
        return True
    if len(word) < 3 or not word.isalpha():
        return False
    if word in _LONG_FILLER_SHORT:
        return True
    return word not in english_words() and bool(
        _FILLER_NEAR.keys() & ({word} | deletions(word)))
