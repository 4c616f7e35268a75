"""Read the literature, then state: the answer to a literature question, read from the
evidence sentences, first line first.

- yes/no ("Does aspirin lower cancer risk?", "Tell me whether ..."): "Yes" or "No" only
  when a cited sentence states it: it mentions the question's entities and its topic, is no
  guess (hedges: "may", "remains unclear", "whether") and, when the question asks for a
  direction ("increase", "prevent"), says one. A negation ("did not", "no association") or
  the opposite direction ("reduced" for "does X increase") makes it a No. A sentence under a
  background, aims or methods label states nothing. When no one sentence names the whole
  claim, the findings of a structured abstract about it decide (`findings`, `_from_findings`:
  a question put as the study's title, read against its results). Where findings, or
  equally close sentences, point both ways, the verdict model (`verdict`) reading the
  record's findings chooses one of the answers they state. Otherwise "The evidence does not
  say" (or "mixed"; "Maybe." where the question offers it), and the answer is not sufficient.
- list/factoid ("Which drugs ...", "what genes ..."): the named things of the asked type in
  the sentences about the question's entities, most supported first: genes through the gene
  dictionary (official symbols), chemicals and drugs (MeSH tree D) and diseases (tree C)
  through the bundled MeSH vocabulary, never the question's own names.
- how/why and the rest: the sentence that links the question's entities (and its topic).

Then the supporting sentences, each verbatim with `[pubmed:PMID]` and the year. A sentence
that only announces a study's aim or method ("To assess the added value of ...", "We
evaluated the efficacy of ...") never leads. A title counts as a sentence of its record: it
is often the finding itself.

Sufficient means answered: a cited sentence mentions the question's entities (or their
synonyms: a gene's symbol, a disease's MeSH entry terms) and carries the answer. The word
lists are data (resources/reading_words.json).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from biorag.contracts.models import Evidence
from biorag.loop.extractive import ScoredSentence, SentenceRanker
from biorag.loop.findings import (
    concludes,
    null_finding,
    outside_brackets,
    outside_findings,
    record_findings,
    reports_finding,
    states_effect,
    without_asides,
    without_harms,
)
from biorag.loop.how_reading import measure_said, mechanism_sentence, says_how, states_measure
from biorag.loop.literature_question import (
    LiteratureQuestion,
    coverage,
    holds_specifics,
    holds_whole_topic,
    mentions,
    names_beyond,
    names_entities,
    read_question,
    record_about,
)
from biorag.loop.named_things import named_things
from biorag.loop.sentence_cues import (
    directions,
    hedged,
    negated,
    only_announces,
    says_protective_against_cause,
    states_change,
)
from biorag.loop.verdict import load_model as load_verdict_model
from biorag.understanding.entity_patterns import offers_maybe
from biorag.understanding.intent import normalise
from biorag.understanding.name_extraction import named_genes

if TYPE_CHECKING:
    from biorag.contracts.sources import Lexicon
    from biorag.understanding.question_model import Analysis

@dataclass
class _Read:
    sentence: ScoredSentence
    about: bool  # mentions every entity and enough of the topic
    announces: bool


@dataclass
class LiteratureReading:
    """What the literature says to the question: `first_line` states the answer, `support`
    the sentences it rests on (verbatim, cited, with the year), `sufficient` whether a cited
    sentence mentions the question's entities and carries the answer (`reason` if not)."""

    kind: str
    first_line: str
    support: list[ScoredSentence] = field(default_factory=list)
    sufficient: bool = False
    reason: str = ""
    named: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        lines = [self.first_line] + [cited_line(s) for s in self.support
                                     if not (self.kind == "how" and cited_line(s) == self.first_line)]
        return "\n".join(lines)

    @property
    def used(self) -> list[Evidence]:
        return [s.evidence for s in self.support]


def cited_line(s: ScoredSentence) -> str:
    """A sentence as the answer quotes it: verbatim, its record id, the year."""
    year = s.evidence.year
    return f"{s.text} [{s.evidence.cited}]" + (f" ({year})" if year else "")


def title_sentences(evidence: Sequence[Evidence], question: str, ranker: SentenceRanker | None) -> list[ScoredSentence]:
    """The records' titles as sentences, scored against the question like the others."""
    titled = [ev for ev in evidence if ev.title and len(ev.title.split()) >= 5]
    if not titled:
        return []
    if ranker is None:
        return [ScoredSentence(ev.title.strip(), ev, 0.0) for ev in titled]
    vecs = ranker.embedder.embed_documents([ev.title.strip() for ev in titled])
    q = ranker.embedder.embed_query(question)
    return [ScoredSentence(ev.title.strip(), ev, round(float(s), 4)) for ev, s in zip(titled, (vecs @ q).tolist(), strict=True)]


def read_literature(analysis: Analysis, ranked: list[ScoredSentence], *, titles: Sequence[ScoredSentence] = (),
                    lexicon: Lexicon | None = None, min_similarity: float = 0.0, limit: int = 3) -> LiteratureReading:
    """The answer to a literature question from `ranked` (evidence sentences, most similar
    first) and the records' `titles`: see the module's description."""
    q = read_question(analysis)
    pool = sorted([*ranked, *titles], key=lambda s: -s.similarity)
    # asked what or how, a record on topic (a sentence or its title) is read through: a finding
    # that holds every topic word but leaves the title's subject unsaid is less like the question
    on_topic = {s.evidence.key for s in pool if s.similarity >= min_similarity} if q.kind == "how" else set()
    pool = [s for s in pool if s.similarity >= min_similarity or s in titles
            or (s.evidence.key in on_topic and holds_whole_topic(s.text, q, s.evidence))]
    reads = [_Read(s, mentions(s.text, q, s.evidence), only_announces(s.text)) for s in pool]
    about = [r for r in reads if r.about and not r.announces]
    if q.kind == "yes_no":
        # a record's findings are read whatever their similarity, once one of its sentences puts
        # it on topic (results share few words with a question put as the study's title)
        on_topic = {r.sentence.evidence.key for r in reads}
        findings = [_Read(s, False, only_announces(s.text)) for s in ranked if s.evidence.key in on_topic]
        read = _yes_no(q, about, limit, findings)
        if not read.sufficient and read.first_line.startswith("The evidence") and offers_maybe(analysis.question):
            # offered "maybe" ("Answer yes, no or maybe."), evidence that decides nothing is that answer
            read = replace(read, first_line="Maybe.", reason=f"maybe \u2014 {read.reason}")
        return read
    if q.kind == "list":
        # a sentence about the question's entities may name the answer in other words than the
        # question's; a question naming no entity a dictionary knows ("the target of necrostatin-1")
        # has only its topic words. A study's variants are given once, in a sentence that names the
        # gene and leaves the disease to its title ("variants at CLU and CR1 associated with AD")
        in_title = q.asked_type == "variant"
        tied = (lambda r: names_entities(r.sentence, q, in_title)) if q.entities or in_title else (lambda r: r.about)
        if lexicon is not None:
            # the genes the question itself names, however written ("amyloid-beta": APP), are
            # not its answer
            own = {syms[0].lower() for _w, syms in named_genes(analysis.core, lexicon) if syms}
            q = replace(q, own=q.own | own)
        # asked for the most common one, a sentence that names things without saying how common
        # names no answer (`how_reading`)
        # Asked for a gene's variants, a sentence holds one of the question's topic words at
        # least: a gene's papers name its variants in any context (EGFR's L858R in lung cancer
        # cells says nothing of resistance to osimertinib). Other named things are asked with a
        # verb the sentence may not repeat ("Which drugs were tested ...")
        return _listed(q, [r for r in reads if not r.announces and tied(r) and states_measure(r.sentence.text, q.measure, q.entities)
                           and not (in_title and q.topic and coverage(r.sentence.text, q, r.sentence.evidence) == 0)],
                       lexicon, limit)
    if not about:
        return LiteratureReading("how", "", reason=_no_sentence(q))
    # a sentence that states leads one that guesses or says it is unknown; asked for an
    # effect, one that says which way it went leads, not the title that names the study
    # ("Effect of ATP on dominant frequency in atrial fibrillation"); asked for a measure (how
    # common, how they differ), one that states it (`how_reading`); then, but for a mechanism
    # (`mechanism_sentence` reads the closest one's record), the one holding more of the question
    about = sorted(about, key=lambda r: (not states_measure(r.sentence.text, q.measure, q.entities), hedged(r.sentence.text),
                                         q.effect and not states_change(r.sentence.text),
                                         0 if q.mechanism else -coverage(r.sentence.text, q, r.sentence.evidence)))
    lead = about[0].sentence
    support = [r.sentence for r in about[:limit]]
    if q.mechanism and (how := mechanism_sentence(lead, ranked, support, q.own)) is not None:
        support.insert(1, how)  # quoted beside the lead whatever its similarity: it is the lead's record
    elif q.mechanism and not q.effect and not any(says_how(s.text) for s in support):
        # asked how or why, a sentence that only names the question's entities together ("Early-onset
        # Parkinson's disease caused by mutations in PINK1" for how PINK1 activates Parkin) says not how
        return LiteratureReading("how", cited_line(lead), support[:limit],
                                 reason=_no_sentence(q, "says how or by what mechanism"))
    if not states_measure(lead.text, q.measure, q.entities):
        return LiteratureReading("how", cited_line(lead), support[:limit], reason=_no_sentence(q, measure_said(q.measure)))
    return LiteratureReading("how", cited_line(lead), support[:limit], True)


def _no_sentence(q: LiteratureQuestion, lacking: str = "speaks to what the question asks") -> str:
    # a name read as two kinds ("alzheimer disease" as a feature and as a disease) is named
    # once, in the spelling with capitals where one has them
    spellings: dict[str, list[str]] = {}
    for name, _ in q.entities:
        spellings.setdefault(name.lower(), []).append(name)
    names = ", ".join(max(group, key=lambda n: sum(c.isupper() for c in n)) for group in spellings.values())
    about = f" mentions {names} and" if names else ""
    return f"no cited sentence{about} {lacking}"


def _yes_no(q: LiteratureQuestion, about: list[_Read], limit: int, findings: list[_Read]) -> LiteratureReading:
    stating: list[tuple[str, ScoredSentence]] = []
    # the sentences closest to the whole question first: a side finding of the same
    # abstract ("did not alter tau phosphorylation") does not outvote the one asked about
    about = sorted(about, key=lambda r: -coverage(r.sentence.text, q, r.sentence.evidence))
    for r in about:
        text = r.sentence.text
        if hedged(text) or outside_findings(r.sentence.evidence, text) or not states_measure(text, q.measure):
            continue  # asked whether two things differ, a sentence that compares nothing states nothing
        said = directions(normalise(text))
        if q.direction and not said:
            continue  # asked whether it goes up or down: a sentence that says neither states nothing
        no = negated(_spared(text, q), q.negations) or bool(q.direction and said and not (said & q.direction))
        # asked whether two things are alike, a difference denies and a null finding confirms
        if (verdict := finding_polarity(text, q) if q.sameness else "No" if no else "Yes") is not None:
            stating.append((verdict, r.sentence))
    if not stating and (found := _from_findings(q, findings, limit)) is not None:
        return found
    if not stating:
        return LiteratureReading("yes_no", "The evidence does not say.", [r.sentence for r in about[:limit]], False,
                                 "the evidence does not say: " + _no_sentence(q).replace("speaks to", "states"))
    best = coverage(stating[0][1].text, q, stating[0][1].evidence)
    votes = {v for v, s in stating if coverage(s.text, q, s.evidence) == best}
    if len(votes) > 1 and (chosen := _chosen_by_verdict(q, stating[0][1].evidence, votes)) is not None:
        votes = {chosen}
    if len(votes) > 1:
        yes = sum(1 for v, _ in stating if v == "Yes")
        return LiteratureReading("yes_no", f"The evidence is mixed: {yes} cited sentence(s) say yes, "
                                 f"{len(stating) - yes} say no.", [s for _, s in stating[:limit]], False,
                                 "the cited sentences disagree")
    said = votes.pop()
    return LiteratureReading("yes_no", f"{said}.", [s for v, s in stating if v == said][:limit], True)


def _chosen_by_verdict(q: LiteratureQuestion, record: Evidence, said: set[str]) -> str | None:
    """Of the answers that equally close sentences give (`said`: "Yes", "No"), the one the
    verdict model reads in the findings of the closest sentence's structured record; None
    when the record has no labelled findings or the model reads another answer."""
    findings = record_findings(record)
    label = load_verdict_model().read(q.asked, findings).capitalize() if findings else None
    return label if label in said else None


def _from_findings(q: LiteratureQuestion, reads: list[_Read], limit: int) -> LiteratureReading | None:
    """Yes or No from the findings of the records about the claim (`findings`), when no one
    sentence names all of the question. The finding that states something and holds most of
    the question's topic words (the closest in meaning among equals) chooses the record;
    where the record's conclusions state something, their closest sentence decides; else the
    verdict model (`verdict`) reads that record's findings as a whole, and its label is
    stated when findings of the record state it too (they are quoted), else "the evidence
    does not say". None when no finding states anything. (Measured on PubMedQA's labelled
    questions outside its test split: the model choosing among the findings read the
    polarity better than the one deciding finding, which read it better than a vote of the
    closest two, three or five.)"""
    about: dict[str, bool] = {}
    votes: list[tuple[str, ScoredSentence, int]] = []
    for r in reads:
        s = r.sentence
        ev = s.evidence
        if ev.key not in about:
            about[ev.key] = record_about(ev, q)
        if s.text == ev.title.strip() or not about[ev.key] or r.announces or hedged(s.text) or not reports_finding(ev, s.text) \
                or not holds_specifics(s.text, q, ev):
            continue
        if (said := finding_polarity(s.text, q)) is not None:
            votes.append((said, s, coverage(s.text, q, ev)))
    if not votes:
        return None
    votes.sort(key=lambda v: (-v[2], -v[1].similarity))
    record = votes[0][1].evidence
    if concluded := [v for v in votes if v[1].evidence.key == record.key and concludes(record, v[1].text)]:
        # the authors' conclusions read their results for the reader: their closest statement
        # decides, where the verdict model (trained on PubMedQA's contexts, which hold no
        # conclusions) would weigh the results again ("failure rates" beside "complication rates")
        said = concluded[0][0]
        return LiteratureReading("yes_no", f"{said}.", [s for v, s, _w in concluded if v == said][:limit], True)
    verdict = load_verdict_model().read(q.asked, record_findings(record))
    said = verdict.capitalize()
    agreeing = [s for v, s, _w in votes if v == said and s.evidence.key == record.key]
    if not agreeing:
        # "maybe", or a way the findings point that no one of them states: not an answer
        return LiteratureReading("yes_no", "The evidence does not say.", [s for _v, s, _w in votes][:limit], False,
                                 f"the evidence does not say: the findings of {record.cited} read as "
                                 f"{verdict!r}, and no cited finding states that")
    return LiteratureReading("yes_no", f"{said}.", agreeing[:limit], True)


def finding_polarity(text: str, q: LiteratureQuestion) -> str | None:
    """What a finding says to the claim: "No" for a null finding, a negation or the other
    direction than asked; "Yes" for a finding stated with a mark of one (a difference, an
    association, a direction, significance); a claim of sameness the other way round; None
    for a sentence that only describes ("The mean time per procedure was 100 minutes")."""
    text, harm_free = without_harms(text, q.asked)
    norm = normalise(text)
    if null_finding(text):
        return "Yes" if q.sameness else "No"
    if negated(_spared(outside_brackets(text), q), q.negations):
        return "No"
    said = directions(norm)
    if q.direction and said and not (said & q.direction):
        return "No"
    if harm_free or said or states_effect(text):
        return "No" if q.sameness and not harm_free else "Yes"  # a difference is no sameness
    return None


def _spared(text: str, q: LiteratureQuestion) -> str:
    return without_asides(text, lambda phrase, rest: names_beyond(phrase, rest, q))


def _listed(q: LiteratureQuestion, reads: list[_Read], lexicon: Lexicon | None, limit: int) -> LiteratureReading:
    support: dict[str, list[ScoredSentence]] = {}
    for r in (r for r in reads if not says_protective_against_cause(q.asked, r.sentence.text)):
        for name in named_things(r.sentence.text, q, lexicon):
            support.setdefault(name, []).append(r.sentence)
    if not support:
        kind = {"gene": "genes", "chemical": "chemicals or drugs", "disease": "diseases",
                "variant": "variants (rsIDs or protein changes)"}[q.asked_type or "gene"]
        return LiteratureReading("list", "", reason=f"no cited sentence about the question names {kind}")
    # a thing named in a sentence that holds more of the question's topic words answers it
    # better ("the propeptide of BACE is cleaved by furin" over "BACE and BACE2 form a family")
    topical = {n: max(coverage(s.text, q, s.evidence) for s in support[n]) for n in support}
    ranked = sorted(support, key=lambda n: (-topical[n], -len({s.evidence.key for s in support[n]}),
                                            -sum(s.similarity for s in support[n]), n))
    used: list[ScoredSentence] = []
    for name in ranked:
        for s in support[name]:
            if s not in used and len(used) < limit:
                used.append(s)
    return LiteratureReading("list", ", ".join(ranked[:10]), used, True, named=ranked)
