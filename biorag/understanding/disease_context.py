"""A gene asked about in the context of a disease ("What does huntingtin do in Huntington
disease?", "role of APOE in Alzheimer disease", "does FBN1 cause Marfan syndrome?"): where
the question's subject stands, the subject marked on the question's genes (or found from
its words only there: "tau", "presenilin 1"), and the records the answer is checked
against so that it can say whether they link the gene and the disease.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from biorag.contracts.sources import Lexicon, Source, declared_fields
from biorag.understanding.entity_patterns import POSSESSIVE
from biorag.understanding.lexicon_lookup import gene_entity, safe_lookup
from biorag.understanding.question_model import Entity, Hop, Intent
from biorag.understanding.question_words import FILLER, NOT_GENES, words

#: what joins a question's subject to the disease it is asked in ("X do in D", "X
#: contribute to D", "is X involved in D", "X and D"), read backwards from the disease
_CONTEXT_JOINT = words("context_joint")
_CONTEXT_VERBS = words("context_verbs")
#: words before the subject that frame it: "role of X in D", "how does X ...", "is X ..."
_SUBJECT_FRAME = words("subject_frame")
_SUBJECT_WORDS = 4
#: verbs that join a subject to the disease directly ("does FBN1 cause Marfan syndrome?")
_CONTEXT_ACTS = words("context_acts")
#: words that say what the subject is, right after its name ("the APOE gene and ...")
_SUBJECT_KINDS = words("subject_kinds")
_ARTICLES = frozenset({"the", "a", "an", "this", "that"})
#: a gene's variants, asked about before its name ("mutations in X", "variants of X")
_VARIANT_WORDS = frozenset({"mutation", "mutations", "variant", "variants", "allele", "alleles",
                            "polymorphism", "polymorphisms"})


def _context_subject(scan: str, disease: Entity) -> tuple[int, int, bool] | None:
    """Where the subject of a question asked in the context of a disease stands, as (start,
    end, framed): the words before the disease and the words joining them to it ("What does
    huntingtin do in Huntington disease?", "role of APOE in Alzheimer disease", "FGFR3 and
    achondroplasia"), up to an asking or framing word. `framed`: a verb or a frame word says
    the subject acts in the disease (then even a phrase no dictionary knows is the subject)."""
    low = scan.lower()
    at = low.find((disease.span or disease.text).lower())
    if at <= 0:
        return None
    words = list(re.finditer(r"[\w'&\-]+", scan[:at]))
    if not words or words[-1].group(0).lower() not in _CONTEXT_JOINT | _CONTEXT_ACTS:
        return None
    i = len(words) - 1
    while i >= 0 and words[i].group(0).lower() in _CONTEXT_JOINT | _CONTEXT_VERBS | _CONTEXT_ACTS | {"the", "a", "an", "any"}:
        i -= 1
    if i > 1 and words[i].group(0).lower() in _SUBJECT_KINDS and words[i - 2].group(0).lower() in _ARTICLES:
        i -= 1  # "the APOE gene": the subject is the name before its kind ("which gene" names none)
    verbs = {w.group(0).lower() for w in words[i + 1:]} & (_CONTEXT_VERBS | _CONTEXT_ACTS)
    j = i
    while j >= 0 and i - j < _SUBJECT_WORDS and not _subject_edge(words[j].group(0).lower()):
        j -= 1
    if j == i:
        return None
    before = words[j].group(0).lower() if j >= 0 else ""
    if before in ("in", "of", "within") and j > 1 and words[j - 1].group(0).lower() in _VARIANT_WORDS \
            and words[j - 2].group(0).lower() in ("which", "what"):
        return None  # "Which mutations in SLC38A3 cause ...": its variants are asked for, not its role
    framed = bool(verbs) or before in _SUBJECT_FRAME or (before == "of" and j > 0
                                                           and words[j - 1].group(0).lower() in _SUBJECT_FRAME)
    return words[j + 1].start(), words[i].end(), framed


def _subject_edge(word: str) -> bool:
    return word in FILLER or word in NOT_GENES or word in _SUBJECT_FRAME or POSSESSIVE.search(word) is not None


def with_subject(scan: str, disease: Entity, token_genes: list[tuple[int, Entity]],
                  lexicon: Lexicon) -> list[tuple[int, Entity]]:
    """The genes of a question asked in the context of a disease, its subject marked: a gene
    found there already, else the subject's words as a gene's symbol, alias or name ("tau",
    "huntingtin", "presenilin 1": words that count as gene names only there), else, when the
    question says the subject acts in the disease, the phrase kept unsure ("amyloid beta"):
    the question is about it, not about the disease's genes."""
    where = _context_subject(scan, disease)
    if where is None:
        return token_genes
    start, end, framed = where
    inside = [i for i, (pos, e) in enumerate(token_genes) if start <= pos < end and e.confident]
    if inside:
        out = list(token_genes)
        out[inside[0]] = (out[inside[0]][0], replace(out[inside[0]][1], role="subject"))
        return out
    phrase = scan[start:end]
    hits = safe_lookup(lexicon, [phrase], ("gene", "gene_name"))
    if hits:
        gene = gene_entity(phrase, hits)
        if not gene.ambiguous:  # asked for by its symbol, whatever name the question used
            gene = replace(gene, text=gene.canonical[0], span=phrase)
        return sorted([*token_genes, (start, replace(gene, role="subject"))], key=lambda g: g[0])
    if framed:
        return [*token_genes, (start, Entity("gene", phrase, False, how="subject", role="subject"))]
    return token_genes


def context_checks(entities: list[Entity], intent: Intent, sources: Mapping[str, Source]) -> tuple[Hop, ...]:
    """A gene asked about in the context of a disease ("is tau involved in Alzheimer
    disease?", "does FBN1 cause Marfan syndrome?"): every source's field that yields the
    genes of a disease, asked for that disease, so the answer can say whether the records
    link the two (biorag.loop.links); then every field that lists the diseases of a gene, asked
    for the gene, so an answer that finds no link can say what the gene is linked to
    (planned only then: biorag.loop.planner.pending_checks). Nothing for any other question, or
    when the gene or the disease is not one record."""
    subject = any(e.role == "subject" and e.kind == "gene" and e.confident and not e.ambiguous for e in entities)
    disease = any(e.kind == "disease" and e.confident for e in entities)
    if not (subject and disease and "gene" in intent.hops[0].takes):
        return ()
    fields = declared_fields(sources)
    return (tuple(Hop(s, f, ("disease",)) for s, f in fields if f.yields == "gene" and "disease" in f.about)
            + tuple(Hop(s, f, ("gene",)) for s, f in fields if f.lists == "disease" and "gene" in f.about))
