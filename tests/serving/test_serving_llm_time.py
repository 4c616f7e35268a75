"""LLM time under concurrent requests: the real server, the real agent (LLM planner) and the
real OpenAI-compatible client, against a slow model server on 127.0.0.1 that takes a known
time per call, longer for some requests than for others. Every answer's `llm_ms` is its own
calls' time (not the other requests' that shared the model meanwhile), and it is the sum of
its trace events' `llm_ms`, each the time of the calls made in that step."""

from __future__ import annotations

import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from live_server import parse_sse, serve, settings_with

N_ANSWER, N_STREAM = 8, 4
QUESTION = "What is the official gene symbol of LMP10? (request {} of 12)"
#: the slow model's time per call for request i: distinct, so that a request billed for
#: another's calls shows it
BASE_S, STEP_S = 0.15, 0.05
#: The upper bound is the step's own wall time, not the sleep plus a fixed slack: on a
#: loaded two-core CI machine one local call took 357 ms for a 200 ms sleep. A step's
#: calls lie inside the step, so its own calls' time can never exceed its `ms`; time billed
#: from another request's call (each at least BASE_S, overlapping this one's) would.
ROUNDING_MS = 0.1


def sleep_s(i: int) -> float:
    return BASE_S + STEP_S * i


class SlowModel(BaseHTTPRequestHandler):
    """A chat-completions endpoint that answers each planner schema validly, after sleeping
    the time of the request named in the prompt."""

    calls: dict[int, int]
    lock: threading.Lock

    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "slow", "object": "model"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        i = int(re.search(r"request (\d+) of 12", prompt).group(1))
        with self.lock:
            self.calls[i] = self.calls.get(i, 0) + 1
        threading.Event().wait(sleep_s(i))
        schema = (body.get("response_format") or {}).get("json_schema", {}).get("schema", {})
        title = schema.get("title")
        if title == "RetrieverChoice":
            choice = schema["properties"]["retriever"]
            out = {"retriever": choice.get("const") or choice["enum"][0], "reason": "a gene name"}
        elif title == "_RewriteOut":
            out = {"query": "LMP10", "mesh_terms": []}
        elif title == "_VerdictOut":
            out = {"verdict": "YES", "missing": ""}
        else:
            raise AssertionError(f"unexpected call: {title}")
        self._send({"choices": [{"message": {"role": "assistant", "content": json.dumps(out)}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1}})


@contextmanager
def slow_model():
    handler = type("Handler", (SlowModel,), {"calls": {}, "lock": threading.Lock()})
    server_class = type("Server", (ThreadingHTTPServer,), {"request_queue_size": 64, "daemon_threads": True})
    server = server_class(("127.0.0.1", 0), handler)  # backlog 64: 12 clients connect at once
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler.calls
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def _calls(ev: dict) -> int:
    """Model calls a step made, as its trace shows them (the raw output of each)."""
    return len(ev["details"].get("raw", [])) if ev["details"].get("by") == "llm" else 0


def test_llm_ms_is_per_request_under_concurrent_requests(tmp_path):
    with slow_model() as (url, calls):
        settings = settings_with(f"data_dir={tmp_path}", "planner=llm", "max_rounds=2", "llm.backend=openai",
                                 f"llm.base_url={url}", "llm.model=slow", f"serve.max_concurrent={N_ANSWER + N_STREAM}",
                                 disable=["dbsnp", "omim", "blast", "pubmed", "hpo", "geneset"])
        with serve(settings) as srv, srv.client() as c:
            barrier = threading.Barrier(N_ANSWER + N_STREAM)

            def ask(i: int) -> dict:
                barrier.wait(30)  # all requests at once: each run's calls overlap the others'
                if i < N_ANSWER:
                    r = c.post("/v1/answer", json={"question": QUESTION.format(i)})
                    assert r.status_code == 200, r.text
                    return r.json()
                r = c.post("/v1/answer/stream", json={"question": QUESTION.format(i)})
                assert r.status_code == 200, r.text
                events = parse_sse(r.text)
                assert events[-1][0] == "answer"
                answer = json.loads(events[-1][1])
                assert [json.loads(d) for _, d in events[:-1]] == answer["trace"]  # streamed as returned
                return answer

            with ThreadPoolExecutor(N_ANSWER + N_STREAM) as pool:
                answers = list(pool.map(ask, range(N_ANSWER + N_STREAM)))

    for i, a in enumerate(answers):
        trace = a["trace"]
        assert a["answer"] == "PSMB10", a  # the runs did the work: the LLM planned, the record answered
        n = sum(_calls(ev) for ev in trace)
        assert n == calls[i] >= 3, (i, n, calls)  # select, rewrite, evaluate: every call seen in a step
        for ev in trace:  # each step: the time of its own calls, nothing for steps without one
            want = _calls(ev) * sleep_s(i) * 1000
            assert want <= ev["llm_ms"] <= ev["ms"] + ROUNDING_MS, (i, ev["step"], ev["llm_ms"], ev["ms"], want)
            if not _calls(ev):
                assert ev["llm_ms"] == 0, (i, ev)
        llm_ms = a["timings"]["llm_ms"]
        assert llm_ms == pytest.approx(sum(ev["llm_ms"] for ev in trace), abs=0.05 * len(trace) + 0.05)
        # its own calls, not the other requests' (which a shared counter would add in: the
        # shared counter gave request 0 3971 ms in a run of well under a second of its own)
        assert n * sleep_s(i) * 1000 <= llm_ms <= a["timings"]["total_ms"] + ROUNDING_MS, (i, llm_ms, n)
