"""Streaming, concurrency, deadlines, limits and input errors against a real uvicorn
server; the agent here is scripted so each mechanism can be forced deterministically."""

from __future__ import annotations

import json
import threading
import time

import httpx
from live_server import STEPS, FailingAgent, ScriptedAgent, parse_sse, serve, settings_with

from biorag.contracts.models import Answer


def test_answer_returns_the_ask_json_object(scripted_server):
    with scripted_server.client() as c:
        r = c.post("/v1/answer", json={"question": "What is the official gene symbol of LMP10?"})
    assert r.status_code == 200
    ans = Answer.model_validate(r.json())
    assert ans.answer.startswith("PSMB10") and [e.step for e in ans.trace] == STEPS


def test_sse_streams_each_step_while_the_run_is_going_then_the_answer():
    gate = threading.Event()
    with serve(settings_with(), lambda s: ScriptedAgent(s, gate=gate)) as srv, srv.client() as c:
        events = []
        with c.stream("POST", "/v1/answer/stream", json={"question": "LMP10?"}) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            buf = ""
            for chunk in r.iter_text():
                buf += chunk
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    events.extend(parse_sse(block + "\n\n"))
                    if len(events) == 1:
                        # the agent is blocked after its first step: the event arrived live
                        assert not gate.is_set()
                        gate.set()
    names = [e for e, _ in events]
    assert names == ["trace"] * 5 + ["answer"]
    assert [json.loads(d)["step"] for _, d in events[:5]] == STEPS
    final = json.loads(events[-1][1])
    assert final["answer"].startswith("PSMB10") and final["trace"][2]["hits"] == ["gene:5699"]


def test_busy_server_answers_429_with_retry_after_then_recovers():
    gate = threading.Event()
    s = settings_with("serve.max_concurrent=1", "serve.retry_after_s=7")
    with serve(s, lambda st: ScriptedAgent(st, gate=gate)) as srv, srv.client() as c:
        first: dict = {}

        def occupy():
            first["r"] = c.post("/v1/answer", json={"question": "one"})

        t = threading.Thread(target=occupy)
        t.start()
        deadline = time.monotonic() + 10
        while srv.app.state.runner.busy < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        chat = {"model": "biorag-embedded", "messages": [{"role": "user", "content": "five"}]}
        with srv.client() as c2:
            busy = c2.post("/v1/answer", json={"question": "two"})
            busy_stream = c2.post("/v1/answer/stream", json={"question": "three"})
            busy_chat = c2.post("/v1/chat/completions", json=chat)
            busy_chat_stream = c2.post("/v1/chat/completions", json={**chat, "stream": True})
        gate.set()
        t.join(30)
        assert busy.status_code == 429 and busy.headers["retry-after"] == "7"
        assert "slots" in busy.json()["detail"]
        assert busy_stream.status_code == 429 and busy_stream.headers["retry-after"] == "7"
        # the chat API shares the slots and the status, in OpenAI's error shape
        for r in (busy_chat, busy_chat_stream):
            assert r.status_code == 429 and r.headers["retry-after"] == "7", r.text
            assert r.json()["error"]["type"] == "rate_limit_error" and "slots" in r.json()["error"]["message"]
        assert first["r"].status_code == 200
        again = c.post("/v1/answer", json={"question": "four"})
        assert again.status_code == 200
        assert c.post("/v1/chat/completions", json=chat).status_code == 200
        metrics = c.get("/metrics").text
        assert "biorag_agent_runs_rejected_total 4.0" in metrics


def test_a_source_never_built_is_404_naming_its_build_command(scripted_server):
    """The HPO store is not built in the tests' private data dir: not available on this
    server, which retrying does not change (not a 5xx)."""
    with scripted_server.client() as c:
        r = c.get("/v1/search/hpo", params={"q": "seizures"})
    assert r.status_code == 404, r.text
    assert r.json()["error"] == "not available on this server"
    assert "biorag data hpo-store build" in r.json()["detail"]


def test_overrides_may_lower_the_operators_limits_never_raise_them():
    s = settings_with("max_rounds=3", "sources.gene.top_k=4")
    seen: list = []

    def agent(st):
        seen.append(st)
        return ScriptedAgent(st)

    with serve(s, agent) as srv, srv.client() as c:
        doc = c.get("/openapi.json").json()["components"]["schemas"]
        over = [c.post("/v1/answer", json={"question": "q", **extra}) for extra in (
            {"max_rounds": 4}, {"set": {"max_rounds": 4}}, {"set": {"sources.gene.top_k": 5}})]
        under = c.post("/v1/answer", json={"question": "q", "max_rounds": 2, "top_k": 10})
    assert [r.status_code for r in over] == [422, 422, 422]
    assert [r.json()["fields"][0]["field"] for r in over] == [
        "body.max_rounds", "body.set.max_rounds", "body.set.sources.gene.top_k"]
    # the document states the maximums, so a client (or a fuzzer) knows them
    assert doc["AnswerRequest"]["properties"]["max_rounds"]["anyOf"][0]["maximum"] == 3
    assert doc["SetOverrides"]["properties"]["sources.gene.top_k"]["maximum"] == 4
    # top_k for every source is capped at each source's own: it lowers pubmed's 4 nowhere
    assert under.status_code == 200
    assert seen[-1].max_rounds == 2 and seen[-1].sources["gene"].top_k == 4
    assert seen[-1].sources["pubmed"].top_k == s.sources["pubmed"].top_k


def test_deadline_gives_504_and_the_stream_an_error_event():
    s = settings_with("serve.request_timeout_s=0.5")
    with serve(s, lambda st: ScriptedAgent(st, delay=0.4)) as srv, srv.client() as c:
        r = c.post("/v1/answer", json={"question": "slow"})
        assert r.status_code == 504 and "deadline" in r.json()["detail"]
        time.sleep(0.5)  # let the cancelled run notice and release its slot
        r = c.post("/v1/answer/stream", json={"question": "slow"})
        events = parse_sse(r.text)
        assert events[-1][0] == "error" and json.loads(events[-1][1])["status"] == 504
        assert all(e == "trace" for e, _ in events[:-1])


def test_llm_failure_is_a_502_with_the_reason_and_an_error_event():
    with serve(settings_with(), FailingAgent) as srv, srv.client() as c:
        r = c.post("/v1/answer", json={"question": "x?"})
        assert r.status_code == 502 and r.json()["error"] == "LLMError"
        assert "not reachable" in r.json()["detail"]
        events = parse_sse(c.post("/v1/answer/stream", json={"question": "x?"}).text)
        assert [e for e, _ in events] == ["trace", "error"]
        assert json.loads(events[1][1])["status"] == 502


def _fields(r: httpx.Response, status: int = 422) -> list[str]:
    """The fields an error names, after checking the status and the one error shape."""
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error", "detail", "fields"} and isinstance(body["detail"], str), body
    return [d["field"] for d in body["fields"]]


def test_bad_input_is_422_naming_the_field(scripted_server):
    with scripted_server.client() as c:
        bad_json = c.post("/v1/answer", content=b'{"question": "x",', headers={"content-type": "application/json"})
        assert _fields(bad_json) == ["body"] and "malformed JSON" in bad_json.json()["detail"]
        assert _fields(c.post("/v1/answer", json={})) == ["body.question"]
        assert _fields(c.post("/v1/answer", json={"question": "x", "colour": 1})) == ["body.colour"]
        assert _fields(c.post("/v1/answer", json={"question": "   "})) == ["body.question"]
        assert _fields(c.post("/v1/answer", json={"question": "x", "top_k": 0})) == ["body.top_k"]
        assert _fields(c.post("/v1/answer", json={"question": "x", "max_rounds": 99})) == ["body.max_rounds"]
        r = c.post("/v1/answer", json={"question": "x", "disable": ["gene", "genes"]})
        assert _fields(r) == ["body.disable.1"] and "'self_eval'" in r.json()["fields"][0]["message"]
        assert _fields(c.post("/v1/answer", json={"question": "x", "enable": ["wikipedia"]})) == ["body.enable.0"]
        assert _fields(c.post("/v1/answer", json={"question": "x", "preset": "../../etc/passwd"})) == ["body.preset"]
        # a request may not point the server at other hosts or files: 403, naming the field
        r = c.post("/v1/answer", json={"question": "x", "set": {"llm.base_url": "http://evil.example/v1"}})
        assert _fields(r, 403) == ["body.set.llm.base_url"]
        assert _fields(c.post("/v1/answer", json={"question": "x", "set": {"tool_io.cassette": "/etc/passwd"}}),
                       403) == ["body.set.tool_io.cassette"]
        assert _fields(c.post("/v1/answer", json={"question": "x", "set": {"colour": 1}})) == ["body.set.colour"]
        r = c.post("/v1/answer", json={"question": "x", "set": {"sources.gene.top_k": 1000}})
        assert _fields(r) == ["body.set.sources.gene.top_k"]
        # search parameters
        assert _fields(c.get("/v1/search/proteome?q=TP53")) == ["path.source"]  # no such source
        assert _fields(c.get("/v1/search/gene?q=TP53&k=0")) == ["query.k"]
        assert _fields(c.get("/v1/search/gene?q=TP53&k=101")) == ["query.k"]
        assert _fields(c.get("/v1/search/gene")) == ["query.q"]
        assert _fields(c.get("/v1/search/web?q=TP53")) == ["path.source"]  # disabled in the embedded preset


def test_valid_overrides_reach_the_agent():
    seen = {}

    def factory(s):
        seen["settings"] = s
        return ScriptedAgent(s)

    with serve(settings_with(), factory) as srv, srv.client() as c:
        r = c.post("/v1/answer", json={"question": "x", "disable": ["pubmed", "self_eval"], "top_k": 3,
                                       "max_rounds": 2, "set": {"planner": "rules"}})
        assert r.status_code == 200
    s = seen["settings"]
    assert not s.sources["pubmed"].enabled and not s.components.self_eval
    assert s.sources["gene"].top_k == 3 and s.max_rounds == 2 and s.planner == "rules"
    assert r.json()["config"]["max_rounds"] == 2


def test_size_limits():
    s = settings_with("serve.max_body_bytes=2048", "max_question_chars=100")
    with serve(s, ScriptedAgent) as srv, srv.client() as c:
        r = c.post("/v1/answer", json={"question": "x" * 101})
        assert _fields(r) == ["body.question"] and "limit is 100" in r.json()["detail"]
        big = json.dumps({"question": "y" * 5000}).encode()
        assert c.post("/v1/answer", content=big, headers={"content-type": "application/json"}).status_code == 413

        def chunks():  # no Content-Length: the limit still holds
            for i in range(0, len(big), 512):
                yield big[i:i + 512]

        r = c.post("/v1/answer", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413 and "exceeds 2048 bytes" in r.json()["detail"]

        def small():
            yield b'{"question": '
            yield b'"LMP10?"}'

        assert c.post("/v1/answer", content=small(), headers={"content-type": "application/json"}).status_code == 200


def test_cors_closed_by_default_and_open_only_to_configured_origins(scripted_server):
    hdr = {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"}
    with scripted_server.client() as c:
        assert "access-control-allow-origin" not in c.get("/healthz", headers=hdr).headers
        assert "access-control-allow-origin" not in c.options("/v1/answer", headers=hdr).headers
    s = settings_with('serve.cors_origins=["https://lab.example"]')
    with serve(s, ScriptedAgent) as srv, srv.client() as c:
        ok = c.options("/v1/answer", headers={**hdr, "Origin": "https://lab.example"})
        assert ok.headers["access-control-allow-origin"] == "https://lab.example"
        assert "access-control-allow-origin" not in c.options("/v1/answer", headers=hdr).headers


def test_health_metrics_and_chat_page(scripted_server):
    with scripted_server.client() as c:
        assert c.get("/healthz").json() == {"status": "ok"}
        c.post("/v1/answer", json={"question": "LMP10?"})
        page = c.get("/")
        assert page.status_code == 200 and "/v1/answer/stream" in page.text
        assert c.get("/openapi.json").json()["paths"]["/v1/answer"]["post"]
        m = c.get("/metrics")
    assert m.headers["content-type"].startswith("text/plain")
    text = m.text
    assert 'biorag_http_requests_total{method="POST",route="/v1/answer",status="200"} 1.0' in text
    assert 'biorag_step_seconds_count{step="retrieve"} 1.0' in text
    assert 'biorag_source_seconds_count{source="gene"} 1.0' in text
    assert "biorag_answer_rounds_count 1.0" in text


def test_the_page_links_with_the_one_catalogue_map_the_retrievers_use():
    """The chat page keeps no catalogue URLs of its own: it links trace hits and citations
    with the templates GET /v1/catalogues serves, which are the ones the retrievers build
    their records' URLs from (biorag/knowledge/catalogues.py), and it fetches them with the API key."""
    from biorag.knowledge.catalogues import CATALOGUES
    from retrievers.dbsnp.record import VariantRecord
    from retrievers.dbsnp.retriever import snp_evidence
    from retrievers.gene.evidence import gene_evidence
    from retrievers.gene.record import GeneRecord
    from retrievers.omim.local import disease_evidence
    from retrievers.omim.retriever import omim_evidence

    key = "catalogue-Key-123456"
    with serve(settings_with(f'serve.api_keys=["{key}"]'), ScriptedAgent) as srv, srv.client() as c:
        assert c.get("/v1/catalogues").status_code == 401
        served = c.get("/v1/catalogues", headers={"Authorization": f"Bearer {key}"}).json()["catalogues"]
        page = c.get("/").text
        doc = c.get("/openapi.json", headers={"Authorization": f"Bearer {key}"}).json()
    assert served == CATALOGUES
    assert "CataloguesResponse" in str(doc["paths"]["/v1/catalogues"]["get"]["responses"]["200"])

    def link(catalogue: str, rid: str) -> str:  # what the page builds from the served map
        return served[catalogue].replace("{id}", rid)

    assert gene_evidence("5699", GeneRecord(symbol="PSMB10")).url == link("gene", "5699")
    assert omim_evidence("154700", {"prefix": "#", "entry_type": "phenotype", "title": "MARFAN SYNDROME",
                                    "genes": [], "locations": []}).url == link("omim", "154700")
    assert snp_evidence("7412", VariantRecord(chromosome="19", position=1)).url == link("dbsnp", "rs7412")
    orpha = disease_evidence({"disease_id": "ORPHA:558", "name": "Marfan syndrome", "sources": ["hpo"]}, [])
    assert (orpha.cited, orpha.url) == ("orphanet:558", link("orphanet", "558"))

    assert "/v1/catalogues" in page and "Authorization" in page
    for template in CATALOGUES.values():
        assert template.split("/")[2] not in page  # no host of a catalogue is written in the page
    assert "omim.org" not in page and "https://" not in page


def test_request_metrics_name_the_route_template_in_every_router():
    """Each area of the API is its own router; the request metrics still label a request by
    its route's template, in every router, also when it was refused before routing (no key)."""
    key = "metrics-Key-123456"
    with serve(settings_with(f'serve.api_keys=["{key}"]'), ScriptedAgent) as srv, srv.client() as c:
        keyed = {"Authorization": f"Bearer {key}"}
        assert c.get("/v1/jobs/nojob", headers=keyed).status_code == 404
        assert c.post("/v1/geneset", json={"genes": 5}, headers=keyed).status_code == 422
        assert c.get("/v1/search/gene", params={"q": "x"}).status_code == 401
        assert c.get("/readyz-typo").status_code == 404
        text = c.get("/metrics", headers=keyed).text
    for labels in ('method="GET",route="/v1/jobs/{job_id}",status="404"',
                   'method="POST",route="/v1/geneset",status="422"',
                   'method="GET",route="/v1/search/gene",status="401"',
                   'method="GET",route="unmatched",status="404"'):
        assert f"biorag_http_requests_total{{{labels}}} 1.0" in text, labels


def test_a_client_leaving_mid_stream_stops_the_run_and_frees_its_slot():
    gate = threading.Event()
    runs = []

    def factory(s):
        agent = ScriptedAgent(s, gate=gate)
        runs.append(agent)
        return agent

    with serve(settings_with("serve.max_concurrent=1"), factory) as srv, srv.client() as c:
        with c.stream("POST", "/v1/answer/stream", json={"question": "LMP10?"}) as r:
            first = next(r.iter_text())
            assert "event: trace" in first
        # the client is gone; let the agent continue: its next step is refused, the slot freed
        time.sleep(0.3)
        gate.set()
        deadline = time.monotonic() + 10
        while srv.app.state.runner.busy and time.monotonic() < deadline:
            time.sleep(0.05)
        assert srv.app.state.runner.busy == 0
        assert c.post("/v1/answer", json={"question": "next"}).status_code == 200
        assert "biorag_answers_total" in c.get("/metrics").text
        # the abandoned run never reached its answer: only the follow-up request was counted
        assert 'biorag_answers_total{outcome="sufficient"} 1.0' in c.get("/metrics").text


def test_readiness_reports_unreachable_live_tools():
    s = settings_with("tool_io.mode=live", "ncbi.eutils_url=http://127.0.0.1:9/eutils", disable=["pubmed"])
    with serve(s, ScriptedAgent) as srv, srv.client() as c:
        r = c.get("/readyz")
    assert r.status_code == 503
    checks = r.json()["checks"]
    assert not checks["tool:gene"]["ok"] and "not reachable" in checks["tool:gene"]["detail"]
    assert checks["llm"]["ok"] and "vector_store" not in checks


def test_app_state_dependencies_run_on_the_event_loop():
    """Plain-function dependencies go to FastAPI's worker threads and back on every request
    (three round trips per search): the app-state ones are coroutine functions."""
    import inspect
    from typing import get_args

    from serving.routes import state

    deps = {name: get_args(v)[1] for name, v in vars(state).items() if name.endswith("Dep")}
    assert {"EngineDep", "MetricsDep", "SearchPoolDep", "RunnerDep", "JobsDep"} <= set(deps)
    for name, dep in deps.items():
        assert inspect.iscoroutinefunction(dep.dependency), name


def test_a_presets_larger_rounds_and_top_k_are_capped_at_the_operators():
    from biorag.settings import load_settings
    from serving.overrides import within_operator_limits

    base = settings_with("max_rounds=3", "sources.pubmed.top_k=2")
    other = load_settings(preset="paper").model_dump()  # 15 rounds, pubmed top_k above 2
    assert other["max_rounds"] > 3 and other["sources"]["pubmed"]["top_k"] > 2
    capped = within_operator_limits(other, base)
    assert capped["max_rounds"] == 3 and capped["sources"]["pubmed"]["top_k"] == 2
    lower = within_operator_limits({"max_rounds": 1, "sources": {"pubmed": {"top_k": 1}}}, base)
    assert lower["max_rounds"] == 1 and lower["sources"]["pubmed"]["top_k"] == 1


def test_a_405_allows_every_method_the_path_takes(scripted_server):
    """Starlette's 405 names the first route matching the path; the path's other routes'
    methods are allowed too (DELETE /v1/jobs/{id} cancels beside GET)."""
    with scripted_server.client() as c:
        r = c.request("OPTIONS", "/v1/jobs/abc")
        assert r.status_code == 405 and set(r.headers["allow"].split(", ")) == {"GET", "DELETE"}, r.headers
        r = c.request("PUT", "/v1/answer")
        assert r.status_code == 405 and r.headers["allow"] == "POST", r.headers
        r = c.request("OPTIONS", "/v1/jobs/index-rebuild")  # its own path, not a job id
        assert r.status_code == 405 and r.headers["allow"] == "POST", r.headers
