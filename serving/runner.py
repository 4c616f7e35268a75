"""Agent runs off the event loop, bounded, with a deadline.

- A fixed number of slots (`serve.max_concurrent`); a request that finds none free is
  refused at once (429 + Retry-After) rather than queued without bound.
- Each run executes in a worker thread of a pool exactly as large as the slot count. The
  agent calls `on_event` synchronously per trace step; the run forwards each event to
  the event loop through an asyncio queue, so the SSE endpoint streams steps as they
  happen.
- The deadline (`serve.request_timeout_s`) ends the *response*; the run itself is asked
  to stop by raising `RunCancelled` from its next `on_event` call. Its slot is released
  only when the thread really finishes, so the bound holds for real work.
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from application.engine import AgentFactory
from biorag.contracts.models import Answer, TraceEvent
from biorag.host.stop import stoppable
from biorag.settings import Settings
from serving.errors import ServiceBusy
from serving.metrics import Metrics


class RunCancelled(Exception):
    """Raised inside the worker (from on_event) to stop a run whose client is gone or late."""


DONE = object()


class Run:
    """One agent run: its event queue (loop side) and its future."""

    def __init__(self, loop: asyncio.AbstractEventLoop, deadline_s: float, metrics: Metrics):
        self.loop = loop
        self.queue: asyncio.Queue = asyncio.Queue()
        self.deadline = time.monotonic() + deadline_s
        self.deadline_s = deadline_s
        self.cancelled = threading.Event()
        self.future: asyncio.Future | None = None
        self._metrics = metrics

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def cancel(self) -> None:
        self.cancelled.set()

    def on_event(self, ev: TraceEvent) -> None:
        """Called by the agent in the worker thread, once per trace step."""
        if self.cancelled.is_set():
            raise RunCancelled("run cancelled")
        self._metrics.observe_event(ev)
        self.loop.call_soon_threadsafe(self.queue.put_nowait, ev)


class AgentRunner:
    def __init__(self, agent_for: AgentFactory, metrics: Metrics, max_concurrent: int,
                 timeout_s: float, retry_after_s: int):
        self._agent_for = agent_for
        self._metrics = metrics
        self.max_concurrent = max_concurrent
        self.timeout_s = timeout_s
        self.retry_after_s = retry_after_s
        self._executor = ThreadPoolExecutor(max_workers=max_concurrent, thread_name_prefix="biorag-agent")
        self._lock = threading.Lock()
        self._busy = 0

    @property
    def busy(self) -> int:
        return self._busy

    def _acquire(self) -> bool:
        with self._lock:
            if self._busy >= self.max_concurrent:
                return False
            self._busy += 1
        self._metrics.running.inc()
        return True

    def _release(self, fut: Any = None) -> None:
        if fut is not None and not fut.cancelled():
            fut.exception()  # mark it retrieved: an abandoned run's error is expected, not news
        with self._lock:
            self._busy -= 1
        self._metrics.running.dec()

    def start(self, settings: Settings, question: str, timeout_s: float | None = None) -> Run:
        """Begin a run, or raise ServiceBusy when every slot is taken; `timeout_s`, when
        given, is a shorter deadline than the runner's own (the chat API's)."""
        if not self._acquire():
            self._metrics.rejected.inc()
            raise ServiceBusy(self.retry_after_s)
        loop = asyncio.get_running_loop()
        run = Run(loop, min(self.timeout_s, timeout_s or self.timeout_s), self._metrics)
        try:
            run.future = loop.run_in_executor(self._executor, self._work, run, settings, question)
        except BaseException:
            self._release()
            raise
        run.future.add_done_callback(self._release)
        # After every event the worker queued (loop callbacks run in order), mark the end.
        run.future.add_done_callback(lambda _f: run.queue.put_nowait(DONE))
        return run

    def _work(self, run: Run, settings: Settings, question: str) -> Answer:
        agent = self._agent_for(settings)
        with stoppable(run.cancelled):  # a stopped run also stops waiting for the model
            answer = agent.answer(question, on_event=run.on_event)
        self._metrics.observe_answer(answer)
        return answer

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
