"""`biorag serve` as a user runs it (a subprocess on a free loopback port) with API keys
from the environment and the real agent (embedded preset, NCBI replayed from the bundled
recording): auth on, secrets never in responses or logs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from live_server import ScriptedAgent, free_port, serve, settings_with

ROOT = Path(__file__).resolve().parents[2]
API_KEY = "k3y-Serving-Test-9f2c1d"
LLM_SECRET = "llm-Secret-Do-Not-Echo-77a1"


@pytest.fixture(scope="module")
def cli_server(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    env = dict(os.environ, BIORAG_SERVE__API_KEYS=f'["{API_KEY}", "second-key"]', BIORAG_LLM__API_KEY=LLM_SECRET)
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--preset", "embedded",
             "--log-level", "info"],
            cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"biorag serve did not start:\n{log.read_text()}")
        time.sleep(0.2)
    yield url, log
    proc.terminate()
    proc.wait(20)


def test_the_server_gives_torch_half_the_cores(cli_server):
    """serve.torch_threads=0 (auto): the startup line says what torch reports in the server."""
    from biorag.host.device import available_cores

    _, log = cli_server
    cores = available_cores()
    assert f"torch threads {max(1, cores // 2)} of {cores} cores" in log.read_text()


def test_keys_required_on_api_and_metrics_but_not_probes_or_page(cli_server):
    url, _ = cli_server
    with httpx.Client(base_url=url, timeout=60) as c:
        assert c.get("/healthz").status_code == 200
        assert c.get("/").status_code == 200
        for path in ("/v1/sources", "/metrics", "/v1/search/gene?q=LMP10", "/v1/jobs/nope"):
            r = c.get(path)
            assert r.status_code == 401, path
            assert r.headers["www-authenticate"] == "Bearer"
        assert c.post("/v1/answer", json={"question": "x"}).status_code == 401
        assert c.get("/v1/sources", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/v1/sources", headers={"Authorization": f"Bearer {API_KEY}x"}).status_code == 401
        assert c.get("/v1/sources", headers={"Authorization": f"Bearer {API_KEY}"}).status_code == 200
        assert c.get("/v1/sources", headers={"X-API-Key": "second-key"}).status_code == 200


def test_real_agent_answer_through_the_cli_server_without_leaking_secrets(cli_server):
    url, log = cli_server
    with httpx.Client(base_url=url, timeout=300, headers={"Authorization": f"Bearer {API_KEY}"}) as c:
        r = c.post("/v1/answer", json={"question": "What is the official gene symbol of LMP10?"})
        assert r.status_code == 200, r.text
        ans = r.json()
        assert ans["answer"] == "PSMB10"
        assert [(x["source"], x["id"]) for x in ans["citations"]] == [("gene", "5699")]
        assert [e["step"] for e in ans["trace"]] == ["select", "rewrite", "retrieve", "evaluate", "generate"]
        assert ans["config"]["serve"]["api_keys"] == ["**redacted**", "**redacted**"]
        assert ans["config"]["llm"]["api_key"] == "**redacted**"
        hits = c.get("/v1/search/gene", params={"q": "LMP10", "k": 2}).json()
        assert hits["hits"][0]["id"] == "5699" and len(hits["hits"]) <= 2
        sources = c.get("/v1/sources").json()
        metrics = c.get("/metrics").text
    everything = r.text + str(sources) + metrics + log.read_text()
    assert API_KEY not in everything and "second-key" not in everything and LLM_SECRET not in everything
    assert "/v1/answer" in log.read_text()  # the access log is there, just without secrets


def test_auth_off_by_default():
    with serve(settings_with(), ScriptedAgent) as srv, srv.client() as c:
        assert c.get("/v1/sources").status_code == 200
        assert c.get("/metrics").status_code == 200
