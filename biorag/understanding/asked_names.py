"""A gene named by a word that reads as something else, when the question leaves no doubt
that it asks a gene's field of it.

Linking reads a question's words before its intent, so a gene name that is also a disease
or phenotype name ("official symbol of WARTS": Warts), or an English word ("mcc is located
on chromosome": MCC, the roman numeral), is read as that, or as no entity. Once the
question is known to ask for a gene's field, and it names nothing else, that word is the gene:

- a field that asks about a name itself (`AnswerField.subject_is_name`: the official
  symbol of X, what X is called now): X is a gene name (official symbol, previous symbol
  or alias), whatever else it names;
- any other gene field (chromosome, location, full name, type, ...): a word that is a
  gene's official symbol, when the question names no other entity at all.

The cue must be a strong one and not the default card ("What is the cell cycle?" asks no
gene field), and the word must be the question's only one besides the field's cue words,
function words and polite words.
"""

from __future__ import annotations

from collections.abc import Mapping

from biorag.contracts.sources import GENE_IDS, AnswerField, Lexicon, LexiconHit, Source
from biorag.understanding.entity_patterns import name_tokens, spelling_variants
from biorag.understanding.intent import PLACEHOLDER, blank_entities, detect_intent, normalise
from biorag.understanding.lexicon_lookup import gene_entity, safe_lookup
from biorag.understanding.question_model import Entity
from biorag.understanding.question_words import FILLER, NOT_GENES
from biorag.understanding.unknown_names import POLITE

#: entity kinds a gene name may have been read as instead
_READ_AS_OTHER = ("disease", "phenotype", "gene")


def gene_asked_by_name(core: str, entities: list[Entity], sources: Mapping[str, Source] | None,
                       lexicon: Lexicon | None) -> list[Entity]:
    """`entities`, with the word the question asks a gene field of read as that gene (see
    the module docstring); unchanged when the question names a gene, or no such word."""
    if not sources or lexicon is None or any(e.confident and e.kind in GENE_IDS for e in entities):
        return entities
    sure = [e for e in entities if e.confident and e.kind != "organism"]
    intent = detect_intent(blank_entities(core, sure), {"gene"}, sources, strong_only=True)
    if intent is None or "gene" not in intent.hops[-1].takes or intent.hops[-1].field.default_for:
        return entities
    naming = intent.hops[-1].field.subject_is_name
    if not naming and sure:
        return entities  # another entity is named: the field may be asked of it
    found = _gene_words(core, intent.hops[-1].field, lexicon, naming)
    if found is None:
        return entities
    word, hits = found
    gene = gene_entity(word, hits)
    others = [e for e in entities if e.kind in _READ_AS_OTHER and _holds(e, word)]
    if any(e not in others for e in sure):
        return entities  # "official symbol of X in Y": Y is named too; X may be Y's
    return [gene, *(e for e in entities if e not in others)]


def _holds(entity: Entity, word: str) -> bool:
    """Whether the entity was read from `word` (its text or span is that word)."""
    return any(n and n.lower() == word.lower() for n in (entity.text, entity.span))


def _gene_words(core: str, field: AnswerField, lexicon: Lexicon, naming: bool) -> tuple[str, list[LexiconHit]] | None:
    """The question's one word besides the asked field's own cue words, function words and
    polite words, with its hits, when the dictionary holds it as a gene name (any name when
    `naming`, else an official symbol); None otherwise ("official symbol of the gene that
    causes ALS" has another word: "causes")."""
    asked = {w for c in (*field.cues, *field.weak_cues) for w in normalise(c.removesuffix(" $")).split()}
    asked |= NOT_GENES | FILLER | POLITE
    words = {t for t, _ in name_tokens(core.replace(PLACEHOLDER.strip(), " "))
             if t.lower() not in asked and not t.isdigit() and any(c.isalnum() for c in t)}
    if len({w.lower() for w in words}) != 1:
        return None
    word = min(words)
    kinds = ("symbol", "previous", "alias") if naming else ("symbol",)
    hits = [h for h in safe_lookup(lexicon, spelling_variants(word), ("gene",)) if h.how in kinds]
    return (word, hits) if hits else None
