"""What a literature question asks, read once: its kind (yes/no, list, how), the entities
and topic words a cited sentence must hold, the direction or type of thing it asks for.
`literature_reading` reads the evidence against it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from biorag.contracts.models import Evidence
from biorag.knowledge.initialisms import (
    GREEK_LETTERS,
    initialism_words,
    phrase_initials,
    spelled_greek,
    written_initialisms,
)
from biorag.loop.claim_words import claim_subject, compared_word, same_root
from biorag.loop.findings import claims_sameness
from biorag.loop.how_reading import asked_measure
from biorag.loop.qualifiers import Qualified, other_patients, population, question_qualified
from biorag.loop.required_names import required_names
from biorag.loop.sentence_cues import (
    abbreviations,
    asked_types,
    claimed_negations,
    directions,
    has_phrase,
    reading_words,
    stem,
)
from biorag.understanding.intent import PLACEHOLDER, blank_entities, normalise
from biorag.understanding.literature_asks import ask_words_in, asks_alternatives, wants_yes_no
from biorag.understanding.question_words import word_map, words

if TYPE_CHECKING:
    from biorag.loop.extractive import ScoredSentence
    from biorag.understanding.question_model import Analysis

#: Greek letters spelled out, as a word of a name ("amyloid beta"); "tau" is also a protein's name
_GREEK = frozenset(GREEK_LETTERS.values()) - {"tau"}


@cache
def _stop_words() -> frozenset[str]:
    """Words of a question that name no topic: function words, asking words, ask cues."""
    stop = set(words("not_genes")) | set(words("filler")) | set(words("asking")) | set(words("yes_no_leads"))
    stop |= set(words("request_after_lead")) | set(words("polite_leads")) | set(reading_words("generic_words"))
    for cues in word_map("literature_asks").values():
        for cue in cues:
            stop.update(normalise(cue).split())
    for ws in asked_types().values():
        for w in ws:
            stop.update(w.split())
    return frozenset(stop)


@dataclass(frozen=True)
class LiteratureQuestion:
    kind: str  # "yes_no", "list" or "how"
    entities: tuple[tuple[str, tuple[re.Pattern, ...]], ...]  # (name, its patterns) per entity
    topic: tuple[str, ...]  # stems of the topic words
    need: int  # topic words a sentence must hold
    direction: frozenset[str]  # "up"/"down" asked of a yes/no question
    asked_type: str | None  # "gene", "chemical", "disease" for a list question
    asked_kinds: tuple[str, ...]  # every type its type word may mean ("molecule": gene, chemical)
    own: frozenset[str]  # lower-cased names the question itself gives
    effect: bool  # asks for an effect ("What is the effect of X on Y?")
    mechanism: bool  # asks how or by what mechanism
    subject: tuple[str, ...] = ()  # roots of a yes/no claim's subject words ("a healthy diet")
    compared: str = ""  # the stem a comparison is about ("more [neurotoxic] than"; "most preva")
    numbers: tuple[str, ...] = ()  # the numbers the question gives ("amyloid-beta 43")
    lettered: tuple[tuple[str, str], ...] = ()  # a word and the letter that names which one ("vitamin", "d")
    qualified: tuple[Qualified, ...] = ()  # its qualified conditions ("osteoporotic vertebral fractures")
    stems: frozenset[str] = frozenset()  # the stems of all its words
    population: frozenset[str] = frozenset()  # stems of its described conditions (`qualifiers.population`)
    initials: tuple[tuple[str, tuple[str, ...]], ...] = ()  # ("AB", ("amyloid", "beta")): `initialisms`
    negations: tuple[str, ...] = ()  # negations the claim makes ("impairment [without dementia]")
    sameness: bool = False  # the claim is that two things are alike ("as effective as": `findings`)
    asked: str = ""  # the question, normalised (`intent.normalise`)
    measure: str = ""  # the measure a how-question asks for ("frequency", "comparison", "risk": `how_reading`)


def read_question(analysis: Analysis) -> LiteratureQuestion:
    core = analysis.core
    entities = required_names(analysis)
    blanked_text = blank_entities(core, [e for e in analysis.entities if e.confident or e.role])
    blanked = spelled_greek(normalise(blanked_text))
    stop = _stop_words()
    if has_phrase(blanked, "look like"):  # "What does X look like?" asks what X is, in those words
        stop = stop | {"look", "like"}
    tokens = blanked.split()
    # a Greek letter after a word is part of that word's name ("amyloid beta", "interferon
    # gamma"): one name is one topic word, or a title naming copper and amyloid beta holds
    # three of "copper speed up amyloid beta fibril assembly"
    topic = [w for i, w in enumerate(tokens) if w != PLACEHOLDER.strip() and w not in stop and len(w) > 2
             and not w.isdigit() and not (w in _GREEK and i and tokens[i - 1] not in stop)]
    topic = list(dict.fromkeys(stem(w) for w in topic))
    norm = normalise(core)
    yes_no = wants_yes_no(analysis) or (has_phrase(norm, "whether") and not asks_alternatives(analysis.core))
    asked_kinds = () if yes_no else _asked_kinds(norm)
    own = frozenset(n.lower() for e in analysis.entities for n in (e.text, *e.canonical))
    written = own | {e.span.lower() for e in analysis.entities if e.kind == "gene" and e.span}
    if asked_kinds and _asks_variants_of(norm, written):
        asked_kinds = ("variant",)  # "which TREM2 variants ...": the gene's variants, not other genes
    asked_type = asked_kinds[0] if asked_kinds else None
    kind = "yes_no" if yes_no else "list" if asked_type else "how"
    asked = ask_words_in(core)
    direction = frozenset(directions(" ".join(c for _g, c in asked) + " " + norm)) if yes_no else frozenset()
    need = max(1, math.ceil(len(topic) / 2)) if topic else 0  # at least half: 3 of 5
    groups = set(analysis.asks.groups) if analysis.asks is not None else set()
    mechanism = any(g == "mechanism" or c in reading_words("mechanism_asks") for g, c in asked)
    subject = claim_subject(tokens, stop, _function_words()) if yes_no else ()
    compared = compared_word(tokens, stop) if yes_no else ""
    numbers = tuple(dict.fromkeys(w for w in tokens if w.isdigit() and len(w) <= 3))
    lettered = _lettered(blanked_text, stop)
    qualified = question_qualified(blanked_text, tuple(topic), _function_words())
    return LiteratureQuestion(kind, entities, tuple(topic), need, direction, asked_type, asked_kinds, own,
                              "effect" in groups, mechanism, subject, compared, numbers, lettered, qualified,
                              frozenset(stem(w) for w in norm.split()), population(qualified),
                              _initials(tokens, stop), claimed_negations(norm) if yes_no else (),
                              yes_no and claims_sameness(norm), norm, asked_measure(norm))


def _initials(tokens: list[str], stop: frozenset[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The initials of each run of the question's topic words, which a record may write
    without defining them ("Aβ" for "amyloid beta")."""
    runs: list[list[str]] = [[]]
    for w in tokens:
        if w in stop or w == PLACEHOLDER.strip() or w.isdigit():
            runs.append([])
        else:
            runs[-1].append(w)
    found: dict[str, tuple[str, ...]] = {}
    for run in runs:
        for short, spelled in phrase_initials(run).items():
            found.setdefault(short, spelled)
    return tuple(found.items())


#: a word and the one letter after it that says which of its kind ("vitamin D", "hepatitis B",
#: "complex I"): a capital, or a lower-case letter that is no English word ("vitamin d"; not "a",
#: "i", nor the "s" a lost apostrophe leaves)
_LETTERED = (re.compile(r"\b([A-Za-z]{3,})[ -]([A-Z])(?![\w'’])"), re.compile(r"\b([a-z]{3,})[ -]([b-hj-rt-z])(?![\w'’])"))


def _lettered(text: str, stop: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """The question's lettered names (`_LETTERED`): a sentence about vitamin K does not answer
    a question about vitamin D, though it shares every other word."""
    found = (m.groups() for pattern in _LETTERED for m in pattern.finditer(text))
    return tuple(dict.fromkeys((w.lower().removesuffix("s"), letter.lower()) for w, letter in found
                               if w.lower() not in stop))


def _holds_lettered(text: str, lettered: tuple[tuple[str, str], ...]) -> bool:
    """Every lettered name is written in `text`, maybe glued or numbered ("25-hydroxyvitamin D3",
    "vitamin-D")."""
    return all(re.search(rf"{re.escape(w)}\w*[\s-]*{letter}\d*(?![a-z])", text, re.IGNORECASE)
               for w, letter in lettered)


@cache
def _function_words() -> frozenset[str]:
    return words("not_genes") | words("filler") | words("yes_no_leads") | words("polite_leads")


def _asked_kinds(norm: str) -> tuple[str, ...]:
    """The types of named things a list question asks for ("which drugs": chemical); a type
    word listed under two types ("molecule", "biomarker": a gene product or a chemical) asks
    for both, genes first."""
    tokens = norm.split()
    askers = set(reading_words("list_askers"))
    types = asked_types()
    for i, w in enumerate(tokens):
        if w not in askers:
            continue
        for j in range(i + 1, min(i + 5, len(tokens))):
            two = " ".join(tokens[j:j + 2])
            kinds = tuple(kind for kind, ws in types.items() if two in ws or tokens[j] in ws)
            if kinds:
                return kinds
    return ()


def _asks_variants_of(norm: str, own: frozenset[str]) -> bool:
    """A list question asks for the variants of a gene it names: a variant word right after
    the gene ("which TREM2 variants", "what APP mutations") or after "of" it ("which variants
    of TREM2")."""
    names = {normalise(n).strip() for n in own} - {""}
    variant = "|".join(re.escape(w) for w in reading_words("variant_words"))
    for name in names:
        if re.search(rf"(?:^| ){re.escape(name)} (?:{variant}) |(?:^| )(?:{variant}) (?:of|in) {re.escape(name)} ",
                     f"{norm} "):
            return True
    return False


def entity_in(text: str, patterns: tuple[re.Pattern, ...], ev: Evidence | None) -> bool:
    """The sentence names the entity, or an abbreviation its record defines for it."""
    low = text.lower()
    if any(p.search(low) for p in patterns):
        return True
    if ev is None:
        return False
    for long, short in abbreviations(f"{ev.title}\n{ev.text}"):
        if any(p.search(long) for p in patterns) and re.search(rf"(?<![a-z0-9]){re.escape(short)}(?![a-z0-9])", low):
            return True
    return False


def _stems_of(text: str, ev: Evidence | None, q: LiteratureQuestion | None = None) -> set[str]:
    """The word stems of a sentence (`_read_words`)."""
    return {stem(w) for w in _read_words(text, ev, q)}


def _read_words(text: str, ev: Evidence | None, q: LiteratureQuestion | None, whole_long: bool = False) -> list[str]:
    """A sentence's words (`_words`), an abbreviation its record defines adding its long form's
    last words, one per letter ("DFs": dominant frequency; `whole_long`: all the words the
    definition caught), an initialism of the question's words the words it stands for
    (`_initialism_words`)."""
    tokens = _words(text)
    out = list(tokens)
    if ev is not None:
        for long, short in abbreviations(f"{ev.title}\n{ev.text}"):
            if spelled_greek(short) in tokens or spelled_greek(short) + "s" in tokens:
                words = normalise(long).split()
                out += words if whole_long else words[-len(short):]
    return out + _initialism_words(text, q, ev)


def _initialism_words(text: str, q: LiteratureQuestion | None, ev: Evidence | None) -> list[str]:
    """The question's words the sentence writes as bare initials ("Aβ43": amyloid, beta),
    unless its record defines that short form as something else."""
    if q is None or not q.initials:
        return []
    defined = {short for _long, short in abbreviations(f"{ev.title}\n{ev.text}")} if ev is not None else set()
    return initialism_words(text, {k: v for k, v in q.initials if k.lower() not in defined})


def coverage(text: str, q: LiteratureQuestion, ev: Evidence | None = None) -> int:
    """How many of the question's topic words the sentence holds (`_stems_of`)."""
    return _topic_held(_stems_of(text, ev, q), q)


def names_beyond(phrase: str, rest: str, q: LiteratureQuestion) -> bool:
    """The phrase names what the claim asks about beyond its subject and beyond what `rest`
    (the sentence without it) names: one of its entities or a topic word that is no subject
    word ("without a difference in [failure] rates", not "without [osteotomy]" for "Does pelvic
    osteotomy reduce failure?": `findings.without_asides`)."""
    if any(entity_in(phrase, p, None) and not entity_in(rest, p, None) for _name, p in q.entities):
        return True
    held = {stem(w) for w in _words(rest)}
    return any(stem(w) in q.topic and stem(w) not in held and not any(same_root(w, r) for r in q.subject)
               for w in _words(phrase))


def _topic_held(stems: set[str], q: LiteratureQuestion) -> int:
    return sum(1 for t in q.topic if t in stems)


def _words(text: str) -> list[str]:
    """A sentence's words as the question's are read (Greek letters spelled, a glued number
    apart: `spelled_greek`), with the initialisms its spelled names are written as
    ("amyloid beta": abeta), so "Abeta" in a question finds "amyloid-beta" in a record."""
    words = spelled_greek(normalise(text)).split()
    return words + [w for w in written_initialisms(text) if w.isascii() and w.isalpha() and w not in words]


def _holds_subject(text: str, q: LiteratureQuestion, ev: Evidence | None) -> bool:
    return any(same_root(t, r) for t in _read_words(text, ev, q, whole_long=True) for r in q.subject)


def mentions(text: str, q: LiteratureQuestion, ev: Evidence | None = None) -> bool:
    """The sentence is about the question: it names every entity, every number the question
    gives ("Aβ43" for "amyloid-beta 43"), one of a yes/no claim's subject words (a sentence
    about obesity at midlife does not answer whether a healthy diet at midlife helps), what a
    comparison compares ("more neurotoxic"), enough of the topic words, and no other cause
    of a condition the question qualifies (`qualifiers.other_patients`), in the sentence or
    its record's title. Asked yes or no, the title's words for the question's described
    condition count as the sentence's: a claim is read about its record's patients."""
    if not all(entity_in(text, patterns, ev) for _name, patterns in q.entities) and not _in_titled_record(text, q, ev):
        return False
    if q.subject and not _holds_subject(text, q, ev):
        return False
    stems = _specifics(text, q, ev)
    return stems is not None and (not q.topic or _topic_held(stems, q) >= q.need)


def _in_titled_record(text: str, q: LiteratureQuestion, ev: Evidence | None) -> bool:
    """Asked what or how (not yes or no), a sentence holding every topic word (two at least)
    in a record whose title names the entities it leaves out is about them: "The muscle most
    frequently involved was the psoas" under "Pyomyositis caused by Staphylococcus aureus"
    reports on the title's patients. A claim is read from sentences that name it."""
    if q.kind == "yes_no" or ev is None or not ev.title or not holds_whole_topic(text, q, ev):
        return False
    return all(entity_in(text, p, ev) or entity_in(ev.title, p, None) for _name, p in q.entities)


def holds_whole_topic(text: str, q: LiteratureQuestion, ev: Evidence | None = None) -> bool:
    """The sentence holds every topic word of the question, which has two at least: the
    finding a record gives without repeating the names its title gives."""
    return len(q.topic) >= 2 and coverage(text, q, ev) == len(q.topic)


def holds_specifics(text: str, q: LiteratureQuestion, ev: Evidence | None = None) -> bool:
    """The sentence keeps to what the question specifies (`mentions`, less the entities,
    subject and topic words): every number it gives, what a comparison compares, and no
    other cause of a condition it qualifies. A finding read for its record's claim
    (`record_about`) must still say it of the same thing."""
    return _specifics(text, q, ev) is not None


def _specifics(text: str, q: LiteratureQuestion, ev: Evidence | None) -> set[str] | None:
    """The sentence's stems (with its record title's condition words, asked yes or no), or
    None when it breaks what the question specifies (`holds_specifics`)."""
    if not all(re.search(rf"(?<![0-9]){n}(?![0-9])", text) for n in q.numbers):
        return None
    if not _holds_lettered(text, q.lettered):
        return None
    stems = _stems_of(text, ev, q)
    if q.compared and not _compares(text, stems, q.compared):
        return None
    if other_patients(text, stems, q.qualified, q.stems, _function_words()):
        return None
    if q.qualified and ev is not None and ev.title:
        others, title = _title_reading(ev.title, q.qualified, q.stems)
        if others:
            return None  # the record's title gives the condition another cause: its patients are others
        if q.kind == "yes_no":  # a claim about patients; a how question's condition is its outcome
            stems |= title & q.population
    return stems


def _compares(text: str, stems: set[str], compared: str) -> bool:
    if " " not in compared:
        return compared in stems
    degree, word = compared.split(" ", 1)  # a superlative: "most preva"
    return re.search(rf"\b{degree} {re.escape(word)}", spelled_greek(normalise(text))) is not None


@lru_cache(maxsize=256)
def _title_reading(title: str, qualified: tuple[Qualified, ...],
                   question_stems: frozenset[str]) -> tuple[bool, frozenset[str]]:
    """(the title gives a qualified condition of the question another cause, the title's
    stems), read once per record and question, not once per sentence of the record."""
    stems = _stems_of(title, None)
    return other_patients(title, stems, qualified, question_stems, _function_words()), frozenset(stems)


def names_entities(s: ScoredSentence, q: LiteratureQuestion, in_title: bool = False) -> bool:
    """The sentence names every entity of the question, whatever its topic words; with
    `in_title`, an entity its record's title names counts as named."""
    ev = s.evidence
    return all(entity_in(s.text, patterns, ev) or (in_title and entity_in(ev.title, patterns, ev))
               for _name, patterns in q.entities)



def record_about(ev: Evidence, q: LiteratureQuestion) -> bool:
    """The record as a whole is about the question: its title and abstract name every entity,
    the claim's subject and enough of the topic words, though maybe no one sentence does (a
    question put as the study's title, read against its findings: `findings`); a title, where
    the record has one, names the subject or an entity."""
    text = f"{ev.title}\n{ev.text}"
    if not all(entity_in(text, patterns, ev) for _name, patterns in q.entities):
        return False
    if ev.title.strip() and (q.subject or q.entities) and not (
            (q.subject and _holds_subject(ev.title, q, ev))
            or any(entity_in(ev.title, patterns, ev) for _name, patterns in q.entities)):
        return False  # a record is about what its title names: a flossing trial's "mismatched video" is no MMN study
    if not all(re.search(rf"(?<![0-9]){n}(?![0-9])", text) for n in q.numbers) or not _holds_lettered(text, q.lettered):
        return False
    if q.subject and not _holds_subject(text, q, ev):
        return False
    return not q.topic or _topic_held(_stems_of(text, ev, q), q) >= q.need
