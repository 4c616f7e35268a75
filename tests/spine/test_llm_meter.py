"""Model time goes to the run that made the call: nested meters (a run and its steps), other
threads' calls kept out, a failed call counted, work handed to a thread counted only when
it runs in a copy of the run's context."""

from __future__ import annotations

import contextvars
import threading
import time

import pytest

from biorag.contracts.errors import LLMError
from biorag.llm.base import LLM, ChatMessage, LLMReply
from biorag.llm.meter import metering

HI = [ChatMessage(role="user", content="hi")]


class Sleepy(LLM):
    """A model that takes a known time per call (and can fail after it)."""

    identity = "sleepy"

    def __init__(self, seconds: float, fail: bool = False):
        super().__init__()
        self.seconds, self.fail = seconds, fail

    def _complete(self, messages, json_schema, max_tokens, temperature):
        time.sleep(self.seconds)
        if self.fail:
            raise LLMError("model went away")
        return LLMReply(text="ok", ms=0.0)


def test_nested_meters_each_see_their_own_calls():
    llm = Sleepy(0.05)
    llm.chat(HI)  # outside any run: nobody's
    with metering() as run:
        with metering() as first:
            llm.chat(HI)
        with metering() as second:
            llm.chat(HI)
            llm.chat(HI)
    assert (first.calls, second.calls, run.calls) == (1, 2, 3)
    assert first.ms >= 50 and second.ms >= 100 and run.ms == pytest.approx(first.ms + second.ms)


def test_other_threads_calls_are_not_this_runs():
    llm = Sleepy(0.2)  # one model shared, as on the server
    mine: dict[str, float] = {}
    start = threading.Barrier(4)

    def run(name: str, calls: int) -> None:
        start.wait()
        with metering() as m:
            for _ in range(calls):
                llm.chat(HI)
        mine[name] = m.ms

    threads = [threading.Thread(target=run, args=(f"r{i}", i + 1)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for i in range(4):  # about its own calls' time, far from the 2 s all four spent together
        assert 200 * (i + 1) <= mine[f"r{i}"] < 200 * (i + 1) + 150


def test_a_failed_call_is_counted_and_handed_work_only_in_a_copied_context():
    with metering() as run:
        with pytest.raises(LLMError):
            Sleepy(0.05, fail=True).chat(HI)
        failed = run.ms
        plain = threading.Thread(target=Sleepy(0.05).chat, args=(HI,))  # a fresh context: not this run's
        plain.start()
        plain.join()
        ctx = contextvars.copy_context()
        copied = threading.Thread(target=ctx.run, args=(Sleepy(0.05).chat, HI))
        copied.start()
        copied.join()
    assert failed >= 50 and run.calls == 2 and run.ms >= 100
