"""The MCP endpoint of `biorag serve` (/mcp, streamable HTTP) against a live server on
127.0.0.1, through the SDK's own client: the tools listed and each one called on the real
stores and the sample PubMed index (the agent scripted, so that its slot can be held; the
real agent in the last test), results equal to the REST API's, errors as one line, and the
app's one API key, one body-size limit and one agent-slot limit (busy -> 429 with
Retry-After)."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx
import pytest
from live_server import ScriptedAgent, serve, settings_with
from mcp.shared.exceptions import MCPError
from mcp_helpers import (
    call_lookups,
    check_listing,
    error_text,
    http_client,
    mcp_error,
    sample_data_dir,
)

from serving.mcp_server.results import AskResult

pytestmark = pytest.mark.milvus

KEY = "mcp-Key-5e6f7a8b9c"
#: a tools/call as it goes on the wire (the busy check answers before any session exists)
ASK_CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "ask", "arguments": {"question": "What is LMP10?"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def gate():
    g = threading.Event()
    g.set()  # scripted runs finish at once unless a test holds them
    return g


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory, mcp_sample_data, gate):
    """API keys on, one agent slot, the real stores and index; the agent scripted."""
    data = sample_data_dir(tmp_path_factory.mktemp("mcp-http") / "data", None, None, template=mcp_sample_data)
    settings = settings_with(f"data_dir={data}", f'serve.api_keys=["{KEY}"]', "serve.max_concurrent=1",
                             "serve.retry_after_s=7", "serve.max_body_bytes=4096")
    with serve(settings, lambda s: ScriptedAgent(s, gate=gate)) as srv:
        yield srv


def test_lists_and_calls_every_tool_with_the_key(keyed_server):
    async def session():
        async with http_client(keyed_server.url, KEY) as c:
            await check_listing(c)
            found = await call_lookups(c)
            steps = []

            async def progress(done, total, message):
                steps.append(message)

            r = await c.call_tool("ask", {"question": "What is the official gene symbol of LMP10?"},
                                  progress_callback=progress)
            return found, r, steps

    found, r, steps = asyncio.run(session())
    ask = AskResult.model_validate(r.structured_content)
    assert ask.answer.startswith("PSMB10") and ask.citations[0].id == "5699" and ask.sufficient
    assert [e.step for e in ask.trace] == ["select", "rewrite", "retrieve", "evaluate", "generate"]
    assert len(steps) == 5 and steps[0] == "round 1: select gene"  # each step as it happened
    # the tools read the same retrievers as the REST API: the same records, in the same order
    with keyed_server.client(headers={"X-API-Key": KEY}) as c:
        rest = c.get("/v1/search/pubmed", params={"q": "amyloid beta clearance by microglia", "mesh": "Mice", "k": 4})
        gene = c.get("/v1/search/gene", params={"q": "LMP10"})
    assert [f"pubmed:{h['id']}" for h in rest.json()["hits"]] == [x.cited for x in found["search_pubmed"].records]
    assert [f"{h['source']}:{h['id']}" for h in gene.json()["hits"]] == [x.cited for x in found["gene_record"].records]


def test_the_endpoint_needs_the_api_key(keyed_server):
    raw = httpx.post(f"{keyed_server.url}/mcp", json=ASK_CALL, headers=MCP_HEADERS)
    assert raw.status_code == 401 and raw.headers["www-authenticate"] == "Bearer"
    body = raw.json()  # a JSON-RPC error, which MCP clients read from a non-2xx body
    assert body["jsonrpc"] == "2.0" and "API key" in body["error"]["message"]
    assert body["error"]["data"]["fields"][0]["field"] == "header.authorization"

    async def without_key():
        async with http_client(keyed_server.url, "wrong-key") as c:
            await c.list_tools()

    assert "missing or invalid API key" in str(mcp_error(without_key))


def test_bad_arguments_are_one_line_tool_errors(keyed_server):
    async def session():
        async with http_client(keyed_server.url, KEY) as c:
            return [await c.call_tool(name, args) for name, args in [
                ("gene_record", {"gene": "LMP10", "k": 500}),
                ("phenotype_genes", {"phenotypes": []}),
                ("variant_genes", {}),
                ("gene_record", {"gene": "   "}),
                ("search_pubmed", {"query": "tau", "year_from": 2010, "year_to": 2001}),
            ]]

    k, empty, missing, blank, years = (error_text(r) for r in asyncio.run(session()))
    assert k.startswith("gene_record: invalid arguments: k:") and "100" in k
    assert "phenotypes" in empty and "at least 1" in empty
    assert "variant" in missing and "required" in missing.lower()
    assert "query is empty" in blank
    assert "year_from 2010 is after year_to 2001" in years


def test_body_size_limit_is_the_apps(keyed_server):
    genes = [f"GENE{i}" for i in range(1000)]  # about 10 kB of JSON, over serve.max_body_bytes=4096
    raw = httpx.post(f"{keyed_server.url}/mcp", headers={**MCP_HEADERS, "X-API-Key": KEY},
                     content=json.dumps({**ASK_CALL, "params": {"name": "gene_set_enrichment",
                                                                "arguments": {"genes": genes}}}))
    assert raw.status_code == 413 and "4096 bytes" in raw.json()["error"]["message"]

    async def call():
        async with http_client(keyed_server.url, KEY) as c:
            await c.call_tool("gene_set_enrichment", {"genes": genes})

    assert "exceeds 4096 bytes" in str(mcp_error(call))


def test_busy_agent_slots_answer_429_with_retry_after(keyed_server, gate):
    runner = keyed_server.app.state.runner
    gate.clear()
    held: dict = {}

    def occupy():  # the REST API takes the one agent slot
        with keyed_server.client(headers={"X-API-Key": KEY}) as c:
            held["r"] = c.post("/v1/answer", json={"question": "one"})

    t = threading.Thread(target=occupy)
    t.start()
    try:
        deadline = time.monotonic() + 10
        while runner.busy < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        raw = httpx.post(f"{keyed_server.url}/mcp", json=ASK_CALL, headers={**MCP_HEADERS, "X-API-Key": KEY})

        async def session():
            async with http_client(keyed_server.url, KEY) as c:
                lookup = await c.call_tool("gene_record", {"gene": "LMP10"})  # no agent slot needed
                try:
                    await c.call_tool("ask", {"question": "What is LMP10?"})
                except MCPError as e:
                    return lookup, e
            return lookup, None

        lookup, busy = asyncio.run(session())
    finally:
        gate.set()
        t.join(30)
    assert raw.status_code == 429 and raw.headers["retry-after"] == "7"
    assert raw.json()["error"]["message"] == "busy: every answer slot is in use; retry after 7 s"
    assert busy is not None and "retry after 7 s" in str(busy)
    assert not lookup.is_error
    assert held["r"].status_code == 200
    with keyed_server.client(headers={"X-API-Key": KEY}) as c:
        assert "biorag_agent_runs_rejected_total 2.0" in c.get("/metrics").text


def test_without_keys_the_endpoint_is_open_and_a_missing_store_names_its_build_command(tmp_path):
    with serve(settings_with(f"data_dir={tmp_path}"), ScriptedAgent) as srv:
        async def session():
            async with http_client(srv.url) as c:
                await check_listing(c)
                return [await c.call_tool(name, args) for name, args in [
                    ("search_pubmed", {"query": "amyloid beta clearance"}),
                    ("phenotype_genes", {"phenotypes": ["Seizure"]}),
                ]]

        pubmed, hpo = (error_text(r) for r in asyncio.run(session()))
    assert pubmed.startswith("search_pubmed: pubmed: no PubMed index") and "`biorag index build" in pubmed
    assert "`biorag data hpo-store build`" in hpo


def test_phenotypes_rank_the_same_by_name_id_case_and_order(keyed_server):
    asked = [["Seizure", "Ataxia"], ["HP:0001251", "HP:0001250"], ["ataxia", "SEIZURE"]]

    async def session():
        async with http_client(keyed_server.url, KEY) as c:
            return [await c.call_tool("phenotype_genes", {"phenotypes": p, "k": 5}) for p in asked]

    rankings = [[g["symbol"] for g in r.structured_content["genes"]] for r in asyncio.run(session())]
    assert len(rankings[0]) == 5 and rankings[1] == rankings[0] and rankings[2] == rankings[0]


@pytest.mark.llm
def test_ask_runs_the_real_agent_as_the_rest_api_does(tmp_path):
    question = "What is the official gene symbol of LMP10?"
    with serve(settings_with(f"data_dir={tmp_path}")) as srv:
        async def session():
            async with http_client(srv.url) as c:
                return await c.call_tool("ask", {"question": question})

        r = asyncio.run(session())
        with srv.client() as c:
            rest = c.post("/v1/answer", json={"question": question}).json()
    ask = AskResult.model_validate(r.structured_content)
    assert ask.answer == rest["answer"] == "PSMB10"
    assert [c.model_dump() for c in ask.citations] == rest["citations"]
    assert [e.step for e in ask.trace] == [e["step"] for e in rest["trace"]]


def test_gene_sets_read_the_same_in_any_order_and_case_and_report_unknown_symbols(keyed_server):
    sets = [["ERBB2", "ERBB4", "FGFR2", "FGFR4", "HRAS", "KRAS"], ["kras", "Hras", "fgfr4", "ERBB4", "FGFR2", "erbb2"],
            ["ERBB2", "NOTAGENE1", "ERBB4", "FGFR2", "FGFR4", "HRAS", "KRAS"]]

    async def session():
        async with http_client(keyed_server.url, KEY) as c:
            return [(await c.call_tool("gene_set_enrichment", {"genes": g})).structured_content for g in sets]

    plain, shuffled, with_unknown = asyncio.run(session())
    assert plain["name"] and shuffled["name"] == plain["name"] == with_unknown["name"]
    assert [r["cited"] for r in shuffled["records"]] == [r["cited"] for r in plain["records"]]
    assert plain["unknown"] == shuffled["unknown"] == [] and with_unknown["unknown"] == ["NOTAGENE1"]
