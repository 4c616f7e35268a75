"""Grounded answers.

1. `structured_answer`: when the question asks for a field of a structured record
   (official symbol, chromosome, genes of a SNP, organism of a sequence, ...), the answer
   is read from the evidence by the source that declared the field (`Source.read`, see
   biorag.contracts.sources), never generated. Multi-hop answers read each hop's field in turn: the
   values one hop yields are the names the next hop reads its records for.
2. `verify_claims`: a free-text answer is checked claim by claim (GeneAgent-style
   self-verification): every gene symbol, rsID, cytogenetic/genomic location and cited id
   in it must occur in the gathered evidence (never merely in the question). Sentences carrying an
   unsupported claim are removed and listed.

A gene asked about in the context of a disease gets a second line saying whether the
records link the two (biorag.loop.links).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from biorag.contracts.models import Evidence
from biorag.contracts.sources import Reading, Source
from biorag.knowledge.gene_classes import QUOTED_NAMES, stating_part
from biorag.loop.links import gene_disease_link
from biorag.understanding.analysis import RSID, Analysis, Hop
from biorag.understanding.inheritance_claims import claim_holds
from biorag.understanding.literature_asks import wants_yes_no
from biorag.understanding.options import choose, choose_by_value, option_line


@dataclass
class StructuredAnswer:
    text: str
    used: list[Evidence] = field(default_factory=list)
    explanation: str = ""
    #: candidates when the question's name fits several records: the text names them
    ambiguous: list[str] = field(default_factory=list)
    #: names the question asks about that no record answers for: the answer is incomplete
    missing: list[str] = field(default_factory=list)
    #: why the records do not answer though they hold the field (`Reading.refused`)
    refused: str = ""


def hop_readings(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source],
                 upto: int | None = None) -> list[Reading | None]:
    """What each hop of the intent reads from the evidence gathered so far, hop 0 to `upto`
    (default: the last), each read once: a hop that takes the values of the one before
    takes its reading. A hop's reading is None when its source is not enabled or no
    records hold the field yet. When the hop's source has no reading, another source that
    declares the same field answers from its own records (OMIM's and HPO's genes of a
    disease): the reading's evidence says which one it was. A hop that takes several
    entities the question names ("Where are KRAS and NRAS?") reads each one's field on its
    own (see `_each_named`)."""
    intent = analysis.intent
    if intent is None:
        return []
    last = len(intent.hops) - 1 if upto is None else min(upto, len(intent.hops) - 1)
    readings: list[Reading | None] = []
    for i in range(last + 1):
        readings.append(_hop_reading(analysis, evidence, sources, i, readings[i - 1] if i else None))
    return readings


def hop_reading(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source],
                upto: int) -> Reading | None:
    """What hop `upto` of the intent reads from the evidence gathered so far (`hop_readings`)."""
    intent = analysis.intent
    if intent is None or upto >= len(intent.hops):
        return None
    return hop_readings(analysis, evidence, sources, upto)[upto]


def _hop_reading(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source], upto: int,
                 previous: Reading | None) -> Reading | None:
    """Hop `upto`'s reading, given the reading of the hop before it (`previous`)."""
    hop = analysis.intent.hops[upto]
    if hop.source not in sources:
        return None
    context = [e.text for e in analysis.entities if e.kind == "organism"] if "organism" in hop.field.about else []
    if hop.from_previous:
        if previous is None or previous.ambiguous:
            return None
        reading = _read(hop, evidence, sources, [*previous.hop_inputs, *context])
        return _labelled(hop, evidence, sources, previous, context, reading)
    named = analysis.texts(hop.takes)
    if len(named) > 1:
        return _each_named(hop, evidence, sources, named, context)
    return _read(hop, evidence, sources, [*named, *context])


def _read(hop: Hop, evidence: list[Evidence], sources: Mapping[str, Source], about: list[str]) -> Reading | None:
    """The hop's field for `about`, read by its own source or another declaring the field."""
    own = [e for e in evidence if e.source == hop.source]
    reading = sources[hop.source].read(hop.field, own, about) if own else None
    if reading is None:  # another source declaring the same field may hold it (genes of a disease)
        for name, other in sources.items():
            twin = next((f for f in getattr(other, "answers", ()) if f.name == hop.field.name), None)
            theirs = [e for e in evidence if e.source == name] if name != hop.source else []
            if twin is not None and theirs and (reading := other.read(twin, theirs, about)) is not None:
                break
    return reading


def _each_named(hop: Hop, evidence: list[Evidence], sources: Mapping[str, Source], named: list[str],
                context: list[str]) -> Reading | None:
    """Several entities named in the question: each one's field, labelled with its name
    ("KRAS: chr12; NRAS: chr1"), so equal values stay apart and none is dropped silently;
    a name no record answers for is listed in `missing` (the answer is then insufficient)."""
    parts = [(name, _read(hop, evidence, sources, [name, *context])) for name in named]
    if all(r is None or not r.answer for _, r in parts):
        return None
    if ambiguous := next((r for _, r in parts if r is not None and r.ambiguous), None):
        return ambiguous
    found = [(name, r) for name, r in parts if r is not None and r.answer]
    missing = [name for name, r in parts if r is None or not r.answer]
    text = "; ".join([r.answer if r.answer.startswith(f"{name}: ") else f"{name}: {r.answer}" for name, r in found]
                     + [f"{name}: not found in the records" for name in missing])
    return Reading(
        values=[v for _, r in found for v in r.values],
        used=[e for _, r in found for e in r.used],
        explanation="; ".join(r.explanation for _, r in found if r.explanation),
        links=[x for _, r in found for x in r.hop_inputs],
        text=text,
        missing=missing,
    )


def _labelled(hop: Hop, evidence: list[Evidence], sources: Mapping[str, Source], previous: Reading,
              context: list[str], reading: Reading | None) -> Reading | None:
    """A hop read for several values of the one before ("the chromosomes of the genes for
    cystic fibrosis"): the answer's first line stays the bare list (what the benchmarks score),
    and a second line says which value belongs to which ("CFTR: chr7; TGFB1: chr19"), so a
    reader need not guess the pairing."""
    inputs = previous.hop_inputs
    if reading is None or reading.ambiguous or len(inputs) < 2 or "\n" in reading.answer:
        return reading
    names = previous.values if len(previous.values) == len(inputs) else inputs  # symbols, not Gene IDs
    pairs, named = [], 0
    for name, query in zip(names, inputs, strict=True):
        own = _read(hop, evidence, sources, [query, *context])
        if own is not None and own.answer and not own.ambiguous:
            named += own.answer.startswith(f"{name}: ")
            pairs.append(own.answer if own.answer.startswith(f"{name}: ") else f"{name}: {own.answer}")
    if len(pairs) < 2 or named == len(pairs):  # each value already names its gene ("APP: amyloid ...")
        return reading
    return replace(reading, text=f"{reading.answer}\n{'; '.join(pairs)}")


def hop_inputs(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source], hop: int) -> list[str]:
    """The queries hop `hop` needs: the question's entities of the kinds it takes, or the
    values the previous hop yielded."""
    intent = analysis.intent
    if intent is None:
        return []
    needs_previous = intent.hops[hop].from_previous and hop > 0
    return inputs_of(analysis, hop, hop_reading(analysis, evidence, sources, hop - 1) if needs_previous else None)


def inputs_of(analysis: Analysis, hop: int, previous: Reading | None) -> list[str]:
    """`hop_inputs`, given the reading of the hop before (`previous`, when it was read)."""
    h = analysis.intent.hops[hop]
    if not h.from_previous:
        return analysis.texts(h.takes)
    if previous is None or previous.ambiguous:
        return []
    if previous.causal_links and _CAUSED.search(analysis.core):
        return previous.causal_links  # "the gene mutated in X": not the genes that only modify it
    return previous.hop_inputs


#: a question that asks through what causes a disease ("the gene mutated in X", "that causes
#: X"), not through every gene linked to it ("genes associated with X")
_CAUSED = re.compile(r"\b(?:caus\w*|mutated|mutations?|responsible|underl\w*|defective|deficient)\b", re.I)


def structured_answer(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source],
                      tried: Callable[[str, str], bool] | None = None,
                      readings: list[Reading | None] | None = None) -> StructuredAnswer | None:
    """The answer read from record fields, or None when the evidence does not hold it.
    `readings`: the hops' readings of this evidence when the caller has them (`hop_readings`)."""
    if analysis.intent is None or not evidence:
        return None
    if analysis.subject_options is not None:
        return _option_by_record(analysis, evidence, sources)
    if readings is None:
        readings = hop_readings(analysis, evidence, sources)
    for reading in readings:  # an ambiguous name stops the chain where it occurs
        if reading is not None and reading.ambiguous:
            return StructuredAnswer(reading.answer, reading.used, reading.explanation, reading.ambiguous)
    reading = readings[-1]
    if reading is None or not reading.answer:
        return None
    if analysis.options:
        # a multiple-choice question: the one option the records name for the asked field
        chosen = choose(analysis.options, reading.values)
        if chosen is None:
            return None
        return StructuredAnswer(option_line(chosen), reading.used,
                                f"{reading.explanation}; the one option the records name")
    answer = StructuredAnswer(reading.answer, reading.used, reading.explanation, missing=reading.missing,
                              refused=reading.refused)
    if analysis.claimed and not reading.refused:
        # a yes/no question claiming a value of the field ("Is Marfan syndrome autosomal
        # dominant?"): Yes when a value the records state holds it, No when none does
        held = claim_holds(analysis.claimed, reading.values)
        answer.text = f"{('Yes, ' + reading.holds_for) if held and reading.holds_for else 'Yes' if held else 'No'} — {answer.text}"
    if (link := gene_disease_link(analysis, evidence, sources, tried)) is not None:
        # the first line stays the field asked for (what benchmarks score); the next says
        # whether the records link the gene to the disease it was asked about in. Asked
        # whether they are linked ("Is UGT1A1 implicated in Crigler-Najjar syndrome?"), a
        # curated link is a Yes, said first; no link in these catalogues is no No
        if link.linked and wants_yes_no(analysis):
            answer.text = f"Yes.\n{link.text}\n{answer.text}"
        else:
            answer.text += "\n" + link.text
        answer.used += [e for e in link.used if e not in answer.used]
        answer.explanation = "; ".join(filter(None, [answer.explanation, "gene–disease links of the disease's records"]))
    return answer


def _option_by_record(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source]) -> StructuredAnswer | None:
    """The one option whose record's field states what the stem wants (`SubjectOptions`),
    once every option's record has been read; then a line with that option's value."""
    hop, subject = analysis.intent.hops[0], analysis.subject_options
    read = {o: _read(hop, evidence, sources, [o.names[0]]) for o in analysis.options}
    if any(r is None or not r.answer or r.ambiguous for r in read.values()):
        return None  # an option not read yet may state it too
    # every value read, not the answer as shown (a gene-class answer shows only some names)
    values = {o: ", ".join(r.values) for o, r in read.items()}
    chosen = choose_by_value(subject, values)
    if chosen is None:
        return None
    reading = read[chosen]
    because = f"; {hop.field.description}: {subject.wanted}" if subject.wanted else ""
    name = chosen.names[0]
    value = reading.answer
    if (asked := subject.gene_class) is not None:
        # the names that say it, not every class the gene has; asked for the one that is
        # not, what sets it apart is that no name of its says it
        value = (f"none of its names states {asked.gene_class.name}; each other option's does" if asked.negated
                 else stating_part(asked, values[chosen], limit=QUOTED_NAMES))
    value = value if value.startswith(f"{name}: ") else f"{name}: {value}"
    return StructuredAnswer(f"{option_line(chosen)}\n{value}", reading.used,
                            f"{reading.explanation}; the one option whose record states it{because}")


# ---- claim verification -------------------------------------------------------------
CYTO = re.compile(r"\b(?:[1-9]|1\d|2[0-2]|X|Y)[pq]\d{1,2}(?:\.\d{1,3})?\b")
GENOMIC = re.compile(r"\bchr(?:[1-9]|1\d|2[0-2]|X|Y|M)(?::\d+-\d+)?\b", re.I)
CHROMOSOME_WORD = re.compile(r"\bchromosome\s+([1-9]|1\d|2[0-2]|X|Y)\b", re.I)
CITE = re.compile(r"\[([a-z]+):([^\]\s]+)\]")
PMID = re.compile(r"\bPMID:?\s*(\d{4,9})\b", re.I)
SYMBOLISH = re.compile(r"\b[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]{1,4})?\b")
_COMMON_CAPS = {
    "DNA", "RNA", "SNP", "YES", "NO", "MESH", "NCBI", "OMIM", "BLAST", "PCR", "USA", "FDA", "WHO", "HIV", "AIDS",
    "COVID", "MRI", "CT", "ATP", "II", "III", "IV", "NA", "TRUE", "FALSE", "I", "A", "PMID", "ID",
}


def extract_claims(text: str) -> list[str]:
    """Checkable claims: rsIDs, locations, cited ids, gene-like symbols (with a digit or
    a hyphen, which rules out ordinary acronyms)."""
    claims: list[str] = []
    claims += [m.group(0).lower() for m in RSID.finditer(text)]
    claims += [m.group(0) for m in CYTO.finditer(text)]
    claims += [m.group(0) for m in GENOMIC.finditer(text)]
    claims += [f"chr{m.group(1).upper()}" for m in CHROMOSOME_WORD.finditer(text)]
    claims += [f"{m.group(1)}:{m.group(2)}" for m in CITE.finditer(text)]
    claims += [f"pubmed:{m.group(1)}" for m in PMID.finditer(text)]
    no_cites = CITE.sub(" ", text)
    for m in SYMBOLISH.finditer(no_cites):
        tok = m.group(0)
        if tok not in _COMMON_CAPS and (any(c.isdigit() for c in tok) or "-" in tok) and not RSID.fullmatch(tok.lower()) and not GENOMIC.fullmatch(tok) and not CYTO.fullmatch(tok):
            claims.append(tok)
    return list(dict.fromkeys(claims))


def _haystack(evidence: list[Evidence]) -> tuple[str, set[str]]:
    parts: list[str] = []
    keys = set()
    for ev in evidence:
        parts += [ev.id, ev.title, ev.text, json.dumps(ev.metadata, default=str)]
        keys |= {ev.key.lower(), ev.cited.lower()}
    return "\n".join(parts).lower(), keys


def supported(claim: str, evidence: list[Evidence]) -> bool:
    """True when the gathered evidence states `claim`. The question never counts: a
    symbol the user typed is not evidence that the answer's statement about it is true."""
    hay, keys = _haystack(evidence)
    if re.fullmatch(r"[a-z]+:[^\s]+", claim) and not GENOMIC.fullmatch(claim):
        return claim.lower() in keys
    c = claim.lower()
    if c.startswith("chr") and ":" not in c:
        n = re.escape(c[3:])
        forms = [rf"chr{n}", rf'"chromosome": "{n}"', rf"chromosome {n}"]
        return any(re.search(rf"(?<![a-z0-9]){f}(?![a-z0-9])", hay) for f in forms)
    return re.search(rf"(?<![a-z0-9]){re.escape(c)}(?![a-z0-9])", hay) is not None


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def verify_claims(answer: str, evidence: list[Evidence]) -> tuple[str, list[str]]:
    """Remove sentences whose claims the evidence does not support; return (kept, unsupported)."""
    kept, unsupported = [], []
    for sentence in _SENTENCE.split(answer.strip()):
        bad = [c for c in extract_claims(sentence) if not supported(c, evidence)]
        if bad:
            unsupported += bad
        elif sentence and sentence not in kept:  # small models loop; say each thing once
            kept.append(sentence)
    return " ".join(kept).strip(), list(dict.fromkeys(unsupported))
