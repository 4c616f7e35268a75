"""No secret leaves the process: the NCBI key and contact email, an LLM key, API keys.

Upstreams are real HTTP servers on 127.0.0.1 that do what careless upstreams do: NCBI's
"API key invalid" error body echoes the key it was sent (the real shape of that reply),
and an LLM server's 401 echoes the `Authorization: Bearer …` header. The key must reach
neither the trace, `--json`, the `/v1/search` error detail, nor any log line (`biorag -v`
logs every request URL through httpx)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest

from biorag.contracts.errors import LLMError
from biorag.llm.base import ChatMessage
from biorag.llm.openai_compat import OpenAICompatLLM
from biorag.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
NCBI_KEY = "ncbi0Key1Secret2Do3Not4Echo5"
EMAIL = "curator.private@lab.example.org"
MAILTO = "crossref.contact@lab.example.org"
LLM_KEY = "sk-llm-Secret-77a1b2c3d4"
MASK = "**redacted**"


@contextmanager
def upstream(answer) -> Iterator[str]:
    """A threaded HTTP server on 127.0.0.1; `answer(handler, params) -> (status, body)`."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _reply(self, params: dict) -> None:
            status, body = answer(self, params)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._reply(dict(parse_qsl(urlsplit(self.path).query)))

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._reply({})

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def ncbi_echoing_the_key(_handler, params: dict) -> tuple[int, dict]:
    # what eutils.ncbi.nlm.nih.gov answers for a key it does not accept
    return 400, {"error": "API key invalid", "api-key": params.get("api_key", ""), "type": "api-key",
                 "status": "unknown", "email": params.get("email", "")}


def llm_echoing_the_bearer(handler, _params: dict) -> tuple[int, dict]:
    auth = handler.headers.get("Authorization", "")
    return 401, {"error": {"message": f"Incorrect API key provided: {auth}. Check your key.",
                           "type": "invalid_request_error", "code": "invalid_api_key"}}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BIORAG_") or k == "BIORAG_DATA_DIR"}
    return {**env, "PYTHONPATH": str(ROOT), "BIORAG_NCBI__API_KEY": NCBI_KEY, "BIORAG_NCBI__EMAIL": EMAIL,
            "BIORAG_WEB__MAILTO": MAILTO, "BIORAG_LLM__API_KEY": LLM_KEY, **extra}


def _biorag(*args: str, env: dict[str, str], timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], env=env, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def _no_secret(text: str, where: str) -> None:
    for secret in (NCBI_KEY, EMAIL, MAILTO, LLM_KEY):
        assert secret not in text, f"{secret!r} leaked into {where}:\n{text[-3000:]}"


# ---- the scrubber itself ------------------------------------------------------------


SHAPES = [
    "GET https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=gene&term=TP53&api_key=AbC123xyz9&email=a%40b.org",
    '{"error":"API key invalid","api-key":"AbC123xyz9","type":"api-key"}',
    "{'api_key': 'AbC123xyz9', 'tool': 'biorag'}",
    "Incorrect API key provided: Bearer AbC123xyz9. Check your key.",
    "authorization: bearer AbC123xyz9",
    "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
    "X-API-Key: AbC123xyz9",
    "connect to http://admin:AbC123xyz9@db.internal:19530 failed",
    "token=AbC123xyz9&password=AbC123xyz9",
    "PROXY-AUTHORIZATION: Digest AbC123xyz9",
    'headers {"X-Api-Key" = "AbC123xyz9"}',
    "Secret=AbC123xyz9",
]


@pytest.mark.parametrize("text", SHAPES)
def test_scrub_masks_secret_shapes_it_never_saw(text):
    from biorag.contracts.redaction import scrub

    out = scrub(text)
    assert "AbC123xyz9" not in out and "QWxhZGRpbjpvcGVuIHNlc2FtZQ==" not in out and MASK in out


@pytest.mark.parametrize("text", [
    "max_tokens=384 and llm.max_tokens stays", "tokens=12", "bearer mice develop tumours",
    "send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'", "PMID 12345678 (email the authors)",
])
def test_scrub_leaves_ordinary_text_alone(text):
    from biorag.contracts.redaction import scrub

    assert scrub(text) == text


def test_the_cheap_precheck_never_changes_what_is_masked():
    """scrub skips a shape's pass when the text lacks what the pattern needs (a name word, a
    quote or '=', 'bearer', a URL with '@'): the same output as running every pass, on the
    secret shapes above (also upper-cased, and inside abstract text) and on real abstracts,
    which carry 'secretion', 'p = 0.03' and the like."""
    import gzip
    import json

    from biorag.contracts.redaction import _scrub_shapes

    sample = ROOT / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"
    with gzip.open(sample, "rt") as f:
        abstracts = [json.loads(line)["abstract"] for line in f]
    texts = SHAPES + [t.upper() for t in SHAPES] + abstracts
    texts += [f"{a[:300]} {shape} {a[300:600]}" for a, shape in zip(abstracts, SHAPES * 40, strict=False)]
    assert sum("secret" in t.casefold() for t in abstracts) > 10  # the words that defeat a name-only check
    for text in texts:
        assert _scrub_shapes(text, precheck=True) == _scrub_shapes(text, precheck=False), text[:200]


def test_a_whole_response_is_scrubbed_as_each_of_its_strings_would_be():
    """scrub_obj checks a response's strings joined once and returns it untouched when no pass
    could match: the same output as scrubbing every string with every pass, for responses of
    plain abstracts and for ones with a secret shape in one field, in a key, or in a list."""
    import gzip
    import json

    from biorag.contracts.redaction import _scrub_shapes, scrub_obj

    def every_pass(obj):
        if isinstance(obj, str):
            return _scrub_shapes(obj, precheck=False)
        if isinstance(obj, dict):
            return {every_pass(k): every_pass(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [every_pass(v) for v in obj]
        return obj

    sample = ROOT / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"
    with gzip.open(sample, "rt") as f:
        records = [json.loads(line) for line in f][:40]
    plain = {"hits": [{"title": r["title"], "text": r["abstract"], "metadata": {"mesh": ["Alzheimer Disease"], "year": 1999}}
                      for r in records], "ms": 12.5}
    assert scrub_obj(plain) == every_pass(plain) == plain
    for i, shape in enumerate(SHAPES):
        hits = [dict(h) for h in plain["hits"][:4]]
        hits[i % 4] = {**hits[i % 4], "text": hits[i % 4]["text"] + " " + shape}
        for obj in ({"hits": hits}, {shape: 1, "hits": hits[:1]}, {"notes": ["ok", shape.upper()]}):
            out = scrub_obj(obj)
            assert out == every_pass(obj)
            assert "AbC123xyz9" not in json.dumps(out) and "QWxhZGRpbjpvcGVuIHNlc2FtZQ==" not in json.dumps(out)


def test_settings_register_their_secrets_so_any_echo_is_masked():
    from biorag.contracts.redaction import scrub

    load_settings(overrides={"ncbi": {"api_key": "zz-Registered-Key-42", "email": "someone@private.example"}})
    out = scrub("NCBI said: key zz-Registered-Key-42 invalid for someone@private.example!")
    assert "zz-Registered-Key-42" not in out and "someone@private.example" not in out


# ---- echoes of the settings -----------------------------------------------------------


def test_config_redacts_contact_emails_and_keeps_max_tokens_a_number():
    r = _biorag("config", "--set", "llm.max_tokens=512", env=_env())
    assert r.returncode == 0, r.stderr
    cfg = json.loads(r.stdout)
    assert cfg["llm"]["max_tokens"] == 512  # "token" no longer masks it by substring
    assert cfg["ncbi"]["email"] == MASK and cfg["web"]["mailto"] == MASK
    assert cfg["ncbi"]["api_key"] == MASK and cfg["llm"]["api_key"] == MASK
    assert cfg["llm"]["context_size"] and cfg["index"]["token"] is None
    _no_secret(r.stdout + r.stderr, "biorag config")


# ---- an NCBI error that echoes the key --------------------------------------------------


def test_verbose_cli_logs_and_errors_carry_no_ncbi_key():
    with upstream(ncbi_echoing_the_key) as base:
        r = _biorag("-v", "tool", "gene", "LMP10", "--json", "--set", "tool_io.mode=live",
                    "--set", f"ncbi.eutils_url={base}/eutils", "--set", "ncbi.retries=0", env=_env())
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "HTTP 400" in out and "API key invalid" in out  # the error got through
    assert "HTTP Request: GET" in r.stderr and "api_key=**redacted**" in r.stderr  # so did the httpx log line
    _no_secret(out, "biorag -v tool gene")


@pytest.mark.llm
def test_ask_json_trace_carries_no_ncbi_key():
    with upstream(ncbi_echoing_the_key) as base:
        r = _biorag("-v", "ask", "What is the official gene symbol of LMP10?", "--json",
                    "--set", "tool_io.mode=live", "--set", f"ncbi.eutils_url={base}/eutils",
                    "--set", "ncbi.retries=0", "--set", "planner=rules", "--set", "max_rounds=1",
                    "--disable", "pubmed", "--disable", "self_eval", env=_env())
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    failed = [e for e in answer["trace"] if e["step"] == "retrieve" and not e["ok"]]
    assert failed and "API key invalid" in failed[0]["error"]  # the upstream's words are kept...
    _no_secret(r.stdout + r.stderr, "biorag -v ask --json")  # ...without its echo of the key


def test_search_api_error_detail_and_server_log_carry_no_ncbi_key(caplog):
    sys.path.insert(0, str(ROOT / "tests" / "serving"))
    from live_server import serve

    caplog.set_level(logging.DEBUG)
    with upstream(ncbi_echoing_the_key) as base:
        settings = load_settings(preset="embedded", sets=[
            "tool_io.mode=live", f"ncbi.eutils_url={base}/eutils", "ncbi.retries=0",
            f'ncbi.api_key="{NCBI_KEY}"', f'ncbi.email="{EMAIL}"'])
        with serve(settings) as srv, srv.client() as c:
            r = c.get("/v1/search/gene", params={"q": "LMP10"})
            sources = c.get("/v1/sources")
    assert r.status_code == 502 and "API key invalid" in r.json()["detail"]
    _no_secret(r.text + sources.text, "the /v1/search error")
    log = "\n".join(rec.getMessage() for rec in caplog.records)
    assert "request failed" in log and "HTTP Request: GET" in log  # our warning and httpx's line
    _no_secret(log, "the server log")


# ---- an LLM server's 401 that echoes the bearer token ---------------------------------


def test_llm_401_echoing_the_bearer_token_is_scrubbed():
    with upstream(llm_echoing_the_bearer) as base:
        llm = OpenAICompatLLM(base_url=f"{base}/v1", model="m", api_key="sk-unregistered-9f8e7d6c")
        with pytest.raises(LLMError) as err:
            llm.chat([ChatMessage(role="user", content="hi")])
        r = _biorag("ask", "What is the official gene symbol of LMP10?", "--set", "llm.backend=openai",
                    "--set", f"llm.base_url={base}/v1", "--set", "planner=llm", env=_env())
    assert "HTTP 401" in str(err.value) and "Bearer **redacted**" in str(err.value)
    assert "sk-unregistered-9f8e7d6c" not in str(err.value)  # a key no settings registered: by shape
    assert r.returncode != 0 and "HTTP 401" in r.stderr and "Traceback" not in r.stderr
    _no_secret(r.stdout + r.stderr, "biorag ask against a 401 LLM")
