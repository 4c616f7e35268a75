"""Step 5's text: by the first way that applies, none without sufficient evidence, a record's
field (structured), prose from the model (`generation.mode=llm`) or the evidence sentences
closest to the question (extractive). Generated text passes
`biorag.llm.degenerate.inspect_output` and, with grounding on, the claim check before anyone
sees it; when nothing usable is left, the extractive answer stands in for it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from biorag.contracts.models import Evidence, TraceEvent
from biorag.llm.base import LLM, ChatMessage
from biorag.llm.degenerate import inspect_output
from biorag.loop import prompts
from biorag.loop.composition import Composition
from biorag.loop.extractive import SentenceRanker, best_sentences, extractive_text
from biorag.loop.grounding import verify_claims
from biorag.loop.llm_planner import evidence_block
from biorag.loop.state import LoopState
from biorag.loop.sufficiency import EvidenceCheck, quotable_evidence

if TYPE_CHECKING:
    from biorag.settings import Settings


class Composer:
    """Composes the answer's text; `llm` is called only when prose is generated, so a
    rules-only run never loads the model."""

    def __init__(self, settings: Settings, llm: Callable[[], LLM]):
        self.settings = settings
        self._llm = llm

    def compose(self, state: LoopState, check: EvidenceCheck, ranker: SentenceRanker, ev: TraceEvent) -> Composition:
        """The text and what it used, by the first way that applies; `ev` records how."""
        if not check.sufficient:  # no evidence, or evidence that is not about the question
            ev.decision = "no_evidence" if not state.evidence else "insufficient"
            ev.details = {"mode": "none", "reason": check.reason, **check.figures}
            return Composition()
        structured = state.reading if self.settings.grounding else None
        if structured is not None:
            ev.decision, ev.details = "structured", {"mode": "structured", "explanation": structured.explanation}
            if structured.missing:  # a name the question asks about has no value: not the whole answer
                ev.details["incomplete"] = structured.missing
            if structured.refused:  # the records hold the field but do not answer (a lead)
                ev.details["refused"] = structured.refused
            return Composition(structured.text, structured.used, mode="structured", missing=list(structured.missing),
                               refused=structured.refused)
        if self.settings.generation.mode == "llm":
            return self._generated(state, check, ranker, ev)
        text, used = self._extractive(state, check, ranker, ev)
        return Composition(text, used, mode="extractive")

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

    def _generated(self, state: LoopState, check: EvidenceCheck, ranker: SentenceRanker, ev: TraceEvent) -> Composition:
        """Prose from the model: degenerate output cut, unsupported claims removed; when
        nothing usable is left, the extractive answer stands in for it."""
        block = evidence_block(state.evidence)
        prompt = prompts.generate_prompt(state.question, block)
        msgs = [ChatMessage(role="system", content=prompts.SYSTEM), ChatMessage(role="user", content=prompt)]
        ev.details["mode"] = "llm"
        try:
            g = self.settings.generation
            draft = self._llm().chat(msgs, max_tokens=g.max_tokens, temperature=g.temperature).text
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
            return Composition(text, state.evidence, unsupported, mode="llm")
        text, used = self._extractive(state, check, ranker, ev)
        ev.decision, ev.details["mode"] = "extractive_fallback", "llm"
        return Composition(text, used, unsupported, mode="llm")
