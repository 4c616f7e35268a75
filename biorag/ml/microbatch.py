"""Micro-batching: concurrent callers share one call of an expensive batch function.

Why: a query embedding and a Milvus search cost little more for 16 inputs than
for one (the fixed cost per call is Python, torch dispatch and an RPC), so under
concurrency one call for many beats one call each: 4 threads each searching one query at a
time measured *slower* (75 q/s) than one thread (86 q/s).

How: `submit(item)` queues the item and returns a Future. A fixed pool of worker threads
(its size is the bound on concurrent work) takes what is queued. With one worker, everything
waiting when it frees up goes into one batch, up to `max_batch`. With several (a server whose
torch threads leave cores for more than one encoder: retrievers/pubmed/retriever.py), the queue is
dealt out among the workers free to run it, so batches run side by side. A worker waits for
companions only until its share of the items outstanding at once (queued or being run) since
the last batch was taken is queued, at most `max_wait_s`. A lone caller never waits, so
single-thread latency stays what it was; under load the short wait lets callers who come
back a moment after their batch ended (a closed loop of clients) meet in one batch, instead
of settling into halves that take turns.

A bound method `run` is held weakly: the batcher's threads never keep its owner alive (an
index rebuild drops the server's retriever, whose store client closes when it is collected),
and they end once the owner is gone.

`run(items)` returns one result per item, in order; an item's result may be an exception
instance, which fails that item's Future only (one bad query does not fail its batch). If
`run` itself raises, every item of the batch fails with that error.
"""

from __future__ import annotations

import inspect
import os
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Generic, TypeVar

#: how often an idle worker checks whether the batch function's owner still exists
IDLE_CHECK_S = 5.0
T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """Worker threads: the cores, at least 2 (one embeds while another waits on the store)."""
    return max(2, min(8, os.cpu_count() or 2))


@dataclass
class BatchStats:
    batches: int = 0
    items: int = 0
    largest: int = 0
    sizes: list[int] = field(default_factory=list)  # the last 1,000 batch sizes

    def record(self, n: int) -> None:
        self.batches += 1
        self.items += n
        self.largest = max(self.largest, n)
        self.sizes.append(n)
        del self.sizes[:-1000]


class MicroBatcher(Generic[T, R]):
    def __init__(self, run: Callable[[list[T]], list[R | BaseException]], *, max_batch: int = 32,
                 max_wait_s: float = 0.003, workers: int | None = None, name: str = "microbatch"):
        if max_batch < 1:
            raise ValueError("max_batch must be at least 1")
        self._run = weakref.WeakMethod(run) if inspect.ismethod(run) else (lambda: run)
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self.workers = workers or default_workers()
        self.name = name
        self.stats = BatchStats()
        self._cond = threading.Condition()
        self._pending: list[tuple[float, T, Future]] = []
        self._in_flight = 0  # batches being run right now
        self._running = 0  # items in the batches being run
        self._expect = 0  # most items outstanding at once since the last take: companions to expect
        self._threads: list[threading.Thread] = []
        self._closed = False

    def submit(self, item: T) -> Future:
        fut: Future = Future()
        with self._cond:
            if self._closed:
                raise RuntimeError(f"{self.name} is closed")
            if not self._threads:
                self._start()
            self._pending.append((time.monotonic(), item, fut))
            self._expect = max(self._expect, len(self._pending) + self._running)
            self._cond.notify()
        return fut

    def __call__(self, item: T) -> R:
        return self.submit(item).result()

    def _start(self) -> None:
        for i in range(self.workers):
            t = threading.Thread(target=self._work, name=f"{self.name}-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def _take(self) -> list[tuple[float, T, Future]] | None:
        with self._cond:
            while True:
                while not self._pending and not self._closed:
                    if not self._cond.wait(IDLE_CHECK_S) and self._run() is None:
                        return None  # the owner is gone: nothing will ever be submitted
                if not self._pending:
                    return None  # closed and drained
                # companions are likely when more items were outstanding lately than this
                # worker's share of them queued now: those are callers coming back from the
                # last batch, so give them max_wait_s from now (the oldest item may have queued
                # during that batch, long before); a lone caller runs at once
                want = self._share(self._expect)
                deadline = self._pending[0][0] + self.max_wait_s
                if len(self._pending) < want:
                    deadline = max(deadline, time.monotonic() + self.max_wait_s)
                while (self._pending and len(self._pending) < want
                       and not self._closed and time.monotonic() < deadline):
                    self._cond.wait(max(0.0, deadline - time.monotonic()))
                if not self._pending:
                    continue  # another worker took them while this one waited
                # the queue is dealt out among the workers free to run it (all of it with one)
                n = self._share(len(self._pending), self.workers - self._in_flight)
                batch = self._pending[:n]
                del self._pending[:n]
                self._in_flight += 1
                self._running += len(batch)
                self._expect = len(self._pending) + self._running
                self.stats.record(len(batch))
                return batch

    def _share(self, items: int, workers: int | None = None) -> int:
        """One worker's part of `items` dealt among `workers` (default: all of them), at most
        `max_batch`: with one worker, everything."""
        return max(1, min(self.max_batch, -(-items // max(1, workers or self.workers))))

    def _work(self) -> None:
        while True:
            batch = self._take()
            if batch is None:
                return
            try:
                live = [(item, fut) for _, item, fut in batch if fut.set_running_or_notify_cancel()]
                if live:
                    try:
                        results = self._call([item for item, _ in live])
                        if len(results) != len(live):
                            raise RuntimeError(f"{self.name}: {len(results)} results for {len(live)} items")
                    except BaseException as e:  # noqa: BLE001 - the callers get it
                        results = [e] * len(live)
                    for (_, fut), res in zip(live, results, strict=True):
                        if isinstance(res, BaseException):
                            fut.set_exception(res)
                        else:
                            fut.set_result(res)
            finally:
                with self._cond:
                    self._in_flight -= 1
                    self._running -= len(batch)
                    self._cond.notify_all()

    def _call(self, items: list[T]) -> list:
        """The batch function on items (its owner is referenced only during the call, so
        an idle worker's frame holds nothing)."""
        run = self._run()
        if run is None:
            raise RuntimeError(f"{self.name}: its owner was closed")
        return run(items)

    def close(self) -> None:
        """Finish what is queued, then stop the workers."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            threads, self._threads = self._threads, []
        for t in threads:
            if t is not threading.current_thread():
                t.join(timeout=30)
