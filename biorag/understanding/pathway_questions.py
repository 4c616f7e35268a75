"""A pathway, process or gene group named so that its genes are listed ("Which genes are in the
Wnt signaling pathway?", "List the genes of glycolysis"): the entity of kind "pathway".

The name is found as disease and phenotype names are, through the lexicon (a `Lexicon` asked
for kind "pathway": the gene-set libraries' term names, retrievers/geneset/lexicon.py): the
longest phrase of the question it knows. It is kept only when the question asks a field about
a pathway of it (the sources' cue words: "genes in", "which genes", "members of"), because
pathway names are made of other names and stand in questions that ask something else:

- read as a pathway, "the mTOR pathway" holds no gene of its own: MTOR is a word of the name
  (and a disease read from the question's form only, "DNA mismatch repair", gives way too);
- a question that asks nothing of the pathway keeps its entities as they were: "What pathways
  is MTOR involved in?" names no pathway and asks the gene's record; "Does mTOR pathway
  inhibition reduce tumour growth?" asks the literature;
- a disease or phenotype a dictionary knows under the same words stays that disease or
  phenotype: its genes are what a "which genes" question about it asks;
- a question that gives a gene set asks about the set ("Which biological process do these
  genes share: ...?" names GO's root term only in words);
- a question about another organism ("Which genes control fin regeneration in zebrafish?")
  is not answered from libraries of human genes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from biorag.contracts.sources import Lexicon, LexiconHit, Source
from biorag.understanding.intent import blank_entities, detect_intent
from biorag.understanding.lexicon_lookup import safe_lookup
from biorag.understanding.question_model import Entity
from biorag.understanding.question_words import FILLER, NOT_GENES

_TOKEN = re.compile(r"[A-Za-z0-9]+")
#: the most words of a pathway name looked up ("negative regulation of canonical Wnt signaling pathway")
_MOST_WORDS = 12
#: words a name neither starts nor ends with as the question writes it ("the", "genes")
_EDGE = frozenset({"the", "a", "an", "gene", "genes"})
#: kinds whose names give way to a pathway name holding them (see the module docstring)
_WORDS_OF_THE_NAME = frozenset({"gene", "gene_list", "organism"})


def with_pathway(core: str, entities: list[Entity], sources: Mapping[str, Source] | None,
                 lexicon: Lexicon | None) -> list[Entity]:
    """The question's entities with the pathway it names to have its genes listed, and without
    the names inside the pathway's name; the entities unchanged when it names none or asks
    something else of it."""
    if not sources or lexicon is None or not _asks_pathway_field(core, {"pathway"}, sources):
        return entities  # no pathway field is asked: the names are never looked up
    if any(e.kind == "organism" and e.text != "Homo sapiens" for e in entities):
        return entities  # the libraries' terms hold human genes: "fin regeneration in zebrafish" is no term of theirs
    pathway = _pathway_named(core, lexicon)
    if pathway is None:
        return entities
    inside = [e for e in entities if _within(e, pathway.text)]
    if any(e.kind not in _WORDS_OF_THE_NAME and not (e.kind == "disease" and e.how == "pattern") for e in inside):
        return entities  # a name a dictionary knows under these words stays what it is
    gene_inside = any(e.kind == "gene" for e in inside)
    rest = [e for e in entities if e not in inside and not (gene_inside and e.kind == "gene_list")]
    if sum(e.kind == "gene" and e.confident for e in rest) >= 2:
        return entities  # a gene set is given ("the biological process these genes share"): its question
    blanked = blank_entities(core, [e for e in rest if e.confident or e.role] + [pathway])
    kinds = {e.kind for e in rest if e.confident} | {"pathway"}
    return [*rest, pathway] if _asks_pathway_field(blanked, kinds, sources) else entities


def _asks_pathway_field(text: str, kinds: set[str], sources: Mapping[str, Source]) -> bool:
    """A strong cue of `text` asks a field that takes a pathway."""
    intent = detect_intent(text, kinds, sources, strong_only=True)
    return intent is not None and "pathway" in intent.hops[0].takes


def _pathway_named(core: str, lexicon: Lexicon) -> Entity | None:
    """The longest phrase of the question (up to `_MOST_WORDS` words; the leftmost of equal
    ones) that names a library term, as the question writes it, with the term that answers
    for it (its name as `canonical`, its id as `ident`)."""
    tokens = list(_TOKEN.finditer(core))
    spans: dict[str, tuple[int, int, str]] = {}
    for i, first in enumerate(tokens):
        if first.group(0).lower() in _EDGE:
            continue
        for n in range(1, min(_MOST_WORDS, len(tokens) - i) + 1):
            last = tokens[i + n - 1]
            written = core[first.start():last.end()]
            # a question's own word names no term alone ("Which genes cause this disease?" is
            # not Reactome's "Disease")
            if last.group(0).lower() not in _EDGE and not (n == 1 and written.lower() in NOT_GENES | FILLER):
                spans.setdefault(written.lower(), (i, n, written))
    hits: dict[str, list[LexiconHit]] = {}
    for h in safe_lookup(lexicon, [written for *_, written in spans.values()], ("pathway",)):
        if h.kind == "pathway" and h.span in spans:
            hits.setdefault(h.span, []).append(h)
    if not hits:
        return None
    best = min(hits, key=lambda s: (-spans[s][1], spans[s][0]))
    top = hits[best][0]
    return Entity("pathway", spans[best][2], True, (top.canonical,), top.how, ident=top.ident)


def _within(entity: Entity, name: str) -> bool:
    """Whether one of the entity's names and the pathway's name hold one another (whole words,
    any case): a gene's symbol inside the pathway's name, a disease phrase around it."""
    pathway = f" {' '.join(_TOKEN.findall(name.lower()))} "
    for written in {entity.span, entity.text, *entity.text.split(", ")} - {""}:
        words = f" {' '.join(_TOKEN.findall(written.lower()))} "
        if words.strip() and (words in pathway or pathway in words):
            return True
    return False
