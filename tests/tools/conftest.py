"""A replay HTTP server on 127.0.0.1 for the tool tests.

It answers E-utilities and BLAST requests from the bundled recording (real NCBI responses),
so the real httpx clients run their live code path (rate limiter, retries, parsing) over
real HTTP. Tests can also script responses per path (e.g. 503 then 200, BLAST WAITING
then READY) and inspect the requests the server saw."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from biorag.settings import load_settings
from retrievers.common.http_store import BUNDLED_CASSETTE, HttpStore, classify


class ReplayServer:
    def __init__(self, store: HttpStore):
        self.store = store
        self.scripted: dict[str, deque] = defaultdict(deque)
        self.requests: list[dict] = []
        self.times: list[float] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep pytest output clean
                pass

            def _answer(self, params: dict) -> None:
                path = urlsplit(self.path).path
                with server.lock:
                    server.requests.append({"path": path, "params": params})
                    server.times.append(time.monotonic())
                    script = server.scripted.get(path)
                    step = script.popleft() if script else None
                if step is not None:
                    status, body, ctype, delay = step
                    if delay:
                        time.sleep(delay)
                else:
                    svc, fn = classify(f"http://127.0.0.1{self.path}")
                    if svc == "blast":
                        fn = params.get("CMD", "")
                    hit = server.store.lookup(svc, fn, params)
                    if hit is None:
                        status, body, ctype = 404, "not recorded", "text/plain"
                    else:
                        status, body, ctype = 200, hit.body, hit.content_type
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", ctype or "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._answer(dict(parse_qsl(urlsplit(self.path).query, keep_blank_values=True)))

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                form = dict(parse_qsl(self.rfile.read(n).decode(), keep_blank_values=True))
                self._answer({**dict(parse_qsl(urlsplit(self.path).query)), **form})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, path: str, *steps: tuple) -> None:
        """Queue responses (status, body, content_type, delay_s) for a path, used in order."""
        for s in steps:
            self.scripted[path].append(s)

    def reset(self) -> None:
        with self.lock:
            self.scripted.clear()
            self.requests.clear()
            self.times.clear()


@pytest.fixture(scope="session")
def recorded_store() -> HttpStore:
    return HttpStore("replay", BUNDLED_CASSETTE)


@pytest.fixture(scope="session")
def _server(recorded_store):
    srv = ReplayServer(recorded_store)
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture()
def server(_server):
    _server.reset()
    yield _server
    _server.reset()


@pytest.fixture()
def live_settings(server, tmp_path: Path):
    """Settings whose NCBI endpoints are the local replay server, tool_io live."""

    def make(**extra):
        over = {
            "tool_io": {"mode": "live"},
            "ncbi": {
                "eutils_url": f"{server.base}/entrez/eutils",
                "blast_url": f"{server.base}/blast/Blast.cgi",
                "backoff_s": 0.01,
                "rate_limit": 1000,
                "timeout_s": 5,
                "blast_poll_s": 0.01,
            },
            "web": {
                "wikipedia_url": f"{server.base}/w/api.php",
                "arxiv_url": f"{server.base}/api/query",
                "crossref_url": f"{server.base}/works",
            },
            "data_dir": str(tmp_path),
        }
        for section, values in extra.items():
            if isinstance(values, dict):
                over.setdefault(section, {}).update(values)
            else:
                over[section] = values
        return load_settings("embedded", overrides=over)

    return make
