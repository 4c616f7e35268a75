"""The agent loop (BioRAG paper): for at most `max_rounds` rounds
(1) select a retriever, (2) rewrite the query and tag MeSH, (3) retrieve,
(4) self-evaluate YES/NO; then (5) generate a cited answer.

Every step emits a `TraceEvent` to `on_event` as it happens (the API streams them) and
into `Answer.trace`. Failures of a step (tool error, unparseable model output) are trace
events with `ok=False`; they never turn into invented evidence or default decisions.

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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from biorag import prompts
from biorag.degenerate import inspect_output
from biorag.errors import BioragError, ConfigError, InputError, StructuredOutputError
from biorag.extractive import SentenceRanker, best_sentences, extractive_text
from biorag.grounding import structured_answer, verify_claims
from biorag.llm import make_llm
from biorag.llm.base import LLM, ChatMessage
from biorag.models import Answer, Citation, Evidence, SearchFilters, Timings, TraceEvent
from biorag.planner import Attempt, LoopState, PlanExhausted, Planner, evidence_block, make_planner
from biorag.sufficiency import EvidenceCheck, check_evidence
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
        return check_evidence(state.analysis, state.evidence, state.retrievers, ranker, g.min_similarity)

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

    # ------------------------------------------------------------------------------
    def answer(self, question: str, on_event: EventSink | None = None) -> Answer:
        question = check_user_text(question, self.settings)

        t0 = time.perf_counter()
        llm_ms_start = self._llm.total_ms if self._llm else 0.0
        s = self.settings
        trace: list[TraceEvent] = []

        def emit(ev: TraceEvent) -> TraceEvent:
            trace.append(ev)
            if on_event:
                on_event(ev)
            return ev

        retrievers = self.retrievers
        if not retrievers:
            raise ConfigError("every source is disabled: enable at least one (e.g. --enable pubmed)")
        state = LoopState(question=question, analysis=analyse(question, retrievers, self.lexicon), retrievers=retrievers)
        planner = self._planner()
        ranker = SentenceRanker(self.embedder)  # the model itself loads on first use
        sufficient = False
        rounds = 0
        failures = 0

        def planning_failed(ev: TraceEvent, t: float, error: str, raw: list[str] | None = None) -> bool:
            """Record a failed select/rewrite step; True once the loop should stop trying."""
            nonlocal failures
            ev.ok, ev.error = False, error
            if raw is not None:
                ev.details = {"raw": raw}
            ev.ms = _ms(t)
            emit(ev)
            failures += 1
            return failures >= MAX_CONSECUTIVE_FAILURES

        for rnd in range(1, s.max_rounds + 1):
            rounds = rnd
            # (1) select
            ev = TraceEvent(step="select", round=rnd)
            t = time.perf_counter()
            try:
                sel = planner.select(state)
                ev.retriever, ev.decision = sel.retriever, sel.reason
                ev.details = {"by": sel.by, **({"raw": sel.raw} if sel.raw else {})}
            except PlanExhausted as e:
                ev.decision, ev.details = "stop", {"reason": str(e)}
                ev.ms = _ms(t)
                emit(ev)
                rounds = rnd - 1 if rnd > 1 else rnd
                break
            except StructuredOutputError as e:
                if planning_failed(ev, t, str(e), e.raw_outputs):
                    break
                continue
            ev.ms = _ms(t)
            emit(ev)
            name = sel.retriever
            retriever = retrievers[name]

            # (2) rewrite + MeSH tagging
            ev = TraceEvent(step="rewrite", round=rnd, retriever=name)
            t = time.perf_counter()
            use_mesh = s.components.mesh_filter and s.mesh.mode != "off" and retriever.supports_mesh
            try:
                if s.components.query_rewrite:
                    rw = planner.rewrite(state, name, use_mesh)
                    query, proposed = rw.query, rw.mesh_terms
                    ev.details = {"by": rw.by, **({"raw": rw.raw} if rw.raw else {})}
                else:
                    query, proposed = question, []
                    ev.details = {"by": "none", "rewrite": "off"}
                ev.query = query
                if use_mesh:
                    ev.mesh = self._mesh_terms(state.analysis.core, proposed, ev)
            except StructuredOutputError as e:
                if planning_failed(ev, t, str(e), e.raw_outputs):
                    break
                continue
            except InputError as e:
                ev.ok, ev.error = False, str(e)
            if ev.ok and state.tried(name, query):
                # an LLM planner that repeats itself makes no progress: say so, don't re-run
                if planning_failed(ev, t, f"repeats an earlier {name} query; not run again"):
                    break
                continue
            ev.ms = _ms(t)
            emit(ev)
            failures = 0
            mesh = ev.mesh

            # (3) retrieve
            ev = TraceEvent(step="retrieve", round=rnd, retriever=name, query=query, mesh=mesh)
            t = time.perf_counter()
            k = s.sources[name].top_k
            hits: list[Evidence] = []
            try:
                hits = retriever.search(query, k, SearchFilters(mesh=mesh, mesh_mode=s.mesh.mode) if mesh else None)
            except BioragError as e:  # the source refused the input or could not answer
                ev.ok, ev.error = False, _source_error(name, e)
                ev.details["error_type"] = type(e).__name__
                ev.details.update(getattr(e, "info", None) or {})  # what the search did before failing
            except Exception as e:  # a broken tool degrades the answer, it does not end the run
                log.warning("retriever %s failed: %s: %s", name, type(e).__name__, e)
                log.debug("retriever %s traceback", name, exc_info=True)
                ev.ok, ev.error = False, f"{name}: unexpected {type(e).__name__}: {e}"
                ev.details["error_type"] = type(e).__name__
            ev.hits = [h.key for h in hits]
            ev.details.update(getattr(hits, "info", None) or {})  # what the search did (SearchHits)
            ev.ms = _ms(t)
            emit(ev)
            new = [h for h in hits if h.key not in {e.key for e in state.evidence}]
            state.evidence.extend(new)
            state.attempts.append(Attempt(rnd, name, query, len(hits), ev.error))
            state.notes.append(_note(name, query, hits, ev.error))

            # (4) self-evaluation, under the evidence guard
            if not s.components.self_eval:
                sufficient = self._check(state, ranker).sufficient
                break
            ev = TraceEvent(step="evaluate", round=rnd)
            t = time.perf_counter()
            sufficient = False
            if not state.evidence:  # nothing to judge: no planner may say YES
                ev.decision = "NO"
                ev.details = {"by": "evidence_guard", "missing": "no source has returned evidence yet"}
            else:
                try:
                    verdict = planner.evaluate(state)
                    ev.decision = "YES" if verdict.sufficient else "NO"
                    ev.details = {"by": verdict.by, "missing": verdict.missing, **({"raw": verdict.raw} if verdict.raw else {})}
                    sufficient = verdict.sufficient
                except StructuredOutputError as e:
                    ev.ok, ev.error, ev.details = False, str(e), {"raw": e.raw_outputs}
                if sufficient:
                    check = self._check(state, ranker)
                    if not check.sufficient:
                        sufficient = False
                        ev.decision = "NO"
                        ev.details.update(overruled=f"{ev.details.get('by')} said YES", by="evidence_guard",
                                          missing=check.reason, **check.figures)
            ev.ms = _ms(t)
            emit(ev)
            if sufficient:
                break
            if verdict_missing := ev.details.get("missing"):
                state.notes.append(f"still missing: {verdict_missing}")

        # (5) generate
        answer = self._generate(state, rounds, sufficient, self._check(state, ranker), ranker, emit)
        answer.trace = trace
        answer.timings = Timings(
            total_ms=_ms(t0), llm_ms=round((self._llm.total_ms if self._llm else 0.0) - llm_ms_start, 1)
        )
        answer.config = s.redacted()
        return answer

    def _generate(
        self, state: LoopState, rounds: int, sufficient: bool, check: EvidenceCheck, ranker: SentenceRanker, emit
    ) -> Answer:
        """The answer: read from a record, quoted from the evidence (extractive) or generated.
        Sufficient only if the loop said so, the evidence guard agrees and there is an answer."""
        s = self.settings
        ev = TraceEvent(step="generate", round=rounds)
        t = time.perf_counter()
        text, used, unsupported = "", [], []
        structured = structured_answer(state.analysis, state.evidence, state.retrievers) if s.grounding else None
        if not check.sufficient:  # no evidence, or evidence that is not about the question
            ev.decision = "no_evidence" if not state.evidence else "insufficient"
            ev.details = {"mode": "none", "reason": check.reason, **check.figures}
        elif structured is not None:
            text, used = structured.text, structured.used
            ev.decision, ev.details = "structured", {"mode": "structured", "explanation": structured.explanation}
        elif s.generation.mode == "llm":
            text, used, unsupported = self._generated(state, check, ranker, ev)
        else:
            text, used = self._extractive(state, check, ranker, ev)
        sufficient = sufficient and check.sufficient and bool(text)
        best_attempt = s.components.self_eval and not sufficient and rounds >= 1
        if not sufficient:
            where = f" after {rounds} round(s)" if s.components.self_eval else ""
            reason = check.reason or "the evidence does not settle the question"
            text = f"Insufficient evidence{where}; best attempt: {text}" if text else f"Insufficient evidence{where}: {reason}."
        if unsupported:
            text += f" [{len(unsupported)} unsupported claim(s) removed: {', '.join(unsupported)}]"
        ev.ms = _ms(t)
        emit(ev)
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

    def _extractive(
        self, state: LoopState, check: EvidenceCheck, ranker: SentenceRanker, ev: TraceEvent
    ) -> tuple[str, list[Evidence]]:
        """The evidence sentences closest to the question, each with its record id."""
        g = self.settings.generation
        ranked = check.ranked or ranker.rank(state.analysis.core, state.evidence)
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
            draft = self.llm.chat(msgs).text
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
