"""What is asked decides between a record and the literature.

A question that asks about an effect, a mechanism, a comparison, a treatment, a risk, a
biomarker or an outcome, or for a list of things no record field holds ("which cell types",
"what drugs"), is answered from the literature whatever entities it names: its genes,
diseases and features are search terms, never the answer. A yes/no claim ("Is TP53 a tumour
suppressor?", "Does aspirin lower cancer risk?") goes there too. What stays with a record:

- a record field asked of an entity ("Which chromosome is FTO on?", "symptoms of Marfan
  syndrome", "Is FTO protein coding?") when no literature ask is cued;
- a thing asked by name that no source's cue words name ("Which codons of APP are altered
  in Alzheimer disease?", "which enzyme cleaves BACE's propeptide?") goes to the literature,
  even where another word of the question cues a field ("pathogenic", "disease");
- a bare list of features, with or without "which genes" or "what could explain" (phenotype
  ranking): entity and feature names are blanked before the ask words are read, and those
  frames ask for the features' genes, a record field;
- a field a record states only in general (a gene's function) asked with no context of the
  question's own: "What does BIN1 do?" is the record's, "What does neuronal BIN1 do at the
  synapse?" the literature's;
- a relation a loaded curated source states exactly: a gene asked about in a disease it
  names ("is FBN1 linked to Marfan syndrome?": the curated gene–disease links); the genes of
  a disease or of features asked with a risk word ("which genes raise the risk of breast
  cancer?": the disease's curated genes); a field cued of a variant (its clinical
  significance).

The rule reads the sources' declarations (which field a cue asks, what it takes and yields)
and never names a source. The ask words are data: "literature_asks" and "yes_no_leads" in
resources/question_words.json. A group whose name ends in "_weak" ("how does", "why") counts
only when no record field is cued: "How does Marfan syndrome present?" asks for its
features.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from biorag.contracts.sources import Source
from biorag.understanding.action_asks import cues_verb, gene_acts_on, where_of_action
from biorag.understanding.intent import (
    NEXT_QUESTION,
    PLACEHOLDER,
    detect_intent,
    field_vocabulary,
    normalise,
)
from biorag.understanding.question_model import Analysis, Entity
from biorag.understanding.question_words import FILLER, NOT_GENES, filler, word_map, words
from biorag.understanding.unknown_names import POLITE, symbol_like

#: the asks that may stand beside a curated list and leave it one ("which genes increase the risk
#: of D": the genes of a disease)
_CURATED_WITH = frozenset({"risk", "effect"})
#: entity kinds whose cued field is a curated statement (a variant's significance)
_CURATED_KINDS = frozenset({"rsid"})
#: the words by which a question names the thing it asks for ("which codons", "what enzyme")
_WHICH = frozenset({"which", "what"})
#: at most this many words after "which"/"what" are read as the thing asked for
_THING_WORDS = 3


@dataclass(frozen=True)
class LiteratureAsk:
    """Why a question goes to the literature: the groups of ask words found ("effect",
    "treatment", ..., or "yes_no" for a claim to check) and the words themselves."""

    groups: tuple[str, ...]
    cues: tuple[str, ...]

    @property
    def yes_no(self) -> bool:
        return "yes_no" in self.groups


@cache
def _ask_words() -> tuple[tuple[str, str], ...]:
    """(group, normalised cue) pairs, longest cue first."""
    pairs = {(group, normalise(cue).strip()) for group, cues in word_map("literature_asks").items() for cue in cues}
    return tuple(sorted(pairs, key=lambda p: (-len(p[1]), p)))


def ask_words_in(text: str) -> list[tuple[str, str]]:
    """(group, cue) of every literature ask word in `text` (whole words, any case)."""
    norm = normalise(text)
    found, taken = [], norm
    for group, cue in _ask_words():
        if f" {cue} " in taken:
            found.append((group, cue))
            taken = taken.replace(f" {cue} ", " \u2060 ")  # a longer cue hides the words inside it
    return found


def opens_yes_no(text: str) -> bool:
    """The question opens like a yes/no question ("Does ...", "Is ...")."""
    first = normalise(text).split()[:2]
    return bool(first) and first[0] in words("yes_no_leads") and not (
        len(first) > 1 and first[1] in words("request_after_lead"))


#: a yes/no claim put as a clause: "whether", or "if" after a request ("tell me if X is ...")
_CLAIM_CLAUSE = re.compile(r" (?:whether|(?:tell (?:me|us)|know|wonder|wondering|ask|asking|check) if) ")


def asks_whether(text: str) -> bool:
    """A yes/no claim put as a clause ("Could you tell me whether X is the most severe form
    of Y?", "I wonder if X ..."): what the clause says is asked, whatever request leads to it."""
    return _CLAIM_CLAUSE.search(normalise(text)) is not None


#: where a title or a statement ends and the question's asking clause begins ("Double balloon
#: enteroscopy: is it safe?", "Amblyopia - is visual loss permanent?"); a full stop is not
#: one: "A child with seizures. Is it genetic?" describes a patient first
_TITLE_END = re.compile(r"\s*[:;]\s+|\s+[-\u2013\u2014]+\s+|(?<=\w)--+(?=\w)")
#: a last sentence that asks about what the one before named ("Cold knife conization vs.
#: LEEP. Are they the same procedure?")
_ASKS_BACK = re.compile(r"[.!]\s+(?:is|are|does|do|can|could|should|was|were)\s+(?:it|they|these|this)\b[^.!?]*\?\s*$",
                        re.I)


def claims_yes_no(text: str) -> bool:
    """The question asks whether a claim holds: it opens like a yes/no question, puts the
    claim as a clause ("tell me whether ..."), or its asking clause after a title does
    ("Therapeutic anticoagulation in the trauma patient: is it safe?"), or its last sentence
    asks it of what the one before names. A verbless clause ("The nurse cystoscopist: a
    feasible option?") is a claim only when the asker requests yes or no
    (`entity_patterns.requests_yes_no`): alone it may ask anything ("A child has seizures
    and ataxia: any idea?" asks for the genes)."""
    if opens_yes_no(text) or asks_whether(text) or _ASKS_BACK.search(text):
        return True
    parts = _TITLE_END.split(text.strip())
    return len(parts) > 1 and opens_yes_no(parts[-1].strip())


def literature_ask(blanked: str, entities: list[Entity], kinds: set[str],
                   sources: Mapping[str, Source] | None, yes_no: bool = False) -> LiteratureAsk | None:
    """Why the question (`blanked`: its entity names blanked out) goes to the literature,
    or None when a record answers it. `kinds`: the confident entity kinds the question's
    field is read for (a disease framing a gene is left out). `yes_no`: the asker requested
    a yes/no answer ("Answer yes, no or maybe."), whatever the question's wording."""
    found = ask_words_in(blanked)
    strong = [(g, c) for g, c in found if not g.endswith("_weak")]
    field = detect_intent(blanked, kinds, sources, strong_only=True) if sources and kinds else None
    if strong:
        if field is not None and _curated(field, {g for g, _ in strong}, blanked):
            return None
        return LiteratureAsk(tuple(dict.fromkeys(g for g, _ in strong)), tuple(c for _, c in strong))
    thing = asked_thing(blanked, sources) if sources else None
    if thing:
        return LiteratureAsk(("asked_thing",), thing)
    if sources and "sequence" not in kinds and (action := where_of_action(blanked, sources)):
        return LiteratureAsk(("site",), action)
    if sources and kinds and (verb := gene_acts_on(entities, blanked)) is not None \
            and not cues_verb(field or detect_intent(blanked, kinds, sources), verb):
        return LiteratureAsk(("relation",), (verb,))
    # a gene asked about in a disease: the curated link's; a subject that only looks like a
    # name ("between sublingual varices") links nothing
    linked = any(e.role == "subject" and (e.confident or symbol_like(e.text)) for e in entities)
    claim = yes_no or claims_yes_no(blanked)
    weak = LiteratureAsk(tuple(dict.fromkeys(g.removesuffix("_weak") for g, _ in found)), tuple(c for _, c in found))
    if field is not None:
        if claim and not linked and _claim_about_condition(field, entities):
            return LiteratureAsk(("yes_no",), ())
        if found and _names_its_answer(field, entities):
            return weak  # "How does a BRCA1 mutation cause breast cancer?": the gene is named, how is asked
        if (gene := _named_gene_asked_about(field, entities, blanked)) is not None:
            return LiteratureAsk(("named_gene",), (gene,))
        return _in_context(field, blanked, kinds, sources)  # a record field is asked, and maybe a context
    if found and not (linked and claim):
        # "How does PINK1 activate Parkin in Parkinson's disease?": no curated link says how
        return weak
    if claim and not linked:
        return LiteratureAsk(("yes_no",), ())
    if linked and not claim and sources and (context := _context_words(blanked, kinds, sources)):
        # "Tell me about SNCA aggregation in Parkinson's disease": the link is not what is asked
        return LiteratureAsk(("context",), context)
    cued = detect_intent(blanked, kinds, sources) if sources and kinds and not linked else None
    if cued is not None and (gene := _named_gene_asked_about(cued, entities, blanked)) is not None:
        # "Which mutations in APP cause familial Alzheimer disease?": a weak "cause" cues the
        # disease's genes, but the question names its gene and asks about its mutations
        return LiteratureAsk(("named_gene",), (gene,))
    return _in_context(cued, blanked, kinds, sources) if cued is not None else None


def asked_thing(blanked: str, sources: Mapping[str, Source]) -> tuple[str, ...]:
    """The words of the thing a which/what question asks for, when none of them is a word by
    which any source's field is asked: "which codons of ∎ are altered": ("codons",). Empty
    when the words after "which"/"what" are a field's ("which chromosome", "what signalling
    pathway"), function or filler words ("what is", "which protein", "what could explain"),
    or too short to tell ("what's")."""
    parts = [p for p in NEXT_QUESTION.split(blanked) if p and p.strip()]
    tokens = normalise(parts[0] if parts else blanked).split()
    at = next((i for i, w in enumerate(tokens) if w in _WHICH), None)
    if at is None:
        return ()
    stop = NOT_GENES | FILLER | POLITE
    phrase: list[str] = []
    for w in tokens[at + 1:at + 1 + _THING_WORDS]:
        if w in stop or w == PLACEHOLDER.strip() or not w.isalpha():
            break
        phrase.append(w)
    if not phrase or len(phrase[0]) <= 3:
        return ()
    vocabulary = field_vocabulary(sources)
    if any({w, w.removesuffix("s"), w + "s"} & vocabulary or filler(w) for w in phrase):
        return ()
    return tuple(phrase)


#: words between "which"/"what" and the kind of thing asked ("what type of tumours")
_KIND_OF = re.compile(r"^(?:(?:types?|kinds?|sorts?|forms?|classes?) of )?")
#: things asked for that are no gene, where the question names no disease or feature for
#: them ("which symptoms could indicate depression?")
_NOT_GENE_THINGS = frozenset({"symptom", "symptoms", "signs", "manifestations", "complications", "subtypes"})
#: words by which a question asks for genes whatever else it names
_GENE_WORDS = frozenset({"gene", "genes", "genetic", "loci", "locus"})


def asked_kind_of(core: str, entities: list[Entity]) -> tuple[str, ...]:
    """The thing a which/what question asks for, when it is a kind of disease or feature the
    question names ("What cancers are associated with HPV?", "What type of extracolonic
    tumours does a PMS2 mutation cause?": within two words after "what type of") or a word
    for such things ("which symptoms"), and the question asks for no genes: diseases or
    features are the answer, never the genes of "cancer". Empty otherwise."""
    norm = normalise(core)
    m = re.search(r" (?:which|what) ", norm)
    if m is None or _GENE_WORDS.intersection(norm.split()):
        return ()
    after = norm[m.end():]
    rest = _KIND_OF.sub("", after)
    words_after = rest.split()
    if words_after[:1] and words_after[0] in _NOT_GENE_THINGS:
        return (words_after[0],)
    # words before the name only after "type of": "what type of extracolonic tumours", never
    # "what could explain seizures"
    before = 2 if len(rest) < len(after) else 0
    for e in entities:
        if e.confident and e.kind in ("disease", "phenotype"):
            # a list of features is written as its names joined ("cancers, papilloma")
            for name in dict.fromkeys(filter(None, (e.span, e.text, *e.text.split(", ")))):
                key = normalise(name).strip()
                at = f" {rest}".find(f" {key} ")
                if key and 0 <= at and len(rest[:at].split()) <= before:
                    return (name,)
    return ()


def _in_context(field, blanked: str, kinds: set[str], sources: Mapping[str, Source] | None) -> LiteratureAsk | None:
    """A field stated only in general (`AnswerField.general_only`), asked with words of a
    context the question adds (a cell, a tissue, a process, a disease state): the literature's.
    The context is every word of the asking sentence left once the entities, the sources' cue
    words, filler and polite words are taken out ("what does neuronal BIN1 do at the synapse":
    neuronal, synapse); a sentence around it that asks nothing ("What does PTEN do? I need a
    one-liner for my thesis.") sets no context."""
    if not field.hops[0].field.general_only or not sources:
        return None
    context = _context_words(blanked, kinds, sources)
    return LiteratureAsk(("context",), context) if context else None


def _context_words(blanked: str, kinds: set[str], sources: Mapping[str, Source]) -> tuple[str, ...]:
    """The words of the asking sentence that neither name an entity nor ask a field: what
    the question sets its ask in (see `_in_context`)."""
    parts = [p for p in NEXT_QUESTION.split(blanked) if p and p.strip()]
    asking = [p for p in parts if detect_intent(p, kinds, sources) is not None] or parts
    allowed = field_vocabulary(sources) | NOT_GENES | FILLER | POLITE
    # a word of three letters or fewer sets no context: most are a question word misspelt
    # ("wat is the function of TP53?"), few a context ("gut")
    context = [w for w in (w.removesuffix("'s") for w in normalise(" ".join(asking)).split())
               if len(w) > 3 and w not in allowed and not filler(w) and not w.isdigit() and w != PLACEHOLDER.strip()]
    return tuple(context)


def _claim_about_condition(field, entities: list[Entity]) -> bool:
    """A yes/no claim read for a field that takes only diseases or features (their genes, their
    features, a summary) while the question names nothing of the kind the field yields: no
    record states the claim ("Do cytokines have any role in epilepsy?", "Amblyopia: is
    visual loss permanent?"). "Is seizure a feature of Dravet syndrome?", "Does Marfan syndrome
    present with arachnodactyly?" name both ends of a curated link and stay the record's."""
    hop = field.hops[0]
    if not set(hop.takes) <= {"disease", "phenotype"}:
        return False
    if _named_apart(entities):
        return False  # a disease and a feature of it: the curated annotations state whether it has it
    return not _named_of_kind(field, entities, field.hops[-1].field.yields)


def _names_its_answer(field, entities: list[Entity]) -> bool:
    """The question already names, confidently, a thing of the kind the cued field yields
    (a gene, for a disease's genes; a disease, for a gene's diseases): the field's value
    cannot be what a "how" or "why" asks. "How does Marfan syndrome present?" names no
    feature and asks for its features."""
    last = field.hops[-1].field
    return bool(_named_of_kind(field, entities, last.yields or last.lists))


def _named_of_kind(field, entities: list[Entity], kind: str | None) -> set[str]:
    """The confident names of `kind` the question gives, less those the field is asked of
    (a name read as two kinds is taken, not given)."""
    taken = {normalise(e.text) for e in entities if e.confident and e.kind in field.hops[0].takes}
    return {normalise(e.text) for e in entities if e.confident and e.kind == kind} - taken


def _named_gene_asked_about(field, entities: list[Entity], blanked: str) -> str | None:
    """The gene a question names while the field cued lists a disease's or features' genes and
    no gene word asks for genes ("Which TREM2 variants are associated with Alzheimer's
    disease?", "What is known about TREM2 variants in ...?"): the named gene is what is asked
    about, and the disease's gene list answers nothing. "Which genes besides APOE are linked
    to ...?" asks for genes and stays the record's."""
    hop = field.hops[0]
    if field.hops[-1].field.yields != "gene" or not set(hop.takes) <= {"disease", "phenotype"}:
        return None
    if _GENE_WORDS.intersection(normalise(blanked).split()):
        return None
    return next((e.text for e in entities if e.confident and e.kind == "gene"), None)


def _named_apart(entities: list[Entity]) -> bool:
    """The question names a disease and, outside the disease's name, a feature ("Does Marfan
    syndrome present with arachnodactyly?"); not one name read as both, nor a feature inside
    a disease's name ("Neurodevelopmental disorder with seizures ...")."""
    diseases = [normalise(e.span or e.text) for e in entities if e.confident and e.kind == "disease"]
    # a feature list is one entity, its names joined ("seizures, hyperkinetic movements")
    features = [normalise(part) for e in entities if e.confident and e.kind == "phenotype"
                for part in e.text.split(", ")]
    return bool(diseases) and any(all(f.strip() not in d and d.strip() not in f for d in diseases) for f in features)


def _curated(field, groups: set[str], blanked: str) -> bool:
    """A cued field that a curated record states exactly, even beside the ask words."""
    hop = field.hops[0]
    norm = normalise(blanked)
    if groups <= _CURATED_WITH and hop.field.yields == "gene" and set(hop.takes) <= {"disease", "phenotype"} \
            and any(f" {normalise(c).strip()} " in norm for c in hop.field.cues):
        return True  # the genes of a disease or of features, asked for by name with a risk word
    return bool(_CURATED_KINDS.intersection(hop.takes))


#: two alternatives, each opened by the same preposition ("caused by Lewy bodies or by
#: presynaptic aggregates", "in neurons or in glia"); a plain "A or B" is often one claim
#: about either ("Does surgery or radiation therapy impact survival?")
_ALTERNATIVES = re.compile(r"\b(by|in|from|with|on|to|at|for|through|via) [^?,;]{2,80}?,? or \1 ")


def asks_alternatives(text: str) -> bool:
    """The question asks which of two alternatives holds ("Is neurodegeneration caused by
    Lewy bodies or by presynaptic aggregates?"): "yes" or "no" answers neither."""
    return _ALTERNATIVES.search(normalise(text)) is not None


def wants_yes_no(analysis: Analysis) -> bool:
    """A yes or no is wanted: requested ("Answer yes or no."), asked of the literature as a
    claim, or put as one ("Is UGT1A1 implicated in Crigler-Najjar syndrome?"), unless it asks
    which of two alternatives holds (`asks_alternatives`) and no yes or no was requested."""
    if analysis.yes_no_requested:
        return True
    return (bool(analysis.asks is not None and analysis.asks.yes_no) or claims_yes_no(analysis.core)) \
        and not asks_alternatives(analysis.core)
