"""Planners decide steps 1, 2 and 4 of the loop: which retriever, what query, and whether
the evidence suffices. Three implementations behind one interface (`planner` setting):

- `llm`: the paper's set-up, the model reads the tool manuals and answers in JSON under
  schema-constrained decoding.
- `rules`: the recognised answer field's hops decide (biorag.understanding), then any
  source that accepts a recognised entity, then the free-text sources in settings order;
  deterministic, a natural ablation baseline.
- `hybrid`: rules when they recognise an answer field or an entity with confidence, the
  LLM otherwise.

Whichever decides, a source is only ever offered what it accepts (its declared entity
kinds, biorag.sources): the LLM chooses among the sources whose kinds occur in the
question, free-text sources always among them, so a gene question never reaches a
sequence search and a free-text question only reaches literature and web search.

A planner raises `PlanExhausted` when it has nothing left to try and lets
`StructuredOutputError` through when the model's output does not validate: the agent
records either in the trace; nothing is silently defaulted.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, create_model

from biorag import prompts
from biorag.grounding import StructuredAnswer, hop_readings, inputs_of, structured_answer
from biorag.links import gene_check_queries, gene_disease_link
from biorag.llm.base import LLM, ChatMessage
from biorag.models import Evidence, SearchFilters
from biorag.record_questions import asks_record_of_identifier
from biorag.search_request import SearchRequest, entities_of, parse_request
from biorag.sources import Lexicon, Reading, accepting
from biorag.sufficiency import unsure_names
from biorag.understanding import Analysis, Entity
from biorag.unknown_names import refusal, still_unknown

if TYPE_CHECKING:
    from biorag.retriever import Retriever


class PlanExhausted(Exception):
    """No retriever left that could add anything."""


@dataclass
class Attempt:
    round: int
    retriever: str
    query: str
    hits: int
    error: str | None = None


@dataclass
class LoopState:
    """What the loop knows so far; planners read it, the agent writes it."""

    question: str
    analysis: Analysis
    retrievers: dict[str, Retriever]
    evidence: list[Evidence] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: query a rules decision planned together with the retriever choice
    planned_query: str | None = None
    planned_by: str | None = None
    #: the entity-linking dictionaries the question was read with (a model-written query is
    #: read with them too: `search_request`)
    lexicon: Lexicon | None = None
    #: the reading of the evidence (`grounding.structured_answer`) and each hop's reading
    #: (`grounding.hop_readings`), kept from `read_evidence` with the (evidence, attempts)
    #: counts they were read at; no evidence reads as nothing
    _reading: StructuredAnswer | None = None
    _hops: list[Reading | None] = field(default_factory=list)
    _read_at: tuple[int, int] | None = (0, 0)

    def tried(self, retriever: str, query: str) -> bool:
        q = query.strip().lower()
        return any(a.retriever == retriever and a.query.strip().lower() == q for a in self.attempts)

    def read_evidence(self) -> StructuredAnswer | None:
        """Read what the evidence answers (each hop's field, the asked field, the gene–disease
        link line) and keep it: the agent calls this once after each retrieval."""
        self._hops = hop_readings(self.analysis, self.evidence, self.retrievers)
        self._reading = structured_answer(self.analysis, self.evidence, self.retrievers, self.tried, self._hops)
        self._read_at = (len(self.evidence), len(self.attempts))
        return self._reading

    def _fresh(self) -> None:
        """Read again when the evidence or the attempts changed since the last reading (a
        state a test or a caller outside the loop filled by hand)."""
        if self._read_at != (len(self.evidence), len(self.attempts)):
            self.read_evidence()

    @property
    def reading(self) -> StructuredAnswer | None:
        """The kept reading, which the planner, the sufficiency check and the answer step share."""
        self._fresh()
        return self._reading

    def hop_reading(self, hop: int) -> Reading | None:
        """The kept reading of hop `hop` (`grounding.hop_readings`), which routing shares."""
        self._fresh()
        return self._hops[hop] if hop < len(self._hops) else None

    def hop_inputs(self, hop: int) -> list[str]:
        """The queries hop `hop` needs (`grounding.hop_inputs`), from the kept readings."""
        return inputs_of(self.analysis, hop, self.hop_reading(hop - 1) if hop > 0 else None)


@dataclass
class Selection:
    retriever: str
    reason: str
    by: Literal["rules", "llm"]
    raw: list[str] = field(default_factory=list)


@dataclass
class Rewrite:
    query: str
    mesh_terms: list[str]
    by: Literal["rules", "llm", "none"]
    raw: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    sufficient: bool
    missing: str
    by: Literal["rules", "llm"]
    raw: list[str] = field(default_factory=list)


class Planner(ABC):
    name: str

    @abstractmethod
    def select(self, state: LoopState) -> Selection: ...

    @abstractmethod
    def rewrite(self, state: LoopState, retriever: str, with_mesh: bool) -> Rewrite: ...

    @abstractmethod
    def evaluate(self, state: LoopState) -> Verdict: ...


# ---- rules -----------------------------------------------------------------------
#: at most this many values of one hop are followed up (e.g. the genes of a disease)
MAX_FOLLOW_UPS = 5


def admissible(state: LoopState) -> list[str]:
    """Enabled sources that accept an entity kind the question names, or free text."""
    return accepting(state.retrievers, state.analysis.kinds(confident_only=False) | {"free_text"})


def ambiguity(state: LoopState) -> str | None:
    """Why the question cannot be answered as asked: a name that fits several records, or
    the name the asked field needs is one the dictionary reads several ways (asked back at
    once, instead of searching the literature for it)."""
    a = state.analysis
    # an eponym the dictionary reads as several diseases is asked back with or without an
    # asked field; any other unsure name only where the field needs one of its kind
    unsure = unsure_names(a, a.intent.hops[0].takes if a.intent else None, eponyms_only=a.intent is None)
    if unsure:
        return unsure
    if a.intent is None:
        return None
    found = state.reading
    return found.text if found is not None and found.ambiguous else None


def pending_checks(state: LoopState) -> list[tuple[str, str]]:
    """(source, query) of the intent's checks (biorag.understanding.context_checks) not
    asked yet, enabled sources only: the genes of the disease a gene is asked about in;
    once those are asked and do not link the two, the gene's own diseases (asked by its
    symbol), so the answer can say what the gene is linked to (biorag.links)."""
    a = state.analysis
    if a.intent is None:
        return []
    pending = [(h.source, q) for h in a.intent.checks if h.takes != ("gene",) and h.source in state.retrievers
               for q in a.texts(h.takes)[:1] if not state.tried(h.source, q)]
    if pending or not (gene_checks := gene_check_queries(a)):
        return pending
    link = gene_disease_link(a, state.evidence, state.retrievers)
    if link is None or link.linked:  # nothing to say about the disease, or the records link them
        return []
    return [(h.source, q) for h, q in gene_checks.items() if h.source in state.retrievers and not state.tried(h.source, q)]


def search_request(state: LoopState, retriever: str, query: str, k: int, mesh: list[str] | None,
                   mesh_mode: str) -> SearchRequest:
    """The typed request of this round, built from the question's analysis and the plan
    (never by reading the query again): the MeSH filter; the field the hop run on this
    source with this query asks (`asked_field`); and, when the query is an entity of the
    question that the source accepts, that entity typed (a gene list's and a symptom list's
    resolved members, a gene, a disease, a variant), so the source re-splits no words. A
    query the model wrote, which no hop plans, is read by the one parser (`parse_request`)."""
    accepts = getattr(state.retrievers.get(retriever), "accepts", ())
    entity = next((e for e in state.analysis.entities if e.kind in accepts and e.text == query), None)
    filters = SearchFilters(mesh=list(mesh), mesh_mode=mesh_mode) if mesh else SearchFilters()  # no terms: mode "off" too
    asks = asked_field(state, retriever, query)
    if entity is None and asks is None and state.planned_by == "llm":
        return parse_request(query, k, source=retriever, sources=state.retrievers, lexicon=state.lexicon, filters=filters)
    return SearchRequest(text=query, k=k, filters=filters, asks=asks, entities=entities_of([entity] if entity else []))


def asked_field(state: LoopState, retriever: str, query: str) -> str | None:
    """The answer field of the planned hop (or context check) that runs `query` on
    `retriever`; None when no hop does (a query the LLM planner chose freely)."""
    a = state.analysis
    if a.intent is None:
        return None
    q = query.strip().lower()
    for i, hop in enumerate(a.intent.hops):
        if hop.source == retriever and q in (c.strip().lower() for c in state.hop_inputs(i)):
            return hop.field.name
    for hop in a.intent.checks:
        if hop.source == retriever and q in (c.strip().lower() for c in a.texts(hop.takes)):
            return hop.field.name
    return next((h.field.name for h, c in gene_check_queries(a).items()
                 if h.source == retriever and c.strip().lower() == q), None)


def unknown_name_step(state: LoopState) -> Selection | None:
    """A name no dictionary holds (`Analysis.unknown`) is asked once of each enabled source
    that takes genes (a layered gene source asks its store, then E-utilities); if none knows
    it, the loop ends at once (`PlanExhausted` with the refusal) whatever the planner. None
    when there is no such name, or a source knew it (the planner goes on as usual)."""
    unknown = state.analysis.unknown
    if not unknown:
        return None
    for name in unknown:
        for source in accepting(state.retrievers, ["gene"]):
            if not state.tried(source, name):
                state.planned_query, state.planned_by = name, "rules"
                return Selection(source, f"'{name}' is in no dictionary: ask {source} once", "rules")
    if left := still_unknown(unknown, state.evidence, state.retrievers):
        raise PlanExhausted(refusal(left))
    return None


class RulesPlanner(Planner):
    name = "rules"

    def route(self, state: LoopState) -> tuple[str, str, str] | None:
        """(retriever, query, reason) when the rules know what to do, else None."""
        a = state.analysis
        enabled = state.retrievers
        if a.free_text:
            return None  # a relation between the named genes: the literature, not their records
        if a.intent:
            for i, hop in enumerate(a.intent.hops):
                if hop.source not in enabled:
                    break  # the chain needs a disabled source: fall back to generic routing
                inputs = state.hop_inputs(i)[:MAX_FOLLOW_UPS]
                pending = [c for c in inputs if not state.tried(hop.source, c)]
                if pending:
                    return hop.source, pending[0], f"{a.intent.description}: ask {hop.source}"
                if state.hop_reading(i) is None:
                    break  # this hop gave nothing: the chain cannot go further
            else:
                if check := pending_checks(state)[:1]:
                    source, query = check[0]
                    return source, query, f"whether the records link the gene to {query}: ask {source}"
        if asks_record_of_identifier(a):
            return None  # only the sources of the asked field hold this record
        for ent in a.entities:
            if not ent.confident:
                continue
            for source in accepting(enabled, [ent.kind]):
                if not state.tried(source, ent.text):
                    return source, ent.text, f"recognised {ent.kind} '{_short(ent)}'"
        return None

    def fallback(self, state: LoopState) -> tuple[str, str, str] | None:
        if asks_record_of_identifier(state.analysis):
            return None  # the record's sources were asked: no paper holds it
        for source in accepting(state.retrievers, ["free_text"]):
            if not state.tried(source, state.analysis.core):
                return source, state.analysis.core, "no specific entity: search the literature/web"
        return None

    def select(self, state: LoopState) -> Selection:
        why = ambiguity(state)
        if why:
            raise PlanExhausted(why)
        if first := unknown_name_step(state):
            return first
        choice = self.route(state) or self.fallback(state)
        if choice is None:
            raise PlanExhausted("every applicable source has been tried")
        state.planned_query, state.planned_by = choice[1], "rules"
        return Selection(choice[0], choice[2], "rules")

    def rewrite(self, state: LoopState, retriever: str, with_mesh: bool) -> Rewrite:
        query = state.planned_query if state.planned_by == "rules" and state.planned_query else state.analysis.core
        return Rewrite(query, [], "rules")

    def evaluate(self, state: LoopState) -> Verdict:
        """YES once a record holds the asked-for field (for every value a chain follows
        up); for open questions, once anything was found (the rules cannot judge relevance:
        that is the LLM's job in hybrid)."""
        a = state.analysis
        if a.intent:
            found = state.reading
            if found is not None and found.ambiguous:
                return Verdict(False, found.text, "rules")
            if found is not None:
                last = len(a.intent.hops) - 1
                inputs = state.hop_inputs(last)[:MAX_FOLLOW_UPS]
                pending = [c for c in inputs if not state.tried(a.intent.hops[last].source, c)]
                if not pending or a.intent.hops[last].source not in state.retrievers:
                    if checks := pending_checks(state):
                        return Verdict(False, f"still to check: {', '.join(f'{s} ({q})' for s, q in checks)}", "rules")
                    return Verdict(True, "", "rules")
                return Verdict(False, f"still to look up: {', '.join(pending)}", "rules")
            return Verdict(False, f"no record yet gives the {a.intent.description}", "rules")
        if state.evidence:
            return Verdict(True, "", "rules")
        return Verdict(False, "no evidence yet", "rules")


def _short(e: Entity) -> str:
    return e.text if len(e.text) <= 24 else e.text[:21] + "..."


# ---- LLM ---------------------------------------------------------------------------
class _RewriteOut(BaseModel):
    query: str = Field(..., min_length=1, max_length=300)
    mesh_terms: list[str] = Field(default_factory=list, max_length=3)


class _VerdictOut(BaseModel):
    verdict: Literal["YES", "NO"]
    missing: str = Field("", max_length=200)


def evidence_block(evidence: list[Evidence], max_chars: int = 6000, per_item: int = 700) -> str:
    """Evidence rendered for prompts, newest last, cut to fit a small context window."""
    parts, total = [], 0
    for ev in evidence:
        text = ev.render(per_item)
        if total + len(text) > max_chars:
            break
        parts.append(text)
        total += len(text)
    return "\n\n".join(parts) if parts else "(none)"


class LLMPlanner(Planner):
    name = "llm"

    def __init__(self, llm: LLM, evidence_chars: int = 6000):
        self.llm = llm
        self.evidence_chars = evidence_chars

    def _messages(self, user: str) -> list[ChatMessage]:
        return [ChatMessage(role="system", content=prompts.SYSTEM), ChatMessage(role="user", content=user)]

    def select(self, state: LoopState) -> Selection:
        if first := unknown_name_step(state):
            return first
        names = tuple(admissible(state))
        if not names:
            raise PlanExhausted("no enabled source accepts what the question names")
        choice_model = create_model(
            "RetrieverChoice",
            retriever=(Literal[names], ...),  # type: ignore[valid-type]
            reason=(str, Field("", max_length=200)),
        )
        manuals = {n: state.retrievers[n].manual for n in names}
        out, raw = self.llm.structured(self._messages(prompts.select_prompt(state.question, manuals, state.notes)), choice_model, max_tokens=96)
        state.planned_query, state.planned_by = None, "llm"
        return Selection(out.retriever, out.reason, "llm", raw)

    def rewrite(self, state: LoopState, retriever: str, with_mesh: bool) -> Rewrite:
        r = state.retrievers[retriever]
        prompt = prompts.rewrite_prompt(state.question, retriever, r.query_format, state.notes, with_mesh)
        out, raw = self.llm.structured(self._messages(prompt), _RewriteOut, max_tokens=160)
        return Rewrite(out.query.strip(), out.mesh_terms if with_mesh else [], "llm", raw)

    def evaluate(self, state: LoopState) -> Verdict:
        block = evidence_block(state.evidence, self.evidence_chars)
        out, raw = self.llm.structured(self._messages(prompts.evaluate_prompt(state.question, block)), _VerdictOut, max_tokens=96)
        return Verdict(out.verdict == "YES", out.missing, "llm", raw)


# ---- hybrid ------------------------------------------------------------------------
class HybridPlanner(Planner):
    """Rules whenever the question names an entity or answer kind they recognise with
    confidence (they route, rewrite, judge and decide when to stop); the LLM otherwise."""

    name = "hybrid"

    def __init__(self, llm: LLM):
        self.rules = RulesPlanner()
        self.llm = LLMPlanner(llm)

    @staticmethod
    def _recognised(state: LoopState) -> bool:
        return state.analysis.intent is not None or any(e.confident for e in state.analysis.entities)

    def select(self, state: LoopState) -> Selection:
        # recognised entities route (the rules ask an ambiguous name back first); a
        # question with none is free text: the free-text sources in settings order (the
        # literature, then the web), never a database the model picks for a word that
        # only looks like a name. The LLM still writes the query and judges.
        return self.rules.select(state)

    def rewrite(self, state: LoopState, retriever: str, with_mesh: bool) -> Rewrite:
        if state.planned_by == "rules":
            return self.rules.rewrite(state, retriever, with_mesh)
        return self.llm.rewrite(state, retriever, with_mesh)

    def evaluate(self, state: LoopState) -> Verdict:
        if self._recognised(state):
            return self.rules.evaluate(state)
        return self.llm.evaluate(state)


def make_planner(name: str, llm: LLM) -> Planner:
    if name == "rules":
        return RulesPlanner()
    if name == "llm":
        return LLMPlanner(llm)
    return HybridPlanner(llm)
