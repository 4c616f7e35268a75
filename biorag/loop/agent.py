"""The agent loop (BioRAG paper): for at most `max_rounds` rounds
(1) select a retriever, (2) rewrite the query and tag MeSH, (3) retrieve,
(4) self-evaluate YES/NO; then (5) generate a cited answer.

The loop (`Agent.answer`) fits one screen: each step is a method that takes the run
(`_Run`: the loop state, the planner, the round) and returns its `StepOutcome`, which alone
decides what comes next and which the step's event records. Every step emits a `TraceEvent` to `on_event` as it happens (the API
streams them) and into `Answer.trace`, with its time and the model time of its own calls
(`llm_ms`, metered per run: biorag/llm/meter.py). Failures of a step (tool error,
unparseable model output) are trace events with `ok=False`; they never turn into
invented evidence or default decisions.

Switches: `self_eval` off -> one retrieval round, then answer; `query_rewrite` off -> the
question goes to the retriever as is; `mesh_filter` off (or `mesh.mode=off`) -> no MeSH
terms; `mesh.mode` says whether they filter or boost the PubMed search.

Whatever a planner or the switches say, "sufficient" follows the evidence: one guard
(`biorag.loop.sufficiency.check_evidence`) vetoes a YES without evidence, or with free-text
evidence that is off topic, and decides alone when self-evaluation is off. The text itself
is composed by `biorag.loop.compose` (a record's field, extractive or generated) into a typed
`Composition`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import (
    BioragError,
    ConfigError,
    InputError,
    NotHeldOffline,
    NotRecorded,
    SourceUnavailable,
    StructuredOutputError,
)
from biorag.contracts.models import Answer, Citation, Evidence, StepOutcome, Timings, TraceEvent
from biorag.llm import make_llm
from biorag.llm.base import LLM
from biorag.llm.meter import metering
from biorag.loop.compose import Composer
from biorag.loop.extractive import SentenceRanker
from biorag.loop.literature_turn import turned
from biorag.loop.mesh_terms import MeshTerms
from biorag.loop.parts import answer_in_parts
from biorag.loop.planner import make_planner
from biorag.loop.plans import PlanExhausted, Planner, Selection, Verdict
from biorag.loop.requests import search_request
from biorag.loop.state import Attempt, LoopState, retrieval_note, source_error
from biorag.loop.sufficiency import EvidenceCheck, check_evidence
from biorag.understanding.analysis import analyse
from biorag.understanding.record_questions import asks_record_of_identifier
from biorag.understanding.two_asks import split_asks
from biorag.understanding.user_text import check_user_text

if TYPE_CHECKING:
    from biorag.contracts.sources import Lexicon
    from biorag.ml.embedder import Embedder
    from biorag.retrieval.retriever import Retriever
    from biorag.settings import Settings

log = logging.getLogger(__name__)

EventSink = Callable[[TraceEvent], None]
#: consecutive failures of a planning step after which the loop stops burning rounds
MAX_CONSECUTIVE_FAILURES = 2


@dataclass
class _Run:
    """One answer in progress: what the steps of the loop hand each other."""

    state: LoopState
    planner: Planner
    ranker: SentenceRanker
    on_event: EventSink | None
    trace: list[TraceEvent] = field(default_factory=list)
    round: int = 0  # the round being run, from 1
    rounds: int = 0  # the rounds the answer reports
    failures: int = 0  # consecutive failed planning steps
    sufficient: bool = False  # the last evaluation, after the evidence guard
    selection: Selection | None = None  # this round's choice, its query and MeSH terms
    query: str = ""
    mesh: list[str] = field(default_factory=list)
    #: sources that could not be searched at all (no index, store held by another process,
    #: service down), with their one-line error: an insufficient answer names them
    unavailable: dict[str, str] = field(default_factory=dict)

    @contextmanager
    def step(self, ev: TraceEvent) -> Iterator[TraceEvent]:
        """Time the step and its own model calls into `ev`, then emit it (a step that
        raises emits nothing)."""
        t = time.perf_counter()
        with metering() as llm:
            yield ev
        ev.ms, ev.llm_ms = _ms(t), round(llm.ms, 1)
        self.trace.append(ev)
        if self.on_event:
            self.on_event(ev)


class Agent:
    """Answers one question at a time from the sources it is given. It builds none of them:
    the composition root (`application.engine`) passes the retrievers and the lexicon."""

    def __init__(
        self,
        settings: Settings,
        llm: LLM | None = None,
        *,
        retrievers: dict[str, Retriever],
        mesh_tagger: Any | None = None,
        planner: Planner | None = None,
        lexicon: Lexicon | None = None,
        embedder: Embedder | None = None,
    ):
        self.settings = settings
        self._llm = llm
        self.retrievers = retrievers
        #: dictionaries for entity linking (None: pattern-based recognition)
        self.lexicon = lexicon
        self._mesh = MeshTerms(settings, mesh_tagger)
        self._planner_override = planner
        self._embedder = embedder

    # Lazy parts: a rules-only run never loads the model (made here on first use when the
    # caller passed none).
    @property
    def llm(self) -> LLM:
        if self._llm is None:
            self._llm = make_llm(self.settings)
        return self._llm

    @property
    def embedder(self) -> Embedder:
        """Ranks evidence sentences (topicality and extractive answers). Cheap to build: the
        model loads when a first sentence is embedded, so record-only runs never load it."""
        if self._embedder is None:
            from biorag.ml.embedder import Embedder

            self._embedder = Embedder(self.settings.generation.embedder, device=self.settings.index.device)
        return self._embedder

    def _check(self, state: LoopState, ranker: SentenceRanker) -> EvidenceCheck:
        g = self.settings.generation
        return check_evidence(state.analysis, state.evidence, state.retrievers, ranker, g.min_similarity, state.reading,
                              self.lexicon)

    def _planner(self) -> Planner:
        if self._planner_override is not None:
            return self._planner_override
        if self.settings.planner == "rules":
            return make_planner("rules", None)  # type: ignore[arg-type]
        return make_planner(self.settings.planner, self.llm)

    # ---- the loop (one screen); each step below is one method ---------------------------
    def answer(self, question: str, on_event: EventSink | None = None) -> Answer:
        """Rounds of select -> rewrite -> retrieve -> evaluate, then the answer. What each
        step decides is delegated: which source and what query to the planner
        (`Planner.select`/`rewrite`), the search to the source, "is this enough?" to
        `Planner.evaluate` under the evidence guard (`check_evidence`), the text to
        `Composer.compose` (a record's field, extractive or generated)."""
        question = check_user_text(question, self.settings)
        if (parts := split_asks(question, self.retrievers, self.lexicon)) is not None:
            return answer_in_parts(self.answer, question, parts, on_event)
        t0 = time.perf_counter()
        with metering() as llm:  # this run's model calls only, whoever else shares the model
            run = self._start(question, on_event)
            while run.round < self.settings.max_rounds and run.failures < MAX_CONSECUTIVE_FAILURES:
                run.round = run.rounds = run.round + 1
                chosen = self._select(run)  # (1) STOP when the planner has nothing left
                if chosen is StepOutcome.STOP:
                    break
                if chosen is StepOutcome.FAILED or self._rewrite(run) is StepOutcome.FAILED:  # (2) next round
                    continue
                self._retrieve(run)  # (3) a failing source is an event, not the end of the run
                if self._evaluate(run) is StepOutcome.ENOUGH:  # (4) enough evidence (or self-eval off)
                    break
            answer = self._generate(run)  # (5)
        answer.trace = run.trace
        answer.timings = Timings(total_ms=_ms(t0), llm_ms=round(llm.ms, 1))
        answer.config = self.settings.redacted()
        return answer

    def _start(self, question: str, on_event: EventSink | None) -> _Run:
        retrievers = self.retrievers
        if not retrievers:
            raise ConfigError("every source is disabled: enable at least one (e.g. --enable pubmed)")
        state = LoopState(question=question, analysis=analyse(question, retrievers, self.lexicon), retrievers=retrievers,
                          lexicon=self.lexicon)
        return _Run(state, self._planner(), SentenceRanker(self.embedder), on_event)  # the model loads on first use

    def _select(self, run: _Run) -> StepOutcome:
        """(1) Pick the source for this round."""
        ev = TraceEvent(step="select", round=run.round)
        with run.step(ev):
            try:
                sel = run.planner.select(run.state)
            except PlanExhausted as e:
                ev.decision, ev.details = "stop", {"reason": str(e)}
                run.rounds = max(run.round - 1, 1)  # this round did nothing
                ev.outcome = StepOutcome.STOP
                return ev.outcome
            except StructuredOutputError as e:
                return self._planning_failed(run, ev, str(e), e.raw_outputs)
            ev.retriever, ev.decision = sel.retriever, sel.reason
            ev.details = {"by": sel.by, **({"raw": sel.raw} if sel.raw else {})}
            ev.outcome = StepOutcome.DONE
        run.selection = sel
        return ev.outcome

    def _rewrite(self, run: _Run) -> StepOutcome:
        """(2) Write the source's query and pick the MeSH terms that go with it."""
        s, state, selection = self.settings, run.state, run.selection
        assert selection is not None, "rewrite runs after a selection"
        name = selection.retriever
        ev = TraceEvent(step="rewrite", round=run.round, retriever=name)
        use_mesh = s.components.mesh_filter and s.mesh.mode != "off" and state.retrievers[name].supports_mesh
        with run.step(ev):
            try:
                if s.components.query_rewrite:
                    rw = run.planner.rewrite(state, selection, use_mesh)
                    run.query, proposed = rw.query, rw.mesh_terms
                    ev.details = {"by": rw.by, **({"raw": rw.raw} if rw.raw else {})}
                else:
                    run.query, proposed = state.question, []
                    ev.details = {"by": "none", "rewrite": "off"}
                ev.query = run.query
                if use_mesh:
                    ev.mesh = self._mesh.pick(state.analysis.core, proposed, ev)
            except StructuredOutputError as e:
                return self._planning_failed(run, ev, str(e), e.raw_outputs)
            except InputError as e:
                ev.ok, ev.error = False, str(e)
            if ev.ok and state.tried(name, run.query):
                # an LLM planner that repeats itself makes no progress: say so, don't re-run
                return self._planning_failed(run, ev, f"repeats an earlier {name} query; not run again")
            # a query the source refused is still run: the source says why in the retrieve step
            ev.outcome = StepOutcome.DONE
        run.failures = 0
        run.mesh = ev.mesh
        return ev.outcome

    def _planning_failed(self, run: _Run, ev: TraceEvent, error: str, raw: list[str] | None = None) -> StepOutcome:
        """A failed select/rewrite step, recorded in its event: the next round tries again,
        until MAX_CONSECUTIVE_FAILURES in a row end the loop."""
        ev.ok, ev.error = False, error
        if raw is not None:
            ev.details = {"raw": raw}
        run.failures += 1
        ev.outcome = StepOutcome.FAILED
        return ev.outcome

    def _retrieve(self, run: _Run) -> StepOutcome:
        """(3) Run the search; a failing source is an event with ok=False (FAILED), not the end
        of the run."""
        s, state, selection, query, mesh = self.settings, run.state, run.selection, run.query, run.mesh
        assert selection is not None, "retrieve runs after a selection"
        name = selection.retriever
        ev = TraceEvent(step="retrieve", round=run.round, retriever=name, query=query, mesh=mesh)
        k, hits = s.sources[name].top_k, []
        with run.step(ev):
            try:
                hits = state.retrievers[name].search(search_request(state, selection, query, k, mesh, s.mesh.mode))
            except BioragError as e:  # the source refused the input or could not answer
                ev.ok, ev.error = False, source_error(name, e)
                if isinstance(e, (SourceUnavailable, NotHeldOffline)):  # the message says why and how
                    run.unavailable[name] = ev.error
                elif isinstance(e, NotRecorded) and asks_record_of_identifier(state.analysis):
                    # an identifier's record that only a live source may hold: say so, and how
                    run.unavailable[name] = ev.error + " (offline replay; --set tool_io.mode=cache or live asks NCBI)"
                ev.details["error_type"] = type(e).__name__
                ev.details.update(getattr(e, "info", None) or {})  # what the search did before failing
            except Exception as e:  # a broken tool degrades the answer, it does not end the run
                log.warning("retriever %s failed: %s: %s", name, type(e).__name__, e)
                log.debug("retriever %s traceback", name, exc_info=True)
                ev.ok, ev.error = False, f"{name}: unexpected {type(e).__name__}: {e}"
                ev.details["error_type"] = type(e).__name__
            ev.hits = [h.cited for h in hits]  # what each record is (the page links it)
            ev.details.update(getattr(hits, "info", None) or {})  # what the search did (SearchHits)
            ev.outcome = StepOutcome.DONE if ev.ok else StepOutcome.FAILED
        known = {e.key for e in state.evidence}
        state.evidence.extend(h for h in hits if h.key not in known)
        state.attempts.append(Attempt(run.round, name, query, len(hits), ev.error))
        state.notes.append(retrieval_note(name, query, hits, ev.error))
        state.read_evidence()  # what the evidence answers, read once: every later step reads it
        return ev.outcome

    def _evaluate(self, run: _Run) -> StepOutcome:
        """(4) Is the evidence enough? Self-evaluation, under the evidence guard; with
        self-evaluation off, the guard alone decides after one round (ENOUGH: answer now)."""
        if not self.settings.components.self_eval:
            run.sufficient = self._check(run.state, run.ranker).sufficient
            return StepOutcome.ENOUGH
        ev = TraceEvent(step="evaluate", round=run.round)
        with run.step(ev):
            verdict = self._judge(run, ev)
            if verdict.sufficient and (turn := turned(run.state)) is not None:
                # the records answer, but not what was asked: the literature is asked next
                run.state.analysis, run.state.record_lead = turn
                run.state.read_evidence()
                ev.decision, ev.details = "NO", {"by": "records", "turn": "literature", "missing": turn[1].text}
                verdict = Verdict(False, "the records do not link the gene to the disease: ask the literature", "records")
            run.sufficient = verdict.sufficient
            ev.outcome = StepOutcome.ENOUGH if verdict.sufficient else StepOutcome.NOT_ENOUGH
        if not run.sufficient and verdict.missing:
            run.state.notes.append(f"still missing: {verdict.missing}")
        return ev.outcome

    def _judge(self, run: _Run, ev: TraceEvent) -> Verdict:
        """The planner's verdict, vetoed by the evidence guard; nothing to judge is a NO."""
        state = run.state
        if not state.evidence:  # no planner may say YES
            ev.decision = "NO"
            verdict = Verdict(False, "no source has returned evidence yet", "evidence_guard")
            ev.details = {"by": verdict.by, "missing": verdict.missing}
            return verdict
        if state.analysis.intent is None and (read := self._check(state, run.ranker).literature) is not None \
                and read.sufficient:
            # a cited sentence already answers: stop here, no further rounds or rewrites
            ev.decision, ev.details = "YES", {"by": "reading", "missing": "", "literature": read.kind}
            return Verdict(True, "", "reading")
        try:
            verdict = run.planner.evaluate(state)
        except StructuredOutputError as e:
            ev.ok, ev.error, ev.details = False, str(e), {"raw": e.raw_outputs}
            return Verdict(False, "", "llm", e.raw_outputs)
        ev.decision = "YES" if verdict.sufficient else "NO"
        ev.details = {"by": verdict.by, "missing": verdict.missing, **({"raw": verdict.raw} if verdict.raw else {})}
        if not verdict.sufficient:
            return verdict
        check = self._check(state, run.ranker)
        if not check.sufficient:
            ev.decision = "NO"
            ev.details.update(overruled=f"{verdict.by} said YES", by="evidence_guard",
                              missing=check.reason, **check.figures)
            return Verdict(False, check.reason, "evidence_guard")
        return verdict

    def _generate(self, run: _Run) -> Answer:
        """(5) The answer: read from a record, quoted from the evidence (extractive) or generated.
        Sufficient only if the loop said so, the evidence guard agrees and there is an answer."""
        s, state, rounds = self.settings, run.state, run.rounds
        check = self._check(state, run.ranker)
        ev = TraceEvent(step="generate", round=rounds)
        with run.step(ev):
            composed = Composer(s, lambda: self.llm).compose(state, check, run.ranker, ev)
            text, unsupported, used = composed.text, composed.unsupported, composed.used
            sufficient = run.sufficient and check.sufficient and composed.answers
            best_attempt = s.components.self_eval and not sufficient and rounds >= 1
            if not sufficient:
                where = f" after {rounds} round(s)" if s.components.self_eval else ""
                reason = check.reason or "the evidence does not settle the question"
                if composed.refused:  # the records' reason first; what they hold is a lead, below it
                    text = f"Insufficient evidence{where}: {composed.refused}.\n{text}"
                else:
                    text = f"Insufficient evidence{where}; best attempt: {text}" if text else f"Insufficient evidence{where}: {reason}."
                if run.unavailable:  # not "nothing found": a source that could have answered was not searched
                    text += " Could not search " + "; ".join(run.unavailable.values())
                if state.record_lead is not None:  # what the records do say, cited
                    text += f"\nThe records: {state.record_lead.text}"
                    used = [*used, *state.record_lead.used]
            if unsupported:
                text += f" [{len(unsupported)} unsupported claim(s) removed: {', '.join(unsupported)}]"
            ev.outcome = StepOutcome.ANSWERED if sufficient else StepOutcome.INSUFFICIENT
        citations = [Citation.from_evidence(e) for e in _dedupe(used)]
        return Answer(
            question=state.question,
            answer=text,
            citations=citations,
            rounds=rounds,
            sufficient=sufficient,
            best_attempt=best_attempt,
            unsupported_claims=unsupported,
            unmatched_features=[m.name for e in state.analysis.entities if e.kind == "phenotype"
                                for m in e.members if not m.ident],
        )


def _ms(t: float) -> float:
    return round((time.perf_counter() - t) * 1000, 1)


def _dedupe(evs: list[Evidence]) -> list[Evidence]:
    seen, out = set(), []
    for e in evs:
        if e.key not in seen:
            seen.add(e.key)
            out.append(e)
    return out
