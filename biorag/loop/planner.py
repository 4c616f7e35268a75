"""Planners decide steps 1, 2 and 4 of the loop: which retriever, what query, and whether
the evidence suffices. Three implementations behind one interface (`planner` setting):

- `llm`: the paper's set-up, the model reads the tool manuals and answers in JSON under
  schema-constrained decoding.
- `rules`: the recognised answer field's hops decide (biorag.understanding.analysis), then any
  source that accepts a recognised entity, then the free-text sources in settings order;
  deterministic, a natural ablation baseline.
- `hybrid`: rules when they recognise an answer field or an entity with confidence, the
  LLM otherwise.

Whichever decides, a source is only ever offered what it accepts (its declared entity
kinds, biorag.contracts.sources): the LLM chooses among the sources whose kinds occur in the
question, free-text sources always among them, so a gene question never reaches a
sequence search and a free-text question only reaches literature and web search.

The interface and its typed decisions are in `biorag.loop.plans`; each planner has a
module of its own (`rules_planner`, `llm_planner`); the hybrid one and the factory are here.
"""

from __future__ import annotations

from biorag.llm.base import LLM
from biorag.loop.llm_planner import LLMPlanner
from biorag.loop.plans import Planner, Rewrite, Selection, Verdict
from biorag.loop.rules_planner import RulesPlanner
from biorag.loop.state import LoopState


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

    def rewrite(self, state: LoopState, selection: Selection, with_mesh: bool) -> Rewrite:
        if selection.by == "rules":
            return self.rules.rewrite(state, selection, with_mesh)
        return self.llm.rewrite(state, selection, with_mesh)

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
