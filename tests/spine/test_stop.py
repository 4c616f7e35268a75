"""A stopped run stops waiting for the in-process model: a run past its deadline must not
queue behind another run's model call and hold its server slot meanwhile."""

from __future__ import annotations

import threading
import time

import pytest

from biorag.contracts.errors import LLMError
from biorag.host.stop import stop_requested, stoppable
from biorag.llm.base import ChatMessage
from biorag.llm.embedded import EmbeddedLlamaCpp, bundled_gguf


def test_a_stop_request_is_seen_only_on_the_thread_of_its_run():
    event, seen = threading.Event(), {}
    event.set()

    def other():
        seen["other"] = stop_requested()

    with stoppable(event):
        seen["run"] = stop_requested()
        t = threading.Thread(target=other)
        t.start()
        t.join()
    seen["after"] = stop_requested()
    assert seen == {"run": True, "other": False, "after": False}


@pytest.mark.llm
def test_a_stopped_run_gives_up_its_turn_at_the_model():
    llm = EmbeddedLlamaCpp(bundled_gguf(), context_size=512, max_tokens=4)
    _, lock = llm._model()  # the real model and the lock every run in this process shares
    event, outcome = threading.Event(), {}

    def run():
        with stoppable(event):
            t = time.monotonic()
            try:
                llm._complete([ChatMessage(role="user", content="Say yes.")], None, 4, 0.0)
                outcome["result"] = "answered"
            except LLMError as e:
                outcome["result"] = str(e)
            outcome["s"] = time.monotonic() - t

    with lock:  # another run is using the model
        worker = threading.Thread(target=run)
        worker.start()
        time.sleep(0.5)
        event.set()  # the deadline passes
        worker.join(5)
        assert not worker.is_alive(), "the stopped run kept waiting for the model"
    assert "stopped" in outcome["result"] and outcome["s"] < 2
    # not stopped: the same call is answered once the model is free
    event.clear()
    run()
    assert outcome["result"] == "answered"
