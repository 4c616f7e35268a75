"""One newcomer agent (rules planner, the session's gene and HPO stores, no LLM) for the
whole suite, its answers memoised by question: relations share base questions."""

from __future__ import annotations

import pytest

from tests.agents import newcomer_agent


class Asker:
    def __init__(self, agent):
        self.agent = agent
        self.answers: dict[str, str] = {}
        self.asked = 0  # distinct questions answered by the agent

    def __call__(self, question: str) -> str:
        if question not in self.answers:
            self.answers[question] = self.agent.answer(question).answer
            self.asked += 1
        return self.answers[question]


@pytest.fixture(scope="session")
def ask(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as agent:
        asker = Asker(agent)
        yield asker
        print(f"\nmetamorphic suite: {asker.asked} distinct questions answered")
