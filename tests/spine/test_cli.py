"""`biorag` as a user runs it: every bad input is one clear line and a non-zero exit."""

import json
import socket
import subprocess
import sys

import pytest

#: the `biorag` console script's target, run the same way whether or not the package is
#: installed (the console script of an older editable install may point elsewhere)
BIORAG = [sys.executable, "-m", "cli.main"]


def run(*args, timeout=600):
    return subprocess.run([*BIORAG, *args], capture_output=True, text=True, timeout=timeout)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["ask", ""], "the question is empty"),
        (["ask", "x" * 3000], "the limit is 2000"),
        (["ask", "What is TP53?", "--preset", "nosuch"], "unknown preset 'nosuch'"),
        (["ask", "What is TP53?", "--disable", "genebank"], "unknown switch 'genebank'"),
        (["ask", "What is TP53?", "--set", "llm.tempreature=1"], "unknown setting 'llm.tempreature'"),
        (["ask", "What is TP53?", "--set", "max_rounds=many"], "max_rounds"),
        (["ask", "What is TP53?", "--replay", "/nonexistent/cassette.jsonl"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(args, fragment):
    r = run(*args)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], r.stderr


def test_unreachable_llm_endpoint():
    r = run("ask", "How do microglia respond to amyloid plaques?", "--set", "planner=llm",
            "--set", "llm.backend=openai", "--set", f"llm.base_url=http://127.0.0.1:{_closed_port()}/v1",
            "--set", "llm.timeout_s=3", "--disable", "pubmed", "--enable", "web")
    # web is the one source a free-text question may go to: the model must choose it
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "not reachable" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_ask_json_shape_on_the_embedded_preset_with_replayed_tools():
    r = run("ask", "Which gene is SNP rs1217074595 associated with?", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) >= {"answer", "citations", "rounds", "sufficient", "config", "trace", "timings"}
    assert out["answer"] == "LINC01270" and out["sufficient"] is True
    assert {e["step"] for e in out["trace"]} == {"select", "rewrite", "retrieve", "evaluate", "generate"}
    assert all("round" in e and "ms" in e for e in out["trace"])
    assert out["config"]["preset"] == "embedded" and out["config"]["tool_io"]["mode"] == "replay"
    assert out["citations"][0]["id"] == "rs1217074595"


def test_every_command_has_help():
    groups = {"": ["ask", "config", "index", "search", "tool", "data", "eval", "train", "serve", "mcp"]}
    assert run("--help").returncode == 0
    for cmd in groups[""]:
        r = run(cmd, "--help")
        assert r.returncode == 0 and "Usage" in r.stdout, (cmd, r.stderr)
