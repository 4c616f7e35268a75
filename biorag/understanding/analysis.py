"""Question understanding: the entities a question names, the answer field it asks for, and
the chain of sources (hops) that answers it (`analyse`), for the enabled sources'
declarations. Nothing here is keyed to a phrasing or to a source.

Entities first, then intent; the parts live in their own modules:

- biorag.understanding.question_model: `Entity`, `Hop`, `Intent`, `Analysis`;
- biorag.understanding.entity_linking: the entities (with biorag.understanding.entity_patterns, biorag.understanding.lexicon_lookup,
  biorag.understanding.disease_names, and biorag.understanding.disease_context for a gene asked about in a disease);
- biorag.understanding.intent: the answer field from the sources' cue words, and the hops;
- biorag.understanding.pathway_questions: a pathway, process or gene group named to have its genes listed;
- biorag.understanding.question_words: the word lists of resources/question_words.json.

This module puts them together: it drops a gene alias that is a field word when the rest
reads clearly, takes an unsure gene-like name as the gene when a gene field is asked, gives
gene lists and symptom lists their task, adds the context checks, and names the genes no
dictionary holds. Other modules import the question model and `analyse` from here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from biorag.contracts.sources import GENE_IDS, Lexicon, Source, declared_fields
from biorag.understanding.asked_names import gene_asked_by_name
from biorag.understanding.class_questions import asks_class_of_gene, in_class, names_class
from biorag.understanding.cue_names import cue_words_not_genes
from biorag.understanding.disease_context import context_checks
from biorag.understanding.entity_linking import find_entities
from biorag.understanding.entity_patterns import (
    ACCESSION,
    DNA,
    ENSEMBL,
    ENTREZ,
    RSID,
    clean_question,
    requests_yes_no,
)
from biorag.understanding.inheritance_claims import inheritance_claim
from biorag.understanding.intent import (
    PLACEHOLDER,
    blank_entities,
    detect_intent,
    field_vocabulary,
    gene_list_task,
    normalise,
    own_record,
    plan,
)
from biorag.understanding.literature_asks import (
    LiteratureAsk,
    asked_kind_of,
    claims_yes_no,
    literature_ask,
)
from biorag.understanding.option_subjects import subject_options
from biorag.understanding.options import Option, split_options
from biorag.understanding.pathway_questions import with_pathway
from biorag.understanding.phenotype_questions import read_feature_list
from biorag.understanding.product_questions import asks_faulty_product
from biorag.understanding.program_requests import unwrap_program_request
from biorag.understanding.question_model import Analysis, Entity, Hop, Intent
from biorag.understanding.question_words import FILLER, NOT_GENES, english_words, filler
from biorag.understanding.unknown_names import POLITE, symbol_like, unknown_genes

#: what other modules import from here (the parts live in the modules named above)
__all__ = ["ACCESSION", "DNA", "ENSEMBL", "ENTREZ", "RSID", "Analysis", "Entity", "Hop", "Intent", "analyse",
           "context_checks", "detect_intent", "english_words", "find_entities", "own_record", "plan"]


def _field_words_not_genes(core: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> list[Entity]:
    """Entities without the genes named only by an alias that is also a word of the
    sources' field vocabulary ("HPO", an alias of GFER, in "Marfan syndrome HPO terms"),
    when the question without them reads clearly: another entity (a disease, phenotypes)
    and a field about it. Otherwise the alias stays a gene ("Where is HPO?")."""
    if not sources:
        return entities
    vocabulary = field_vocabulary(sources)
    words = [e for e in entities if e.kind == "gene" and e.how == "alias" and e.text.lower() in vocabulary]
    if not words:
        return entities
    rest = [e for e in entities if e not in words]
    genes = [e for e in rest if e.kind == "gene" and e.confident]
    if len(genes) < 2:
        rest = [e for e in rest if e.kind != "gene_list"]
    kinds = {e.kind for e in rest if e.confident}
    if not kinds - {"organism"}:
        return entities
    blanked = blank_entities(DNA.sub(PLACEHOLDER, core), [e for e in rest if e.confident])
    intent = detect_intent(blanked, kinds, sources, strong_only=True)
    if intent is None or "gene" in intent.hops[0].takes:
        return entities
    return rest


def _subject_not_field_words(entities: list[Entity], sources: Mapping[str, Source] | None) -> list[Entity]:
    """Entities without an unsure subject that asks for a field ("What genetic changes
    contribute to Marfan syndrome?": "genetic" asks for the disease's genes)."""
    if not sources:
        return entities
    vocabulary = field_vocabulary(sources)
    return [e for e in entities if not (e.role == "subject" and not e.confident
                                        and vocabulary.intersection(normalise(e.text).split()))]


def analyse(question: str, sources: Mapping[str, Source] | None = None, lexicon: Lexicon | None = None) -> Analysis:
    """Entities, answer field and hops of a question, for the given sources' declarations
    (the enabled retrievers; without sources only entities are found). Multiple-choice
    options are split off first: the stem is what is understood. A request for a program
    that answers a question is read as that question."""
    stem, options = split_options(clean_question(unwrap_program_request(question)))
    options = [_linked(o, lexicon) for o in options]
    analysis = _analyse(question, stem, sources, lexicon, has_options=bool(options),
                        yes_no=requests_yes_no(question))
    analysis.options = options
    if options and (analysis.intent is None or names_class(stem)) and \
            (read := subject_options(stem, options, analysis.entities, sources)):
        # "Which of these genes is on chromosome 12? A) TP53 B) KRAS": the options are the genes asked about
        analysis.intent, genes, analysis.subject_options = read
        # a class asked ("a tumor suppressor") is no entity of its own ("tumor" read as a phenotype)
        kept = [] if analysis.subject_options.gene_class is not None else analysis.entities
        analysis.entities = [*kept, *genes]
    elif not options and claims_yes_no(analysis.core) and asks_class_of_gene(analysis.core, analysis.entities):
        # "Is TP53 a tumor suppressor gene?": a claim about the gene for the literature, not the
        # genes of "tumor" (`class_questions` says why not the gene's names)
        analysis.intent, analysis.free_text = None, True
        analysis.asks = analysis.asks or LiteratureAsk(("yes_no",), ())
        analysis.entities = [e for e in analysis.entities if not in_class(e, analysis.core)]
    elif not options and (analysis.yes_no_requested or claims_yes_no(analysis.core)) and \
            (claim := inheritance_claim(analysis.core, analysis.entities, sources)) is not None:
        # "Is Marfan syndrome autosomal dominant?": a claim the disease's inheritance record
        # states, not one for the literature (`inheritance_claims` says when)
        intent, analysis.claimed = claim
        analysis.intent = replace(intent, checks=context_checks(analysis.entities, intent, sources))
        analysis.free_text, analysis.asks = False, None
    return analysis


def _linked(option: Option, lexicon: Lexicon | None) -> Option:
    """The option with what its words name (official symbols, disease names) and their kinds.
    An option that is one symbol in capitals names that gene even where the symbol is also
    a word ("APP"): standing alone among options, it is written as a symbol."""
    named = [e for e in find_entities(option.text, lexicon)
             if e.confident or (e.kind == "gene" and e.canonical == (option.text,) and option.text.isupper())]
    return replace(option, names=tuple(n for e in named for n in e.canonical),
                   kinds=tuple(dict.fromkeys(e.kind for e in named)))


def _analyse(question: str, stem: str, sources: Mapping[str, Source] | None, lexicon: Lexicon | None,
             has_options: bool = False, yes_no: bool = False) -> Analysis:
    core = stem
    entities = _field_words_not_genes(core, find_entities(stem, lexicon), sources)
    entities = _subject_not_field_words(entities, sources)
    entities = cue_words_not_genes(core, entities, sources)
    # a gene named by a word that reads as something else, asked a gene's field of
    entities = gene_asked_by_name(core, entities, sources, lexicon)
    # a patient's features listed in words: their names, not the words inside them
    entities, feature_names = read_feature_list(stem, entities, lexicon)
    # a pathway named to have its genes listed ("genes of the mTOR pathway": no gene MTOR)
    entities = with_pathway(core, entities, sources, lexicon)
    # names a dictionary or pattern is sure of are blanked out: their letters are no cue
    blanked = blank_entities(DNA.sub(PLACEHOLDER, core),
                             [e for e in entities if e.confident or e.role] + feature_names)
    kinds = {e.kind for e in entities if e.confident}
    if any(e.role == "subject" for e in entities):
        # asked about a gene (or an unknown subject) in the context of a disease: the
        # disease frames the question, it is not what the answer is about
        kinds -= {"disease", "phenotype"}
    intent = detect_intent(blanked, kinds, sources)
    if intent is None and sources and any(e.role == "subject" and e.confident for e in entities):
        # "is tau involved in Alzheimer disease?", "FBN1 and Marfan syndrome": the gene's record
        intent = own_record(kinds, [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about])
    unsure = [e for e in entities if not e.confident and e.kind == "gene" and not e.role]
    if intent is None and unsure and len(unsure) <= 2 and not kinds.intersection(GENE_IDS):
        # a gene-like name without dictionary support, in a question that asks for a gene
        # field: take it as the gene
        intent = detect_intent(blanked, kinds | {"gene"}, sources, strong_only=True)
        if intent is not None and "gene" in intent.hops[0].takes:
            entities = [Entity(e.kind, e.text, True, e.canonical, e.how, e.span) if e in unsure else e
                        for e in entities]
        else:
            intent = None
    free_text = False
    if sources and "gene_list" in kinds:
        intent, free_text = gene_list_task(blanked, kinds, sources, intent)
    if intent is None and sources and kinds - {"organism"} == {"phenotype"}:
        # symptoms and nothing else ("child with aniridia"): the phenotypes' default field
        intent = own_record({"phenotype"}, [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about])
    if (faulty := asks_faulty_product(blanked, entities, sources)) is not None:
        intent = faulty  # "Which enzyme is deficient in Gaucher disease?": the product of the disease's gene
    asks = literature_ask(blanked, entities, kinds, sources, yes_no) if sources and not has_options and not faulty \
        else None
    if asks is None and sources and not has_options and (thing := asked_kind_of(core, entities)) \
            and _no_genes_cued(intent, blanked, kinds, sources):
        # "What cancers are associated with HPV?": cancers are asked for, not the genes of "cancer"
        asks = LiteratureAsk(("asked_thing",), thing)
    if asks is not None:
        # what is asked decides: a relation, an effect, a claim... is the literature's
        intent, free_text = None, True
    if intent is not None and sources:
        intent = replace(intent, checks=context_checks(entities, intent, sources))
    unknown = unknown_genes(_unknown_names(core, entities, sources), lexicon) if lexicon is not None else {}
    return Analysis(question=question, core=core, entities=entities, intent=intent, free_text=free_text,
                    unknown=unknown, asks=asks, yes_no_requested=yes_no)


def _no_genes_cued(intent: Intent | None, blanked: str, kinds: set[str], sources: Mapping[str, Source]) -> bool:
    """No field is read, or one that yields genes though no strong cue asks for it (a weak
    "associated", "cause", or the default field of features) or the question names its gene
    itself ("What cancers are linked to BRCA2 mutations?")."""
    if intent is None:
        return True
    return intent.hops[-1].field.yields == "gene" and (
        "gene" in kinds or detect_intent(blanked, kinds, sources, strong_only=True) is None)


def _unknown_names(core: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> list[str]:
    """The question's gene-like names no dictionary holds, when it asks a gene's field of them
    and nothing else (see biorag.understanding.unknown_names)."""
    if not sources or any(e.confident and e.kind not in ("gene", "organism") for e in entities):
        return []
    genes = [e for e in entities if e.kind == "gene"]
    if not genes or any(e.how != "pattern" or not symbol_like(e.text) for e in genes):
        return []
    blanked = blank_entities(core, genes)
    # "..., thanks" / "hi, ..." wrap a question without asking anything: read it without them
    bare = " ".join(w for w in blanked.split() if re.sub(r"\W", "", w.lower()) not in POLITE)
    asked = detect_intent(bare, {"gene"}, sources)
    if asked is None or "gene" not in asked.hops[0].takes:
        return []
    if any(asked.kind == f.name for _s, f in declared_fields(sources) if f.default_for) and not (
            any(e.confident for e in genes) or re.search(r"\bgenes?\b", core, re.I)):
        return []  # "What is COVID-19?" names no gene; "What is the FLURBLE1 gene?" does
    allowed = field_vocabulary(sources) | NOT_GENES | FILLER | POLITE
    words = [w for w in normalise(blanked).split() if w != "\u220e" and not w.isdigit()]
    return [e.text for e in genes] if all(w in allowed or filler(w) for w in words) else []


