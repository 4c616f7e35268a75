"""An agent set up as a newcomer has it after `biorag data gene-store build` and
`biorag data hpo-store build` (local stores, no PubMed index), closed when done: what the
understanding and gene-set tests that ask whole questions share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from application.engine import build_agent
from biorag.loop.agent import Agent
from biorag.settings import load_settings


@contextmanager
def newcomer_agent(data_dir: Path, planner: str = "rules", settings: dict | None = None) -> Iterator[Agent]:
    """`settings`: further overrides, nested as in a preset ({"geneset": {...}})."""
    agent = build_agent(load_settings(overrides={"data_dir": str(data_dir), "planner": planner, **(settings or {})}))
    try:
        yield agent
    finally:
        for r in agent.retrievers.values():
            r.close()
        if agent.lexicon is not None:
            agent.lexicon.close()
