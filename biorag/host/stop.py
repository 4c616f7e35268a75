"""A stop request that reaches a run's slow calls, not only its step boundaries.

A server stops an agent run past its deadline, or when the client left, by setting an
event the run checks at each step (`serving.runner`). A run that is waiting for a shared
resource (the in-process model's lock, held by another run) would otherwise wait its turn
and hold its slot meanwhile; the waiting call checks `stop_requested()` and gives up
instead. The event is per thread: the run's worker thread marks itself `stoppable`."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_local = threading.local()


def stop_requested() -> bool:
    """Whether the run on this thread has been asked to stop (never, outside a run)."""
    event = getattr(_local, "event", None)
    return event is not None and event.is_set()


@contextmanager
def stoppable(event: threading.Event) -> Iterator[None]:
    """Calls on this thread see `event` as their stop request while the block runs."""
    before = getattr(_local, "event", None)
    _local.event = event
    try:
        yield
    finally:
        _local.event = before
