"""A gene symbol that is a word of a cue phrase ("GC" in "GC content") is that phrase, not
the gene, when the question names what the phrase's field is about: "What is the GC
content of ATGC...?" asks a computation on the sequence; GC, the vitamin D binding
protein's symbol, is not asked about. Without such an entity the symbol stays a gene
("Where is GC located?").
"""

from __future__ import annotations

from collections.abc import Mapping

from biorag.contracts.sources import Source, declared_fields
from biorag.understanding.intent import normalise
from biorag.understanding.question_model import Entity


def cue_words_not_genes(core: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> list[Entity]:
    """`entities` without the genes whose name is a word of a cue phrase the question
    writes out, for a field about another entity the question names."""
    if not sources:
        return entities
    genes = [e for e in entities if e.kind == "gene"]
    others = {e.kind for e in entities if e.confident and e.kind not in ("gene", "gene_list", "organism")}
    if not genes or not others:
        return entities
    text = normalise(core)
    phrases = [normalise(c) for _s, f in declared_fields(sources) if others.intersection(f.about)
               for c in f.cues if len(c.split()) > 1]
    dropped = set()
    for gene in genes:
        word = f" {normalise(gene.span or gene.text).strip()} "
        if any(word in phrase and phrase in text for phrase in phrases):
            dropped.add(id(gene))
    if not dropped:
        return entities
    kept = [e for e in entities if id(e) not in dropped]
    if not any(e.kind == "gene" for e in kept):  # a list of the dropped genes and others is no list now
        kept = [e for e in kept if e.kind != "gene_list" or len(e.members) > 1]
    return kept
