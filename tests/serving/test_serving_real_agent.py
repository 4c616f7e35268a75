"""The real agent behind the real server (embedded preset; NCBI tools replayed from the
bundled recording): streamed trace equals the returned trace, per-request overrides, a
failing tool degrades the answer instead of failing the request, sources and search."""

from __future__ import annotations

import json

import pytest
from live_server import parse_sse, serve, settings_with


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    data = tmp_path_factory.mktemp("real-agent-data")  # private: no PubMed index in it
    with serve(settings_with(f"data_dir={data}")) as srv:
        yield srv


def test_stream_then_answer_with_the_real_agent(real_server):
    with real_server.client() as c:
        r = c.post("/v1/answer/stream", json={"question": "What is the official gene symbol of LMP10?"})
    assert r.status_code == 200
    events = parse_sse(r.text)
    names = [e for e, _ in events]
    assert names[-1] == "answer" and set(names[:-1]) == {"trace"}
    streamed = [json.loads(d) for _, d in events[:-1]]
    answer = json.loads(events[-1][1])
    assert streamed == answer["trace"]  # same events, same order, as they happened
    assert [e["step"] for e in streamed] == ["select", "rewrite", "retrieve", "evaluate", "generate"]
    assert answer["answer"] == "PSMB10" and answer["citations"][0]["url"] == "https://www.ncbi.nlm.nih.gov/gene/5699"


def test_a_failing_tool_degrades_the_answer_not_the_request(real_server):
    body = {"question": "Which chromosome is SNP rs999999999 located on?", "max_rounds": 1,
            "set": {"planner": "rules"}}
    with real_server.client() as c:
        r = c.post("/v1/answer", json=body)
        metrics = c.get("/metrics").text
    assert r.status_code == 200, r.text
    ans = r.json()
    retrieve = [e for e in ans["trace"] if e["step"] == "retrieve"]
    assert retrieve[0]["retriever"] == "dbsnp" and not retrieve[0]["ok"]
    assert retrieve[0]["details"]["error_type"] == "NotRecorded" and "rs999999999" not in ans["answer"]
    assert ans["best_attempt"] and not ans["sufficient"] and ans["config"]["planner"] == "rules"
    assert 'biorag_replay_misses_total{source="dbsnp"} 1.0' in metrics
    assert 'biorag_tool_errors_total{source="dbsnp"} 1.0' in metrics


def test_disabling_the_only_useful_source_is_visible_in_the_answer(real_server):
    with real_server.client() as c:
        r = c.post("/v1/answer", json={"question": "What is the official gene symbol of LMP10?",
                                       "disable": ["gene"], "max_rounds": 1, "set": {"planner": "rules"}})
    assert r.status_code == 200
    ans = r.json()
    assert all(e["retriever"] != "gene" for e in ans["trace"])
    assert ans["config"]["sources"]["gene"]["enabled"] is False and ans["answer"] != "PSMB10"


def test_sources_and_direct_search(real_server):
    with real_server.client() as c:
        src = c.get("/v1/sources").json()
        gene = c.get("/v1/search/gene", params={"q": "LMP10", "k": 2})
        miss = c.get("/v1/search/dbsnp", params={"q": "rs999999999"})
    by_name = {s["name"]: s for s in src["sources"]}
    assert by_name["gene"]["enabled"] and "NCBI Gene" in by_name["gene"]["manual"]
    assert by_name["pubmed"]["supports_mesh"] is True and by_name["web"]["enabled"] is False
    assert {c["name"] for c in src["components"]} == {"mesh_filter", "query_rewrite", "self_eval"}
    assert gene.status_code == 200
    hits = gene.json()["hits"]
    assert len(hits) == 2 and hits[0]["id"] == "5699" and hits[0]["metadata"]["symbol"] == "PSMB10"
    assert miss.status_code == 404 and miss.json()["error"] == "NotRecorded"


def test_readiness_in_replay_mode_without_an_index(real_server):
    with real_server.client() as c:
        r = c.get("/readyz")
    checks = r.json()["checks"]
    assert checks["tool:gene"]["ok"] and checks["tool:gene"]["detail"].startswith("replay: ")
    assert checks["llm"]["ok"] and "SmolLM2" in checks["llm"]["detail"]
    # no PubMed index was built for this server: not ready, and it says how to fix it
    assert r.status_code == 503 and "biorag index build" in checks["vector_store"]["detail"]
