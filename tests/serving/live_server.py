"""Helpers for the serving tests: a real uvicorn server on 127.0.0.1 (free port) in a thread of the test process, plus
small agents that script the loop's *mechanics* (event order, blocking, failures). The
tests that need a real answer use the real agent (see test_real_agent.py)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx
import uvicorn

from biorag.contracts.errors import LLMError
from biorag.contracts.models import Answer, Citation, TraceEvent
from biorag.settings import Settings, load_settings
from serving import create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, app):
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)

    def client(self, **kw) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60, **kw)


@contextmanager
def serve(settings: Settings, agent_factory: Callable | None = None) -> Iterator[LiveServer]:
    srv = LiveServer(create_app(settings, agent_factory=agent_factory)).start()
    try:
        yield srv
    finally:
        srv.stop()


def settings_with(*sets: str, disable=(), enable=()) -> Settings:
    return load_settings(preset="embedded", sets=list(sets), disable=list(disable), enable=list(enable))


STEPS = ["select", "rewrite", "retrieve", "evaluate", "generate"]


class ScriptedAgent:
    """Emits the five steps of one round; optionally waits on `gate` after the first
    event, so a test can prove events reach the client while the run is still going."""

    def __init__(self, settings: Settings, gate: threading.Event | None = None, delay: float = 0.0):
        self.settings = settings
        self.gate = gate
        self.delay = delay

    def answer(self, question: str, on_event=None) -> Answer:
        trace = []
        for i, step in enumerate(STEPS):
            ev = TraceEvent(step=step, round=1, retriever="gene" if step in ("select", "rewrite", "retrieve") else None,
                            query="LMP10" if step in ("rewrite", "retrieve") else None,
                            hits=["gene:5699"] if step == "retrieve" else [], ms=1.0)
            trace.append(ev)
            if on_event:
                on_event(ev)
            if i == 0 and self.gate is not None and not self.gate.wait(30):
                raise RuntimeError("gate never opened")
            time.sleep(self.delay)
        return Answer(question=question, answer="PSMB10 [gene:5699]", rounds=1, sufficient=True,
                      citations=[Citation(source="gene", id="5699", title="PSMB10")], trace=trace,
                      config=self.settings.redacted())


class FailingAgent:
    def __init__(self, settings: Settings):
        self.settings = settings

    def answer(self, question: str, on_event=None) -> Answer:
        on_event(TraceEvent(step="select", round=1, retriever="gene"))
        raise LLMError("LLM endpoint http://127.0.0.1:9/v1 is not reachable: connection refused")


def parse_sse(text: str) -> list[tuple[str, str]]:
    out = []
    for block in text.split("\n\n"):
        event, data = None, []
        for line in block.splitlines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if event:
            out.append((event, "\n".join(data)))
    return out
