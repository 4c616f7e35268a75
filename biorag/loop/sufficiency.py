"""When evidence suffices: the one check the agent applies to every planner's verdict
(rules, llm or hybrid, self-evaluation on or off). Nothing is sufficient without evidence:

1. no evidence (nothing retrieved, or every retrieval failed): never sufficient;
2. the evidence must name the entities the question names (gene, rsID, ID, disease; case,
   hyphen and spacing variants allowed: IL6 ~ IL-6, APOE4 ~ APOE e4; a dictionary's
   official name for an alias counts), or it is about something else (`missing_entities`).
   When the question's field is understood, only the entities its first lookup takes count:
   a disease in a context clause of a gene question is no subject;
3. a record holds the asked-for field (`grounding.structured_answer`): sufficient;
4. otherwise the answer will be free text, so the evidence must be on topic: its best
   sentence is at least `min_similarity` similar to the question (`extractive.SentenceRanker`).
   Database records alone are no free-text answer to a question whose field was not
   understood ("How many exons does TP53 have?"), and beside literature their lines are
   neither ranked nor quoted (`quotable_evidence`).

A question about a gene that exists nowhere in the evidence ("What is the function of
ZQX99?") or literature about something else ("Which chromosome is TP53 on?" answered by a
heart-disease abstract) fails 2 or 4 and is reported insufficient instead of summarised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from biorag.contracts.models import Evidence
from biorag.contracts.sources import GENE_IDS, Lexicon, Source, held_genes
from biorag.knowledge.names import disease_key
from biorag.loop.extractive import ScoredSentence, SentenceRanker
from biorag.loop.grounding import StructuredAnswer
from biorag.loop.literature_reading import LiteratureReading, read_literature, title_sentences
from biorag.understanding.analysis import Analysis
from biorag.understanding.unknown_names import refusal, still_unknown

#: entity kinds a relevant record need not mention: a sequence is not quoted back, and an
#: organism is context ("in Alzheimer mice"), never what the question is about
_NOT_REQUIRED = ("sequence", "organism")
_VERSION = re.compile(r"(?<=\d)\.\d+$")


@dataclass
class EvidenceCheck:
    sufficient: bool
    reason: str  # why not, for the trace and the answer ('' when sufficient)
    structured: bool = False
    ranked: list[ScoredSentence] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    #: a literature answer read from the sentences (biorag.loop.literature_reading), when the
    #: question asks the literature
    literature: LiteratureReading | None = None


#: an initialism written in the plural ("SSRIs", "NSAIDs")
_PLURAL_INITIALISM = re.compile(r"[A-Z][A-Z0-9-]*[A-Z]s")


def _variants(name: str) -> re.Pattern:
    """`name` with optional separators between its letter and digit groups."""
    groups = re.findall(r"[a-z]+|\d+", name.lower())
    body = r"[^a-z0-9]{0,3}".join(map(re.escape, groups))
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


def _haystack(evidence: list[Evidence]) -> str:
    return "\n".join(
        part for ev in evidence for part in (ev.id, ev.title, ev.text, json.dumps(ev.metadata, default=str))
    ).lower()


def _held_genes(evidence: list[Evidence], sources: Mapping[str, Source] | None) -> tuple[set[str], set[str]]:
    """(Gene IDs, lower-cased names) of the genes the records hold (`held_genes`)."""
    held = held_genes(evidence, sources)
    return {g.gene_id for g in held if g.gene_id}, {n.lower() for g in held for n in g.names if n}


def missing_entities(analysis: Analysis, evidence: list[Evidence],
                     sources: Mapping[str, Source] | None = None) -> list[str]:
    """Entities the question names that no evidence record mentions (under the words the
    question used, or a name a dictionary gave them: an alias's official symbol).

    A resolved gene (a gene, a gene list's member: Gene ID and official symbol) is held
    when a record of a source that declares its genes (`Source.genes`) holds that Gene ID
    or symbol: a set is its members, in any order, whatever case or alias the question
    wrote. Otherwise, and for every other kind, the record's words are searched.

    Every confidently recognised entity must be mentioned. Low-confidence ones (a bare
    token that merely looks like a symbol) are noise next to a confident one ("what's the
    ENSG for TP53"); alone, at least one of them must be mentioned ("function of ZQX99")."""
    hay = _haystack(evidence)
    held_ids, held_names = _held_genes(evidence, sources)
    titles: list[set[str]] | None = None

    def held(gene_id: str, symbols: tuple[str, ...]) -> bool:
        return bool(gene_id and gene_id in held_ids) or any(s.lower() in held_names for s in symbols if s)

    def mentioned(e) -> bool:
        nonlocal titles
        names = [n for n in (e.text, e.span, *e.canonical) if n and re.search(r"[A-Za-z0-9]", n)]
        names += [_VERSION.sub("", n) for n in names if _VERSION.search(n)]  # ENSG...251.5 ~ ENSG...251
        names += [n[:-1] for n in names if _PLURAL_INITIALISM.fullmatch(n)]  # "SSRIs": an abstract's "SSRI"
        if e.kind == "gene_list" and e.members:  # a set: each of its genes, in any order
            return all(held(m.ident, (m.name,)) or _variants(m.name).search(hay) for m in e.members)
        if e.kind in GENE_IDS and held(e.ident, e.canonical):
            return True
        if not names or any(_variants(n).search(hay) for n in names):
            return True
        if e.kind in ("disease", "phenotype"):
            # catalogues invert names ("Renal tubular acidosis, distal"): every word of the
            # name in one record's title counts as a mention
            if titles is None:
                titles = [set(disease_key(ev.title or "").split()) for ev in evidence]
            return any(set(disease_key(n).split()) <= t for n in names for t in titles if t)
        return False

    named = [e for e in analysis.entities if e.kind not in _NOT_REQUIRED]
    if analysis.intent is not None and analysis.intent.hops[0].takes:
        # what the answer is about is what its first lookup takes; other names are context
        # ("I'm studying cystic fibrosis; which chromosome is CFTR on?" is about CFTR)
        subject = [e for e in named if e.kind in analysis.intent.hops[0].takes]
        named = subject or named
    confident = [e for e in named if e.confident]
    if confident:
        missing = [e for e in confident if not mentioned(e)]
        if any(e.kind == "gene" for e in missing):  # a list's genes are named one by one: not again as the list
            missing = [e for e in missing if e.kind != "gene_list"]
        return list(dict.fromkeys(e.text for e in missing))
    if named and not any(mentioned(e) for e in named):
        return list(dict.fromkeys(e.text for e in named))
    return []


def quotable_evidence(evidence: list[Evidence], sources: Mapping[str, Source]) -> list[Evidence]:
    """The evidence whose sentences are ranked and quoted: the free-text sources' records
    (literature, web) when there are any, never a database record's lines beside them. A
    record answers through its fields; its lines restate names, so they score high against
    any question naming the same gene ("Is TP53 a tumor suppressor?" met "TP53; name: tumor
    protein p53" at 0.76) and would answer it with the question's own words. Records alone
    stay quotable for a question whose field is understood (a live gene record's summary)."""
    prose = [ev for ev in evidence if not _record_source(sources.get(ev.source))]
    return prose or evidence


def _record_source(source: Source | None) -> bool:
    """A source of database records (it declares answer fields and takes no free text)."""
    return source is not None and bool(getattr(source, "answers", ())) and "free_text" not in getattr(
        source, "accepts", ())


def unsure_names(analysis: Analysis, kinds: tuple[str, ...] | None = None, eponyms_only: bool = False) -> str | None:
    """What to ask back when a name the dictionary reads several ways, none of them sure,
    stands where the question needs one ("symptoms of cushing": Cushing syndrome or Cushing
    disease), and no sure name of that kind is there instead: None otherwise. `kinds`: only
    names of these kinds (default: any); `eponyms_only`: only eponyms (a word read as a
    disease name only because "<word> syndrome/disease" exists, never a word of free text)."""
    sure = {e.kind for e in analysis.entities if e.confident}
    unsure = [e for e in analysis.entities if not e.confident and e.ambiguous and e.kind not in sure
              and (kinds is None or e.kind in kinds) and (not eponyms_only or e.how == "eponym")]
    if not unsure:
        return None
    return "; ".join(f"'{e.span or e.text}' may name several {e.kind}s ({', '.join(e.canonical)}): say which one"
                     for e in unsure)


def check_evidence(
    analysis: Analysis,
    evidence: list[Evidence],
    sources: Mapping[str, Source],
    ranker: SentenceRanker | None,
    min_similarity: float,
    reading: StructuredAnswer | None,
    lexicon: Lexicon | None = None,
) -> EvidenceCheck:
    """Whether `evidence` can support an answer to the analysed question, and why not.
    `reading`: what the evidence answers (`LoopState.reading`, read once per retrieval).
    A literature answer is sufficient only when a cited sentence mentions the question's
    entities and carries the answer (`literature_reading.read_literature`; `lexicon` names
    the genes a list question asks for)."""
    if unknown := still_unknown(analysis.unknown, evidence, sources):
        # a name no dictionary holds and no source knew: say so, with the close symbols
        return EvidenceCheck(False, refusal(unknown), figures={"unknown_names": list(unknown)})
    if not evidence:
        # a name the dictionary reads several ways, none of them sure ("cushing": Cushing
        # syndrome or Cushing disease) routed nothing: say so, so the asker can pick one
        unsure = unsure_names(analysis)
        if unsure:
            return EvidenceCheck(False, unsure)
        return EvidenceCheck(False, "no source returned evidence")
    missing = missing_entities(analysis, evidence, sources)
    if missing:  # even a record field is no answer when the record is about something else
        return EvidenceCheck(
            False, f"no evidence mentions {', '.join(missing)}", figures={"missing_entities": missing}
        )
    if reading is not None:
        return EvidenceCheck(True, "", structured=True)
    if analysis.options:
        return EvidenceCheck(False, "no record names one of the options for what the question asks")
    if analysis.intent is None and all(_record_source(sources.get(ev.source)) for ev in evidence):
        # database records answer through their fields: a line quoted from a gene record is
        # no answer to what none of its fields holds ("How many exons does TP53 have?")
        return EvidenceCheck(False, "the records found hold no field the question asks for")
    if ranker is None or min_similarity <= 0:
        return EvidenceCheck(True, "")
    quotable = quotable_evidence(evidence, sources)
    ranked = ranker.rank(analysis.core, quotable)
    titles = title_sentences(quotable, analysis.core, ranker) if analysis.intent is None else []
    # a title is a sentence of its record, often the finding itself ("Cluster failure: Why fMRI
    # inferences for spatial extent have inflated false-positive rates")
    best = max([s.similarity for s in ranked[:1] + titles], default=0.0)
    figures = {"best_similarity": best, "min_similarity": min_similarity, "sentences": len(ranked)}
    if best < min_similarity:
        return EvidenceCheck(
            False,
            f"the evidence is off topic: its closest sentence has similarity {best:.2f} to the question, "
            f"below {min_similarity:.2f}",
            ranked=ranked,
            figures=figures,
        )
    if analysis.intent is not None:
        return EvidenceCheck(True, "", ranked=ranked, figures=figures)
    read = read_literature(analysis, ranked, titles=titles, lexicon=lexicon, min_similarity=min_similarity)
    figures["literature"] = read.kind
    return EvidenceCheck(read.sufficient, read.reason, ranked=ranked, figures=figures, literature=read)
