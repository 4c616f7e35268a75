"""The planner interface: a planner decides steps 1, 2 and 4 of the loop (which source, what
query, whether the evidence suffices) and says so in typed decisions (`Selection`, `Rewrite`,
`Verdict`). It raises `PlanExhausted` when it has nothing left to try and lets
`StructuredOutputError` through when the model's output does not validate: the agent records
either in the trace; nothing is silently defaulted."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Literal

from biorag.loop.state import LoopState


class PlanExhausted(Exception):
    """No retriever left that could add anything."""


@dataclass
class Selection:
    """Step 1's decision: the source, why, who decided, and the query a rules decision
    planned with it (None: the rewrite step writes the query)."""

    retriever: str
    reason: str
    by: Literal["rules", "llm"]
    raw: list[str] = field(default_factory=list)
    query: str | None = None


@dataclass
class Rewrite:
    query: str
    mesh_terms: list[str]
    by: Literal["rules", "llm", "none"]
    raw: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    """Step 4's verdict: whether the evidence suffices, what is missing, who said so (the
    agent's evidence guard may overrule a planner's YES)."""

    sufficient: bool
    missing: str
    by: Literal["rules", "llm", "evidence_guard", "reading"]
    raw: list[str] = field(default_factory=list)


class Planner(ABC):
    name: str

    @abstractmethod
    def select(self, state: LoopState) -> Selection: ...

    @abstractmethod
    def rewrite(self, state: LoopState, selection: Selection, with_mesh: bool) -> Rewrite: ...

    @abstractmethod
    def evaluate(self, state: LoopState) -> Verdict: ...
