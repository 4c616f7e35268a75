"""A question that asks a record and the literature at once (`biorag.understanding.two_asks`):
each part answered on its own run of the loop, then joined."""

from __future__ import annotations

import time
from collections.abc import Callable

from biorag.contracts.models import Answer, Timings, TraceEvent

EventSink = Callable[[TraceEvent], None]


def answer_in_parts(answer: Callable[[str, EventSink | None], Answer], question: str, parts: list[str],
                    on_event: EventSink | None) -> Answer:
    """The first part's answer first, each later one after its question; sufficient only when
    every part is."""
    t0 = time.perf_counter()
    answers = [answer(part, on_event) for part in parts]
    text = "\n".join([answers[0].answer] + [f"{part} {a.answer}" for part, a in zip(parts[1:], answers[1:], strict=True)])
    citations = list({(c.source, c.id): c for a in answers for c in a.citations}.values())
    return Answer(question=question, answer=text, citations=citations, rounds=sum(a.rounds for a in answers),
                  sufficient=all(a.sufficient for a in answers), best_attempt=any(a.best_attempt for a in answers),
                  unsupported_claims=[c for a in answers for c in a.unsupported_claims],
                  trace=[e for a in answers for e in a.trace], config=answers[0].config,
                  timings=Timings(total_ms=round((time.perf_counter() - t0) * 1000, 1),
                                  llm_ms=round(sum(a.timings.llm_ms for a in answers), 1)))
