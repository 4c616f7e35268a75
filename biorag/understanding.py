"""Recognise entities (rsIDs, Ensembl/Entrez IDs, gene symbols, DNA sequences, disease
names) and the *kind* of answer a question asks for.

This is what lets a set-up without a large model route reliably (the `rules` and `hybrid`
planners) and answer from structured records instead of free text. Every pattern here
describes a general question form ("official symbol of <gene>", "which chromosome ...");
none is keyed to particular benchmark items.

An `Intent` is a chain of hops: each hop names the source to consult and which entity to
feed it; later hops take their input from fields of earlier hops' evidence (e.g. the gene
a SNP falls in, then that gene's record).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

EntityKind = Literal["rsid", "ensembl", "entrez", "gene", "sequence", "disease"]


@dataclass(frozen=True)
class Entity:
    kind: EntityKind
    text: str
    confident: bool = True


@dataclass(frozen=True)
class Hop:
    """One lookup: `source` queried with an entity of kind `takes` (from the question) or
    with values produced by the previous hop (`from_previous`)."""

    source: str
    takes: tuple[EntityKind, ...] = ()
    from_previous: str | None = None  # e.g. "genes" of dbsnp evidence, "symbol" of blast hits


@dataclass(frozen=True)
class Intent:
    kind: str
    hops: tuple[Hop, ...]
    description: str


@dataclass
class Analysis:
    question: str
    core: str  # the question without boilerplate such as "Let's decompose ..."
    entities: list[Entity] = field(default_factory=list)
    intent: Intent | None = None

    def first(self, kind: EntityKind) -> Entity | None:
        return next((e for e in self.entities if e.kind == kind), None)


# ---- entity patterns ----------------------------------------------------------------
RSID = re.compile(r"\brs\d{1,12}\b", re.IGNORECASE)
ENSEMBL = re.compile(r"\bENS[A-Z]*G\d{11}(?:\.\d+)?\b")
ENTREZ = re.compile(r"\b(?:gene\s*id|entrez(?:\s*gene)?(?:\s*id)?)\s*[:#]?\s*(\d{1,9})\b", re.IGNORECASE)
DNA = re.compile(r"[ACGTUN]{20,}", re.IGNORECASE)
_SYMBOL = r"([A-Za-z][A-Za-z0-9@\-\.]{0,24}[A-Za-z0-9@])"

# Question forms that name a gene with confidence: (pattern, group with the symbol)
_GENE_FORMS = [
    re.compile(rf"official (?:gene )?symbol (?:of|for) (?:the gene )?{_SYMBOL}", re.I),
    re.compile(rf"\bconvert {_SYMBOL} (?:to|into)\b", re.I),
    re.compile(rf"\bis {_SYMBOL} a (?:protein[- ]coding|non[- ]coding|pseudo)", re.I),
    re.compile(rf"\bis {_SYMBOL} gene\b", re.I),
    re.compile(rf"\b(?:the )?{_SYMBOL} gene\b"),
    re.compile(rf"\bgene {_SYMBOL}\b"),
    re.compile(rf"\baliases of {_SYMBOL}\b", re.I),
    re.compile(rf"\bfull name of {_SYMBOL}\b", re.I),
]
_NOT_SYMBOLS = {
    "the", "a", "an", "this", "that", "which", "what", "gene", "genes", "dna", "rna", "snp", "human",
    "official", "protein", "coding", "located", "associated", "function", "related", "sequence",
}
# A bare token that looks like a human gene symbol (TP53, BRCA1, HLA-DRB1, C9orf72).
_BARE_SYMBOL = re.compile(r"\b([A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]{1,4})?|C\d{1,2}orf\d{1,3})\b")
_BARE_STOP = {
    "DNA", "RNA", "SNP", "SNPS", "MESH", "PCR", "USA", "WHO", "FDA", "NCBI", "OMIM", "BLAST", "HIV", "AIDS",
    "COVID", "ICU", "MRI", "CT", "ATP", "GTP", "NA", "TRUE", "FALSE", "YES", "NO", "II", "III", "IV",
    "VI", "VII", "VIII", "IX", "XI", "XII", "A", "I",
}
_DISEASE_FORMS = [
    re.compile(r"genes? (?:related|associated|linked) (?:to|with) (.+?)[?.]?$", re.I),
    re.compile(r"genes? (?:that )?(?:cause|causes|underlie|underlying) (.+?)[?.]?$", re.I),
    re.compile(r"chromosome locations? of the genes? (?:related|associated) (?:to|with) (.+?)[?.]?$", re.I),
]
_BOILERPLATE = re.compile(r"\s*let'?s decompose the question.*$", re.I | re.S)


def _clean(question: str) -> str:
    return _BOILERPLATE.sub("", question).strip()


def find_entities(question: str) -> list[Entity]:
    text = _clean(question)
    found: list[Entity] = []
    seen: set[tuple[str, str]] = set()

    def add(kind: EntityKind, value: str, confident: bool = True) -> None:
        key = (kind, value.lower())
        if key not in seen:
            seen.add(key)
            found.append(Entity(kind, value, confident))

    for m in DNA.finditer(text):
        add("sequence", m.group(0).upper())
    no_seq = DNA.sub(" ", text)
    for m in RSID.finditer(no_seq):
        add("rsid", m.group(0).lower())
    for m in ENSEMBL.finditer(no_seq):
        add("ensembl", m.group(0))
    for m in ENTREZ.finditer(no_seq):
        add("entrez", m.group(1))
    for form in _DISEASE_FORMS:
        m = form.search(no_seq)
        if m and not RSID.search(m.group(1)) and not ENSEMBL.search(m.group(1)):
            add("disease", m.group(1).strip().rstrip("?. "))
            break
    if not any(e.kind in ("rsid", "ensembl", "disease") for e in found):
        for form in _GENE_FORMS:
            m = form.search(no_seq)
            if m and m.group(1).lower() not in _NOT_SYMBOLS:
                add("gene", m.group(1).rstrip(".-"))
                break
    if not any(e.kind == "gene" for e in found) and not any(e.kind == "disease" for e in found):
        for m in _BARE_SYMBOL.finditer(no_seq):
            tok = m.group(1)
            if tok.upper() not in _BARE_STOP and any(c.isdigit() for c in tok) and not RSID.fullmatch(tok):
                add("gene", tok, confident=False)
    return found


# ---- answer kinds -------------------------------------------------------------------
def _intent(kind: str, description: str, *hops: Hop) -> Intent:
    return Intent(kind, tuple(hops), description)


GENE_IDS: tuple[EntityKind, ...] = ("gene", "ensembl", "entrez")

_INTENT_FORMS: list[tuple[re.Pattern, tuple[EntityKind, ...], Intent]] = [
    (re.compile(r"\baliases\b|\bother names\b|\bsynonyms\b", re.I), ("sequence",),
     _intent("sequence_gene_aliases", "aliases of the gene containing a sequence",
             Hop("blast", takes=("sequence",)), Hop("gene", from_previous="symbol"))),
    (re.compile(r"\borganism\b", re.I), ("sequence",),
     _intent("sequence_organism", "organism a DNA sequence comes from", Hop("blast", takes=("sequence",)))),
    (re.compile(r"\balign\b|\bwhere\b.*\bgenome\b|\blocat", re.I), ("sequence",),
     _intent("sequence_location", "position of a DNA sequence in the human genome", Hop("blast", takes=("sequence",)))),
    (re.compile(r"\bfunction of the gene\b", re.I), ("rsid",),
     _intent("snp_gene_function", "function of the gene a SNP is in",
             Hop("dbsnp", takes=("rsid",)), Hop("gene", from_previous="genes"))),
    (re.compile(r"\bwhich gene\b|\bgenes?\b.*\bassociated\b", re.I), ("rsid",),
     _intent("snp_gene", "gene a SNP is associated with", Hop("dbsnp", takes=("rsid",)))),
    (re.compile(r"\bchromosome\b", re.I), ("rsid",),
     _intent("snp_chromosome", "chromosome of a SNP", Hop("dbsnp", takes=("rsid",)))),
    (re.compile(r"\bchromosome locations?\b|\bcytogenetic\b|\bloc(?:us|i)\b", re.I), ("disease",),
     _intent("disease_gene_locations", "locations of genes related to a disease",
             Hop("omim", takes=("disease",)), Hop("gene", from_previous="genes"))),
    (re.compile(r"\bgenes?\b", re.I), ("disease",),
     _intent("disease_genes", "genes related to a disease", Hop("omim", takes=("disease",)))),
    (re.compile(r"\bofficial (?:gene )?symbol\b|\bconvert\b", re.I), GENE_IDS,
     _intent("official_symbol", "official symbol of a gene", Hop("gene", takes=GENE_IDS))),
    (re.compile(r"\bwhich chromosome\b|\bwhat chromosome\b|\bchromosome\b.*\blocated\b", re.I), GENE_IDS,
     _intent("gene_chromosome", "chromosome of a gene", Hop("gene", takes=GENE_IDS))),
    (re.compile(r"\bprotein[- ]coding\b", re.I), GENE_IDS,
     _intent("gene_type", "whether a gene is protein-coding", Hop("gene", takes=GENE_IDS))),
    (re.compile(r"\baliases\b|\bother names\b|\bsynonyms\b", re.I), GENE_IDS,
     _intent("gene_aliases", "aliases of a gene", Hop("gene", takes=GENE_IDS))),
]


def analyse(question: str) -> Analysis:
    core = _clean(question)
    entities = find_entities(question)
    kinds = {e.kind for e in entities if e.confident}
    intent = None
    for pattern, needs, candidate in _INTENT_FORMS:
        if kinds.intersection(needs) and pattern.search(DNA.sub(" ", core)):
            intent = candidate
            break
    return Analysis(question=question, core=core, entities=entities, intent=intent)
