"""The OpenAI-compatible backend against a real llama.cpp server started on 127.0.0.1."""

import socket
import subprocess
import sys
import time

import httpx
import pytest

from biorag.contracts.errors import LLMError
from biorag.llm import ChatMessage
from biorag.llm.embedded import bundled_gguf
from biorag.llm.openai_compat import OpenAICompatLLM
from tests.spine.test_llm_embedded import Pick

pytestmark = pytest.mark.llm


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    # a file, not a pipe: llama.cpp logs enough at start-up to fill an unread pipe and block
    log = (tmp_path_factory.mktemp("llama-server") / "server.log").open("w+b")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf()), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "2048", "--model_alias", "smollm2"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"llama.cpp server exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"{base}/models", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.5)
    else:
        proc.kill()
        raise RuntimeError("llama.cpp server did not start within 120 s")
    yield base
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


def test_chat_and_constrained_json_over_http(server):
    llm = OpenAICompatLLM(server, "smollm2", max_tokens=64)
    llm.check()
    assert llm.chat([ChatMessage(role="user", content="Say hello.")], max_tokens=8).text
    out, _ = llm.structured([ChatMessage(role="user", content="Which source for rs12345? JSON.")], Pick)
    assert out.retriever in ("gene", "dbsnp", "pubmed")
    # llama-cpp-python's server rejects json_schema; auto mode switched to json_object+schema
    assert llm.response_format == "json_object"


def test_unreachable_endpoint_is_a_clear_error():
    llm = OpenAICompatLLM(f"http://127.0.0.1:{_free_port()}/v1", "x", timeout_s=2)
    with pytest.raises(LLMError, match="not reachable"):
        llm.chat([ChatMessage(role="user", content="hi")])
