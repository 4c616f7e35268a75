"""Extra lexical terms for a literature query: other names of what the question names.

An abstract may call a gene by an alias the question does not use ("p53" for TP53) and a
disease by an older MeSH name. BM25 only matches words, so the lexical side of hybrid search
gets a second query made of those other names; it is ranked on its own and fused with the
others (`biorag.ml.fusion`), so a noisy alias can add candidates but never outweigh the
question's own words.

- MeSH: every descriptor the bundled vocabulary finds in the question (longest match,
  check tags and plain words excluded: `MeshVocabulary.find_in_text`) gives its preferred
  name and the aliases the vocabulary carries.
- Genes: each symbol-like word (letters with a digit or in capitals, "BRCA1", "TP53", "EGFR")
  is passed to `gene_names`, a callable the composition root supplies (the local gene store
  gives the official symbol, aliases and previous symbols). The core never opens a store.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from biorag.knowledge.mesh import MeshVocabulary, vocabulary
from biorag.ml.lexical_index import query_words

#: a word that looks like a gene symbol: 2-12 characters, upper case letters with digits or
#: dashes ("BRCA1", "HLA-B", "EGFR"); words of plain English in capitals are filtered by the
#: gene lookup, which only answers for official symbols and aliases
_SYMBOL_RE = re.compile(r"\b[A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9-]*\b")
#: names of one descriptor or gene taken at most (some carry dozens of old spellings)
MAX_NAMES = 10
#: a name this short is ambiguous in free text ("AD", "MS") and is not added
MIN_NAME_CHARS = 3


@dataclass
class Expansion:
    terms: list[str] = field(default_factory=list)
    #: where each term came from ("mesh:D000544", "gene:TP53"), for the trace
    origin: dict[str, str] = field(default_factory=dict)

    def add(self, term: str, origin: str, present: set[str]) -> None:
        words = query_words(term)
        key = " ".join(words)
        if len(key) < MIN_NAME_CHARS or key in present or term in self.origin or set(words) <= present:
            return  # every word of it is already asked (or added): BM25 would score nothing new
        present.add(key)
        self.terms.append(term)
        self.origin[term] = origin


def symbol_words(question: str) -> list[str]:
    """Words of the question shaped like gene symbols, each once, in order."""
    out: dict[str, None] = {}
    for m in _SYMBOL_RE.finditer(question):
        w = m.group(0).strip("-")
        if 2 <= len(w) <= 12 and (any(c.isdigit() for c in w) or w.isupper()):
            out.setdefault(w, None)
    return list(out)


def expand(question: str, gene_names: Callable[[str], Iterable[str]] | None = None,
           vocab: MeshVocabulary | None = None, mesh: bool = True) -> Expansion:
    """Other names of the question's MeSH descriptors and genes, none already in it."""
    present = set(query_words(question))
    out = Expansion()
    if mesh:
        vocab = vocab or vocabulary()
        for d in vocab.find_in_text(question):
            for name in (d.name, *d.aliases)[: MAX_NAMES + 1]:
                out.add(name, f"mesh:{d.ui}", present)
    if gene_names is not None:
        for word in symbol_words(question):
            for name in list(gene_names(word))[:MAX_NAMES]:
                out.add(name, f"gene:{word}", present)
    return out
