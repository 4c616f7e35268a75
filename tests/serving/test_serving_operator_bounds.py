"""Requests stay inside the operator's configuration: overrides that would change hosts,
tool I/O or enable a source the operator disabled get 403 naming the field, while
overrides inside it still apply; the Host header is checked against an allow-list; the
key is checked before the body is parsed; one question limit for API and CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
from live_server import ScriptedAgent, serve, settings_with

ROOT = Path(__file__).resolve().parents[2]
Q = "What is the official gene symbol of LMP10?"


def _recording(seen: dict):
    def factory(s):
        seen["settings"] = s
        return ScriptedAgent(s)
    return factory


def test_a_preset_that_would_go_live_and_elsewhere_is_refused_naming_what_it_would_change():
    seen: dict = {}
    with serve(settings_with(), _recording(seen)) as srv, srv.client() as c:
        r = c.post("/v1/answer", json={"question": Q, "preset": "paper"})
        stream = c.post("/v1/answer/stream", json={"question": Q, "preset": "paper"})
    assert r.status_code == 403 and stream.status_code == 403
    body = r.json()
    assert [f["field"] for f in body["fields"]] == ["body.preset"]
    for changed in ("llm.base_url", "tool_io.mode", "sources.web.enabled", "index.uri"):
        assert changed in body["detail"], body["detail"]
    assert "settings" not in seen  # no agent ever ran with them


def test_overrides_inside_the_operators_configuration_still_apply():
    seen: dict = {}
    with serve(settings_with(), _recording(seen)) as srv, srv.client() as c:
        r = c.post("/v1/answer", json={
            "question": Q, "preset": "embedded", "disable": ["gene", "self_eval"], "enable": ["pubmed"],
            "set": {"sources.omim.enabled": False, "index.mesh_widen": "none", "grounding": False,
                    "sources.dbsnp.top_k": 3}})
        refused = c.post("/v1/answer", json={"question": Q, "enable": ["web"]})
    assert r.status_code == 200, r.text
    s = seen["settings"]
    assert not s.sources["gene"].enabled and not s.sources["omim"].enabled and s.sources["pubmed"].enabled
    assert not s.components.self_eval and s.index.mesh_widen == "none" and not s.grounding
    assert s.sources["dbsnp"].top_k == 3
    assert s.tool_io.mode == "replay" and s.llm.backend == "embedded"  # the operator's, untouched
    assert refused.status_code == 403 and refused.json()["fields"][0]["field"] == "body.enable.0"


def test_a_source_the_operator_enabled_may_be_switched_on_again_but_not_one_it_disabled():
    seen: dict = {}
    with serve(settings_with(enable=["web"], disable=["blast"]), _recording(seen)) as srv, srv.client() as c:
        ok = c.post("/v1/answer", json={"question": Q, "disable": ["web"], "enable": ["web"]})
        blast = c.post("/v1/answer", json={"question": Q, "set": {"sources.blast.enabled": True}})
    assert ok.status_code == 200 and seen["settings"].sources["web"].enabled
    assert blast.status_code == 403
    assert blast.json()["fields"][0]["field"] == "body.set.sources.blast.enabled"
    assert "has not enabled source 'blast'" in blast.json()["detail"]


def _host(c: httpx.Client, host: str) -> int:
    return c.get("/v1/sources", headers={"Host": host}).status_code


def test_host_header_default_allow_list_is_loopback_and_the_bind_host():
    with serve(settings_with("serve.host=biorag.lab.internal"), ScriptedAgent) as srv, srv.client() as c:
        for host in ("localhost", "LOCALHOST:8000", "127.0.0.1", f"127.0.0.1:{srv.port}", "[::1]", "[::1]:8000",
                     "biorag.lab.internal:8000"):
            assert _host(c, host) == 200, host
        for host in ("evil.example", "localhost.evil.example", "127.0.0.2", "[::2]"):
            r = c.get("/v1/sources", headers={"Host": host})
            assert r.status_code == 400 and r.json()["fields"][0]["field"] == "header.host", host
            assert "serve.allowed_hosts" in r.json()["detail"]
        assert c.get("/healthz", headers={"Host": "evil.example"}).status_code == 200  # liveness stays open


def test_host_allow_list_is_configurable_and_star_turns_it_off():
    s = settings_with('serve.allowed_hosts=["api.lab.example", "::1"]')
    with serve(s, ScriptedAgent) as srv, srv.client() as c:
        assert _host(c, "api.lab.example") == 200 and _host(c, "[::1]:80") == 200
        assert _host(c, "localhost") == 400 and _host(c, "127.0.0.1") == 400  # the list replaces the defaults
    with serve(settings_with('serve.allowed_hosts=["*"]'), ScriptedAgent) as srv, srv.client() as c:
        assert _host(c, "anything.example") == 200


def test_authentication_comes_before_the_body_is_parsed():
    s = settings_with('serve.api_keys=["bounds-Key-123456"]', "serve.max_body_bytes=2048")
    with serve(s, ScriptedAgent) as srv, srv.client() as c:
        for content in (b'{"question": ', b'{"question": "\xff"}', b"\x00\x01", json.dumps({"q": "y" * 5000}).encode()):
            r = c.post("/v1/answer", content=content, headers={"Content-Type": "application/json"})
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", r.text
        keyed = {"Authorization": "Bearer bounds-Key-123456", "Content-Type": "application/json"}
        assert c.post("/v1/answer", content=b'{"question": ', headers=keyed).status_code == 422
        assert c.post("/v1/answer", content=b'{"question": "\xff"}', headers=keyed).status_code == 400


def test_cli_search_and_api_share_one_query_limit():
    limit = 50
    with serve(settings_with(f"max_question_chars={limit}"), ScriptedAgent) as srv, srv.client() as c:
        api = c.get("/v1/search/gene", params={"q": "x" * (limit + 1)})
        ans = c.post("/v1/answer", json={"question": "x" * (limit + 1)})
        doc = c.get("/openapi.json").json()
        page = c.get("/").text
    assert api.status_code == 422 and f"limit is {limit}" in api.json()["detail"]
    assert ans.status_code == 422 and f"limit is {limit} (max_question_chars)" in ans.json()["detail"]
    assert ans.json()["fields"][0]["field"] == "body.question"
    # the chat page caps nothing of its own (a maxlength would cut a pasted question silently)
    assert 'id="question"' in page and "maxlength" not in page
    for source in ("gene", "pubmed", "blast", "geneset"):  # a source's own schema stays inside the limit
        q_schema = next(p for p in doc["paths"][f"/v1/search/{source}"]["get"]["parameters"] if p["name"] == "q")
        assert q_schema["schema"]["maxLength"] == limit, source
    assert doc["components"]["schemas"]["AnswerRequest"]["properties"]["question"]["maxLength"] == limit
    r = subprocess.run([sys.executable, "-m", "cli.main", "search", "pubmed", "x" * (limit + 1),
                        "--set", f"max_question_chars={limit}"], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert r.returncode != 0 and f"limit is {limit}" in r.stderr and "Traceback" not in r.stderr
    long = subprocess.run([sys.executable, "-m", "cli.main", "search", "pubmed", "x" * 100_000],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert long.returncode != 0 and "limit is 2000" in long.stderr  # 100 KB was accepted before


def test_a_lone_surrogate_in_a_question_is_422_not_502():
    with serve(settings_with(), ScriptedAgent) as srv, srv.client() as c:
        r = c.post("/v1/answer", content=b'{"question": "which gene \\ud800 is it?"}',
                   headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["fields"][0]["field"] == "body.question"
    assert "U+D800" in r.json()["detail"]
