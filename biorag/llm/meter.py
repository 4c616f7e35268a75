"""LLM time per run and per step, without a shared counter.

One LLM object serves many runs at once (the API's worker threads share it), so a counter
on the LLM cannot say whose time it is. Instead a run opens a `metering()` block and every
model call made inside it, in the same thread or context, adds its milliseconds to the
meters open there. Blocks nest: the agent meters the whole run and, inside it, each step,
so a call counts once for its step and once for the run.

The meters live in a `ContextVar`: each thread (and each asyncio task) sees only the meters
its own run opened. Work handed to another thread carries them only if it is run in a copy
of the caller's context (`contextvars.copy_context().run`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class LLMMeter:
    """Milliseconds of model calls and how many calls, inside one `metering()` block."""

    def __init__(self) -> None:
        self.ms = 0.0
        self.calls = 0
        self._lock = threading.Lock()  # a run may hand copies of its context to threads

    def add(self, ms: float) -> None:
        with self._lock:
            self.ms += ms
            self.calls += 1


_open: ContextVar[tuple[LLMMeter, ...]] = ContextVar("biorag_llm_meters", default=())


@contextmanager
def metering() -> Iterator[LLMMeter]:
    """A fresh meter that receives every model call made inside the block."""
    meter = LLMMeter()
    token = _open.set((*_open.get(), meter))
    try:
        yield meter
    finally:
        _open.reset(token)


def record(ms: float) -> None:
    """Add one call's time to every meter open in this context (none: nothing to do)."""
    for meter in _open.get():
        meter.add(ms)
