"""Pathway, process and gene-group names as people write them, matched to the term names of
the bundled gene-set libraries (GO Biological Process, Reactome, HGNC gene groups), so that
"the genes of the Wnt pathway" is read from the library term that lists them.

How a name is matched, and why that loosely and no more:

- case, hyphens and punctuation, "signalling" for "signaling" and a plural "pathways" do not
  change a name: people write GO's "G protein-coupled receptor signaling pathway" every way
  (`name_key` reads them alike);
- the words that only say "this is a pathway" come and go: "Wnt pathway", "Wnt signalling"
  and "Wnt signaling pathway" all mean GO's "Wnt signaling pathway" (and Reactome's
  "Signaling by WNT"), so every term is also filed under its stem, its name without a
  trailing "signaling pathway", "pathway" or "signaling" or a leading "signaling by"
  (`stem`). A name is looked up by its stem only when it says it is a pathway itself: "mTOR"
  alone names the gene, "the mTOR pathway" Reactome's "MTOR signalling";
- a leading "the" and a trailing "genes" ("Wnt pathway genes") are no part of the name.

Several terms may match one name (GO BP and Reactome often both hold a pathway); `match`
ranks them by a fixed rule, so that every phrasing of one name gets the same first term:
a term whose whole name was written before one matched by its stem; then the term whose
name matches most exactly (more of the asked words in it, then fewer other words); then
GO BP, Reactome, HGNC gene groups (the order in which the libraries name sets); then the id.

Terms of every size are kept here, unlike the enrichment libraries (2-500 genes): a term too
large to tell a gene set apart still answers which genes it holds.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache

from biorag.knowledge.gene_sets import BUNDLED, LIBRARY_LABELS, Library, read_gmt

_WORD = re.compile(r"[a-z0-9]+")
#: spellings read as one word: British and American, and a plural "pathways"
_SAME = {"signalling": "signaling", "pathways": "pathway", "genes": "gene"}
#: the words that only say a name is a pathway (last word first), longest first
_SUFFIXES = (("signaling", "pathway"), ("signaling", "cascade"), ("pathway",), ("signaling",), ("cascade",))
_PREFIXES = (("signaling", "by"),)


@dataclass(frozen=True)
class PathwayTerm:
    """A library term a name matched: `whole` when the name written is the term's whole name,
    not only its stem."""

    library: str
    term: str
    name: str
    whole: bool

    @property
    def label(self) -> str:
        return LIBRARY_LABELS[self.library]

    def genes(self) -> list[str]:
        """The term's genes, sorted, as its library lists them."""
        return sorted(term_library(self.library).members(self.term))


def name_key(text: str) -> str:
    """A name's words as they are compared: lower case, letters and digits only, one
    spelling of each word, without a leading "the" and a trailing "gene(s)"."""
    words = [_SAME.get(w, w) for w in _WORD.findall(text.lower())]
    if words[:1] == ["the"]:
        words = words[1:]
    if words[-1:] == ["gene"]:
        words = words[:-1]
    return " ".join(words)


def stem(key: str) -> str:
    """A key without the words that say it is a pathway ("wnt signaling pathway" -> "wnt",
    "signaling by wnt" -> "wnt"); the key itself when it has none, or nothing else."""
    words = key.split()
    for prefix in _PREFIXES:
        if tuple(words[:len(prefix)]) == prefix and len(words) > len(prefix):
            words = words[len(prefix):]
            break
    for suffix in _SUFFIXES:
        if tuple(words[-len(suffix):]) == suffix and len(words) > len(suffix):
            words = words[:-len(suffix)]
            break
    return " ".join(words)


@lru_cache(maxsize=len(BUNDLED))
def term_library(library: str) -> Library:
    """A bundled library with its terms of every size, read once per process."""
    path, id_col, name_col = BUNDLED[library]
    return read_gmt(path, id_col, name_col, min_size=1, max_size=sys.maxsize, name=library)


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, tuple[PathwayTerm, ...]], dict[str, tuple[PathwayTerm, ...]]]:
    """(whole-name key -> terms, stem -> terms) over the bundled libraries, built at the first
    look-up (reading the libraries takes about a second, which no question that names no
    pathway should pay)."""
    whole: dict[str, list[PathwayTerm]] = {}
    stems: dict[str, list[PathwayTerm]] = {}
    for library in BUNDLED:
        for term, name in term_library(library).names.items():
            key = name_key(name)
            if key:
                whole.setdefault(key, []).append(PathwayTerm(library, term, name, True))
                stems.setdefault(stem(key), []).append(PathwayTerm(library, term, name, False))
    return ({k: tuple(v) for k, v in whole.items()}, {k: tuple(v) for k, v in stems.items()})


def match(name: str) -> list[PathwayTerm]:
    """The library terms `name` names, ranked by the rule of the module docstring (first:
    the one that answers); none when it names no term."""
    key = name_key(name)
    if not key:
        return []
    whole, stems = _index()
    found = list(whole.get(key, ()))
    base = stem(key)
    if found or base != key:  # by its stem only a name that says it is a pathway, or one matched whole
        seen = {(t.library, t.term) for t in found}
        found += [t for t in stems.get(base, ()) if (t.library, t.term) not in seen]
    asked = set(key.split())
    order = list(BUNDLED)

    def rank(t: PathwayTerm) -> tuple[bool, int, int, int, str]:
        words = set(name_key(t.name).split())
        return not t.whole, -len(asked & words), len(words - asked), order.index(t.library), t.term

    return sorted(found, key=rank)
