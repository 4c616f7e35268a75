"""`biorag mcp` over stdio, as an MCP client starts it: a subprocess (`python -m cli.main mcp`)
on a data dir with the real stores and the sample PubMed index, driven by the SDK's own
client. Every tool is called, `ask` with the real agent and model; stdout carries nothing but
protocol messages (a stray line reaches the client as a parse error), and the server's logs
go to stderr. Errors are one-line tool errors: a bad argument, a store that was never built,
and (the same server object in process) every agent slot busy."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from live_server import ScriptedAgent, settings_with
from mcp import Client
from mcp_helpers import call_lookups, check_listing, error_text, sample_data_dir, stdio_client_for

from application.engine import Engine
from serving.mcp_server.results import AskResult
from serving.mcp_server.server import build_server
from serving.mcp_server.tools import Backend
from serving.metrics import Metrics
from serving.runner import AgentRunner


@pytest.mark.llm
@pytest.mark.milvus
def test_every_tool_over_stdio_with_protocol_only_on_stdout(tmp_path, mcp_sample_data):
    data = sample_data_dir(tmp_path / "data", None, None, template=mcp_sample_data)
    stray: list[Exception] = []
    steps: list[str] = []

    async def on_message(message) -> None:
        if isinstance(message, Exception):  # a stdout line that is not a JSON-RPC message
            stray.append(message)

    async def progress(done, total, message) -> None:
        steps.append(message)

    async def session():
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with stdio_client_for(data, errlog, "-v", message_handler=on_message) as c:
                await check_listing(c)
                await call_lookups(c)  # search_pubmed loads the embedder: its output must not reach stdout
                bad = await c.call_tool("gene_record", {"gene": "LMP10", "k": 0})
                ask = await c.call_tool("ask", {"question": "What is the official gene symbol of LMP10?"},
                                        progress_callback=progress)
        return bad, ask

    bad, ask = asyncio.run(session())
    assert not stray, stray
    assert error_text(bad).startswith("gene_record: invalid arguments: k:")
    assert not ask.is_error, ask.content
    answer = AskResult.model_validate(ask.structured_content)
    assert answer.answer == "PSMB10" and answer.citations[0].url == "https://www.ncbi.nlm.nih.gov/gene/5699"
    assert steps and len(steps) == len(answer.trace)  # each step reported while the agent ran
    assert "https://www.ncbi.nlm.nih.gov/gene/5699" in ask.content[0].text
    log = (tmp_path / "stderr.log").read_text()
    assert "gene_record" in log  # -v: the server's own log lines went to stderr


def test_stdio_errors_name_the_fix(tmp_path):
    empty = tmp_path / "data"  # nothing built: no stores, no index
    empty.mkdir()

    async def session():
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with stdio_client_for(empty, errlog) as c:
                return [await c.call_tool(name, args) for name, args in [
                    ("search_pubmed", {"query": "amyloid beta clearance"}),
                    ("phenotype_genes", {"phenotypes": ["Seizure"]}),
                    ("disease_genes", {"disease": 42}),
                    ("ask", {"question": "x" * 5000}),
                ]]

    pubmed, hpo, wrong_type, too_long = (error_text(r) for r in asyncio.run(session()))
    assert "no PubMed index" in pubmed and "`biorag index build" in pubmed
    assert "`biorag data hpo-store build`" in hpo
    assert wrong_type.startswith("disease_genes: invalid arguments: disease:")
    assert too_long.startswith("ask: ") and "max_question_chars" in too_long


def test_without_http_a_busy_agent_is_a_tool_error_saying_when_to_retry():
    """The server object `biorag mcp` serves, connected in process: with its one agent slot
    held, a second `ask` is a tool error (stdio has no HTTP status), the slot bound holds."""
    gate = threading.Event()
    settings = settings_with("serve.max_concurrent=1", "serve.retry_after_s=3")
    engine = Engine(settings, agent_factory=lambda s: ScriptedAgent(s, gate=gate))
    runner = AgentRunner(engine.agent_for, Metrics(), 1, 60, 3)
    backend = Backend(settings, engine, runner, ThreadPoolExecutor(2))

    async def session():
        async with Client(build_server(backend)) as c:
            first = asyncio.create_task(c.call_tool("ask", {"question": "What is LMP10?"}))
            while runner.busy < 1:
                await asyncio.sleep(0.01)
            second = await c.call_tool("ask", {"question": "What is LMP10?"})
            gate.set()
            return await first, second

    try:
        first, second = asyncio.run(session())
    finally:
        gate.set()
        backend.close()
    assert not first.is_error and first.structured_content["answer"].startswith("PSMB10")
    assert error_text(second) == "ask: busy: every answer slot is in use; retry after 3 s"
