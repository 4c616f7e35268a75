"""The agent loop (BioRAG paper): for at most `max_rounds` rounds
(1) select a retriever, (2) rewrite the query and tag MeSH, (3) retrieve,
(4) self-evaluate YES/NO; then (5) generate a cited answer.

The loop (`Agent.answer`) fits one screen: each step is a method that takes the run
(`_Run`: the loop state, the planner, the round) and says how it went. Every step emits a `TraceEvent` to `on_event` as it happens (the API
streams them) and into `Answer.trace`, with its time and the model time of its own calls
(`llm_ms`, metered per run: biorag/llm/meter.py). Failures of a step (tool error,
unparseable model output) are trace events with `ok=False`; they never turn into
invented evidence or default decisions.

Switches: `self_eval` off -> one retrieval round, then answer; `query_rewrite` off -> the
question goes to the retriever as is; `mesh_filter` off (or `mesh.mode=off`) -> no MeSH
terms; `mesh.mode` says whether they filter or boost the PubMed search.

Whatever a planner or the switches say, "sufficient" follows the evidence: one guard
(`biorag.sufficiency.check_evidence`) vetoes a YES without evidence, or with free-text
evidence that is off topic, and decides alone when self-evaluation is off. Free-text
answers are extractive (`generation.mode`, biorag/extractive.py) or generated, and
generated text passes `biorag.degenerate.inspect_output` before anyone sees it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from biorag import prompts
from biorag.degenerate import inspect_output
from biorag.errors import (
    BioragError,
    ConfigError,
    InputError,
    SourceUnavailable,
    StructuredOutputError,
)
from biorag.extractive import SentenceRanker, best_sentences, extractive_text
from biorag.grounding import verify_claims
from biorag.llm import make_llm
from biorag.llm.base import LLM, ChatMessage
from biorag.llm.meter import metering
from biorag.models import Answer, Citation, Evidence, Timings, TraceEvent
from biorag.planner import (
    Attempt,
    LoopState,
    PlanExhausted,
    Planner,
    evidence_block,
    make_planner,
    search_request,
)
from biorag.sufficiency import EvidenceCheck, check_evidence, quotable_evidence
from biorag.two_asks import split_asks
from biorag.understanding import analyse
from biorag.user_text import check_user_text

if TYPE_CHECKING:
    from biorag.embedder import Embedder
    from biorag.retriever import Retriever
    from biorag.settings import Settings
    from biorag.sources import Lexicon

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
    retriever: str = ""  # this round's choice, its query and MeSH terms
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
        self._tagger = mesh_tagger
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
            from biorag.embedder import Embedder

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

    def _mesh_terms(self, question: str, proposed: list[str], event: TraceEvent) -> list[str]:
        """Validated MeSH descriptor names: the planner's proposals when it made some,
        else the configured tagger's. Unknown names are dropped and reported."""
        from biorag.mesh import vocabulary
        from biorag.mesh_classifier import build_tagger

        vocab = vocabulary()
        terms: list[str] = []
        rejected: list[str] = []
        candidates = proposed
        if not candidates:
            if self._tagger is None:
                self._tagger = build_tagger(self.settings)
            candidates = self._tagger.tag(question, self.settings.mesh.max_terms)
            event.details["mesh_source"] = "tagger"
        else:
            event.details["mesh_source"] = "planner"
        for term in candidates:
            d = vocab.get(term) if isinstance(term, str) else None
            if d is None:
                rejected.append(term)
            elif d.name not in terms:
                terms.append(d.name)
        if rejected:
            event.details["mesh_rejected"] = rejected
        return terms[: self.settings.mesh.max_terms]

    # ---- the loop (one screen); each step below is one method ---------------------------
    def answer(self, question: str, on_event: EventSink | None = None) -> Answer:
        """Rounds of select -> rewrite -> retrieve -> evaluate, then the answer. What each
        step decides is delegated: which source and what query to the planner
        (`Planner.select`/`rewrite`), the search to the source, "is this enough?" to
        `Planner.evaluate` under the evidence guard (`check_evidence`), the text to
        `_compose` (a record's field, extractive or generated)."""
        question = check_user_text(question, self.settings)
        if (parts := split_asks(question, self.retrievers, self.lexicon)) is not None:
            return self._answer_parts(question, parts, on_event)
        t0 = time.perf_counter()
        with metering() as llm:  # this run's model calls only, whoever else shares the model
            run = self._start(question, on_event)
            while run.round < self.settings.max_rounds and run.failures < MAX_CONSECUTIVE_FAILURES:
                run.round = run.rounds = run.round + 1
                chosen = self._select(run)  # (1) "stop" when the planner has nothing left
                if chosen == "stop":
                    break
                if chosen == "failed" or not self._rewrite(run):  # (2) a failed step: next round
                    continue
                self._retrieve(run)  # (3) a failing source is an event, not the end of the run
                if self._evaluate(run):  # (4) enough evidence (or self-evaluation off): answer
                    break
            answer = self._generate(run)  # (5)
        answer.trace = run.trace
        answer.timings = Timings(total_ms=_ms(t0), llm_ms=round(llm.ms, 1))
        answer.config = self.settings.redacted()
        return answer

    def _answer_parts(self, question: str, parts: list[str], on_event: EventSink | None) -> Answer:
        """A question asking a record and the literature at once (biorag.two_asks): each
        part answered on its own, the first part's answer first, each later one after its
        question; sufficient only when every part is."""
        t0 = time.perf_counter()
        answers = [self.answer(part, on_event) for part in parts]
        text = "\n".join([answers[0].answer] + [f"{part} {a.answer}" for part, a in zip(parts[1:], answers[1:], strict=True)])
        citations = list({(c.source, c.id): c for a in answers for c in a.citations}.values())
        return Answer(question=question, answer=text, citations=citations, rounds=sum(a.rounds for a in answers),
                      sufficient=all(a.sufficient for a in answers), best_attempt=any(a.best_attempt for a in answers),
                      unsupported_claims=[c for a in answers for c in a.unsupported_claims],
                      trace=[e for a in answers for e in a.trace], config=answers[0].config,
                      timings=Timings(total_ms=_ms(t0), llm_ms=round(sum(a.timings.llm_ms for a in answers), 1)))

    def _start(self, question: str, on_event: EventSink | None) -> _Run:
        retrievers = self.retrievers
        if not retrievers:
            raise ConfigError("every source is disabled: enable at least one (e.g. --enable pubmed)")
        state = LoopState(question=question, analysis=analyse(question, retrievers, self.lexicon), retrievers=retrievers,
                          lexicon=self.lexicon)
        return _Run(state, self._planner(), SentenceRanker(self.embedder), on_event)  # the model loads on first use

    def _select(self, run: _Run) -> Literal["ok", "stop", "failed"]:
        """(1) Pick the source for this round."""
        ev = TraceEvent(step="select", round=run.round)
        with run.step(ev):
            try:
                sel = run.planner.select(run.state)
            except PlanExhausted as e:
                ev.decision, ev.details = "stop", {"reason": str(e)}
                run.rounds = max(run.round - 1, 1)  # this round did nothing
                return "stop"
            except StructuredOutputError as e:
                self._planning_failed(run, ev, str(e), e.raw_outputs)
                return "failed"
            ev.retriever, ev.decision = sel.retriever, sel.reason
            ev.details = {"by": sel.by, **({"raw": sel.raw} if sel.raw else {})}
        run.retriever = sel.retriever
        return "ok"

    def _rewrite(self, run: _Run) -> bool:
        """(2) Write the source's query and pick the MeSH terms that go with it (False: failed)."""
        s, state, name = self.settings, run.state, run.retriever
        ev = TraceEvent(step="rewrite", round=run.round, retriever=name)
        use_mesh = s.components.mesh_filter and s.mesh.mode != "off" and state.retrievers[name].supports_mesh
        with run.step(ev):
            try:
                if s.components.query_rewrite:
                    rw = run.planner.rewrite(state, name, use_mesh)
                    run.query, proposed = rw.query, rw.mesh_terms
                    ev.details = {"by": rw.by, **({"raw": rw.raw} if rw.raw else {})}
                else:
                    run.query, proposed = state.question, []
                    ev.details = {"by": "none", "rewrite": "off"}
                ev.query = run.query
                if use_mesh:
                    ev.mesh = self._mesh_terms(state.analysis.core, proposed, ev)
            except StructuredOutputError as e:
                self._planning_failed(run, ev, str(e), e.raw_outputs)
                return False
            except InputError as e:
                ev.ok, ev.error = False, str(e)
            if ev.ok and state.tried(name, run.query):
                # an LLM planner that repeats itself makes no progress: say so, don't re-run
                self._planning_failed(run, ev, f"repeats an earlier {name} query; not run again")
                return False
        run.failures = 0
        run.mesh = ev.mesh
        return True

    def _planning_failed(self, run: _Run, ev: TraceEvent, error: str, raw: list[str] | None = None) -> None:
        """A failed select/rewrite step, recorded in its event: the next round tries again,
        until MAX_CONSECUTIVE_FAILURES in a row end the loop."""
        ev.ok, ev.error = False, error
        if raw is not None:
            ev.details = {"raw": raw}
        run.failures += 1

    def _retrieve(self, run: _Run) -> None:
        """(3) Run the search; a failing source is an event with ok=False, not the end of the run."""
        s, state, name, query, mesh = self.settings, run.state, run.retriever, run.query, run.mesh
        ev = TraceEvent(step="retrieve", round=run.round, retriever=name, query=query, mesh=mesh)
        k, hits = s.sources[name].top_k, []
        with run.step(ev):
            try:
                hits = state.retrievers[name].search(search_request(state, name, query, k, mesh, s.mesh.mode))
            except BioragError as e:  # the source refused the input or could not answer
                ev.ok, ev.error = False, _source_error(name, e)
                if isinstance(e, SourceUnavailable):
                    run.unavailable[name] = ev.error
                ev.details["error_type"] = type(e).__name__
                ev.details.update(getattr(e, "info", None) or {})  # what the search did before failing
            except Exception as e:  # a broken tool degrades the answer, it does not end the run
                log.warning("retriever %s failed: %s: %s", name, type(e).__name__, e)
                log.debug("retriever %s traceback", name, exc_info=True)
                ev.ok, ev.error = False, f"{name}: unexpected {type(e).__name__}: {e}"
                ev.details["error_type"] = type(e).__name__
            ev.hits = [h.cited for h in hits]  # what each record is (the page links it)
            ev.details.update(getattr(hits, "info", None) or {})  # what the search did (SearchHits)
        known = {e.key for e in state.evidence}
        state.evidence.extend(h for h in hits if h.key not in known)
        state.attempts.append(Attempt(run.round, name, query, len(hits), ev.error))
        state.notes.append(_note(name, query, hits, ev.error))
        state.read_evidence()  # what the evidence answers, read once: every later step reads it

    def _evaluate(self, run: _Run) -> bool:
        """(4) Is the evidence enough? Self-evaluation, under the evidence guard; with
        self-evaluation off, the guard alone decides after one round (True: answer now)."""
        if not self.settings.components.self_eval:
            run.sufficient = self._check(run.state, run.ranker).sufficient
            return True
        ev = TraceEvent(step="evaluate", round=run.round)
        with run.step(ev):
            run.sufficient = self._judge(run, ev)
        if not run.sufficient and (missing := ev.details.get("missing")):
            run.state.notes.append(f"still missing: {missing}")
        return run.sufficient

    def _judge(self, run: _Run, ev: TraceEvent) -> bool:
        """The planner's verdict, vetoed by the evidence guard; nothing to judge is a NO."""
        state = run.state
        if not state.evidence:  # no planner may say YES
            ev.decision = "NO"
            ev.details = {"by": "evidence_guard", "missing": "no source has returned evidence yet"}
            return False
        if state.analysis.intent is None and (read := self._check(state, run.ranker).literature) is not None \
                and read.sufficient:
            # a cited sentence already answers: stop here, no further rounds or rewrites
            ev.decision, ev.details = "YES", {"by": "reading", "missing": "", "literature": read.kind}
            return True
        try:
            verdict = run.planner.evaluate(state)
        except StructuredOutputError as e:
            ev.ok, ev.error, ev.details = False, str(e), {"raw": e.raw_outputs}
            return False
        ev.decision = "YES" if verdict.sufficient else "NO"
        ev.details = {"by": verdict.by, "missing": verdict.missing, **({"raw": verdict.raw} if verdict.raw else {})}
        if not verdict.sufficient:
            return False
        check = self._check(state, run.ranker)
        if not check.sufficient:
            ev.decision = "NO"
            ev.details.update(overruled=f"{ev.details.get('by')} said YES", by="evidence_guard",
                              missing=check.reason, **check.figures)
        return check.sufficient

    def _generate(self, run: _Run) -> Answer:
        """(5) The answer: read from a record, quoted from the evidence (extractive) or generated.
        Sufficient only if the loop said so, the evidence guard agrees and there is an answer."""
        s, state, rounds = self.settings, run.state, run.rounds
        check = self._check(state, run.ranker)
        ev = TraceEvent(step="generate", round=rounds)
        with run.step(ev):
            text, used, unsupported = self._compose(state, check, run.ranker, ev)
            refused = ev.details.get("refused")
            sufficient = (run.sufficient and check.sufficient and bool(text) and not ev.details.get("incomplete")
                          and not refused)
            best_attempt = s.components.self_eval and not sufficient and rounds >= 1
            if not sufficient:
                where = f" after {rounds} round(s)" if s.components.self_eval else ""
                reason = check.reason or "the evidence does not settle the question"
                if refused:  # the records' reason first; what they hold is a lead, below it
                    text = f"Insufficient evidence{where}: {refused}.\n{text}"
                else:
                    text = f"Insufficient evidence{where}; best attempt: {text}" if text else f"Insufficient evidence{where}: {reason}."
                if run.unavailable:  # not "nothing found": a source that could have answered was not searched
                    text += " Could not search " + "; ".join(run.unavailable.values())
            if unsupported:
                text += f" [{len(unsupported)} unsupported claim(s) removed: {', '.join(unsupported)}]"
        citations = [Citation.from_evidence(e) for e in _dedupe(used)]
        return Answer(
            question=state.question,
            answer=text,
            citations=citations,
            rounds=rounds,
            sufficient=sufficient,
            best_attempt=best_attempt,
            unsupported_claims=unsupported,
        )

    def _compose(
        self, state: LoopState, check: EvidenceCheck, ranker: SentenceRanker, ev: TraceEvent
    ) -> tuple[str, list[Evidence], list[str]]:
        """(text, evidence used, unsupported claims) by the first way that applies: none
        without sufficient evidence, a record's field, a generated or an extractive answer."""
        if not check.sufficient:  # no evidence, or evidence that is not about the question
            ev.decision = "no_evidence" if not state.evidence else "insufficient"
            ev.details = {"mode": "none", "reason": check.reason, **check.figures}
            return "", [], []
        structured = state.reading if self.settings.grounding else None
        if structured is not None:
            ev.decision, ev.details = "structured", {"mode": "structured", "explanation": structured.explanation}
            if structured.missing:  # a name the question asks about has no value: not the whole answer
                ev.details["incomplete"] = structured.missing
            if structured.refused:  # the records hold the field but do not answer (a lead)
                ev.details["refused"] = structured.refused
            return structured.text, structured.used, []
        if self.settings.generation.mode == "llm":
            return self._generated(state, check, ranker, ev)
        text, used = self._extractive(state, check, ranker, ev)
        return text, used, []

    def _extractive(
        self, state: LoopState, check: EvidenceCheck, ranker: SentenceRanker, ev: TraceEvent
    ) -> tuple[str, list[Evidence]]:
        """The evidence sentences closest to the question, each with its record id."""
        g = self.settings.generation
        if check.literature is not None and check.literature.sufficient:
            read = check.literature  # the answer first, then its cited sentences with their years
            ev.decision = "extractive"
            ev.details.update(mode="extractive", literature=read.kind, best_similarity=check.figures.get("best_similarity"),
                              min_similarity=g.min_similarity, named=read.named[:10],
                              chosen=[{"id": c.evidence.key, "similarity": c.similarity} for c in read.support])
            return read.text, read.used
        ranked = check.ranked or ranker.rank(state.analysis.core, quotable_evidence(state.evidence, state.retrievers))
        chosen = best_sentences(ranked, g.min_similarity, g.max_sentences)
        ev.decision = "extractive"
        ev.details.update(
            mode="extractive",
            best_similarity=ranked[0].similarity if ranked else None,
            min_similarity=g.min_similarity,
            sentences_ranked=len(ranked),
            chosen=[{"id": c.evidence.key, "similarity": c.similarity} for c in chosen],
        )
        if not chosen:
            ev.details["reason"] = "no evidence sentence to quote"
        return extractive_text(chosen), [c.evidence for c in chosen]

    def _generated(
        self, state: LoopState, check: EvidenceCheck, ranker: SentenceRanker, ev: TraceEvent
    ) -> tuple[str, list[Evidence], list[str]]:
        """Prose from the model: degenerate output cut, unsupported claims removed; when
        nothing usable is left, the extractive answer stands in for it."""
        block = evidence_block(state.evidence)
        prompt = prompts.generate_prompt(state.question, block)
        msgs = [ChatMessage(role="system", content=prompts.SYSTEM), ChatMessage(role="user", content=prompt)]
        ev.details["mode"] = "llm"
        try:
            g = self.settings.generation
            draft = self.llm.chat(msgs, max_tokens=g.max_tokens, temperature=g.temperature).text
        except Exception as e:  # model unreachable mid-run: report, keep the evidence
            ev.ok, ev.error = False, str(e)
            draft = ""
        ev.details["draft"] = draft
        checked = inspect_output(draft, echo=[state.question, *prompts.GENERATE_INSTRUCTIONS])
        if checked.problems:
            ev.details["degenerate"] = checked.problems
        text, unsupported = checked.text, []
        if text and self.settings.grounding:
            text, unsupported = verify_claims(text, state.evidence)
            if unsupported:
                ev.details["unsupported"] = unsupported
        if text:
            ev.decision = "generated"
            return text, state.evidence, unsupported
        text, used = self._extractive(state, check, ranker, ev)
        ev.decision, ev.details["mode"] = "extractive_fallback", "llm"
        return text, used, unsupported

def _ms(t: float) -> float:
    return round((time.perf_counter() - t) * 1000, 1)


def _dedupe(evs: list[Evidence]) -> list[Evidence]:
    seen, out = set(), []
    for e in evs:
        if e.key not in seen:
            seen.add(e.key)
            out.append(e)
    return out


def _source_error(name: str, e: BioragError) -> str:
    """One line naming the source and its reason: 'blast rejected the query: ...'."""
    msg = str(e)
    if msg.startswith(f"{name}: "):
        msg = msg[len(name) + 2 :]
    if isinstance(e, InputError):
        return f"{name} rejected the query: {msg}"
    return f"{name}: {msg}"


def _note(name: str, query: str, hits: list[Evidence], error: str | None) -> str:
    if error:
        return f"{name}('{query[:60]}') failed: {error[:160]}"
    if not hits:
        return f"{name}('{query[:60]}') found nothing"
    tops = "; ".join(h.title[:60] for h in hits[:3])
    return f"{name}('{query[:60]}') found {len(hits)}: {tops}"
