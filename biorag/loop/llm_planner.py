"""The LLM planner (the BioRAG paper's set-up): the model reads the tool manuals and answers
in JSON under schema-constrained decoding. It chooses only among the sources that accept what
the question names (`admissible`), free-text sources always among them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, create_model

from biorag.contracts.models import Evidence
from biorag.llm.base import LLM, ChatMessage
from biorag.loop import prompts
from biorag.loop.plans import PlanExhausted, Planner, Rewrite, Selection, Verdict
from biorag.loop.rules_planner import admissible, unknown_name_step
from biorag.loop.state import LoopState


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
        return Selection(out.retriever, out.reason, "llm", raw)

    def rewrite(self, state: LoopState, selection: Selection, with_mesh: bool) -> Rewrite:
        retriever = selection.retriever
        r = state.retrievers[retriever]
        prompt = prompts.rewrite_prompt(state.question, retriever, r.query_format, state.notes, with_mesh)
        out, raw = self.llm.structured(self._messages(prompt), _RewriteOut, max_tokens=160)
        return Rewrite(out.query.strip(), out.mesh_terms if with_mesh else [], "llm", raw)

    def evaluate(self, state: LoopState) -> Verdict:
        block = evidence_block(state.evidence, self.evidence_chars)
        out, raw = self.llm.structured(self._messages(prompts.evaluate_prompt(state.question, block)), _VerdictOut, max_tokens=96)
        return Verdict(out.verdict == "YES", out.missing, "llm", raw)
