"""Index rebuild jobs through the server that owns the Milvus Lite store: a job builds the
bundled PubMed sample (progress, alias switch), search serves it; a second job over a
broken file fails and the previous index keeps serving; one job at a time; readiness
follows the vector store."""

from __future__ import annotations

import gzip
import os
import shutil
import time
from pathlib import Path

import pytest
from live_server import serve, settings_with

from biorag.ml import pubmed_schema as ps
from biorag.ml.vector_store import open_store

SAMPLE = Path(__file__).resolve().parents[2] / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"
ROWS = SAMPLE.parent / "alzheimers_records.jsonl.gz"
QUERY = "amyloid beta plaques in Alzheimer disease"

pytestmark = pytest.mark.milvus


def _wait(c, job_id: str, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = c.get(f"/v1/jobs/{job_id}").json()
        if job["state"] in ("succeeded", "failed"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish: {job}")


def _alias_target(settings) -> str | None:
    client = open_store(settings.milvus_uri)
    try:
        return ps.resolve_collection(client, settings.index.collection)
    finally:
        client.close()


def test_rebuild_success_then_failed_rebuild_leaves_the_old_index_serving(tmp_path):
    data = tmp_path / "data"
    (data / "pubmed").mkdir(parents=True)
    shutil.copy(SAMPLE, data / "pubmed" / SAMPLE.name)
    broken = data / "broken" / "update0001.xml"
    broken.parent.mkdir()
    broken.write_text("<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article>")
    settings = settings_with(f"data_dir={data}", "planner=rules")

    with serve(settings) as srv, srv.client() as c:
        # no index yet: search says so (404, not available on this server: how to build it)
        # and readiness reports the vector store
        r = c.get("/v1/search/pubmed", params={"q": QUERY})
        assert r.status_code == 404 and "biorag index build" in r.json()["detail"]
        assert r.json()["error"] == "not available on this server"
        ready = c.get("/readyz")
        assert ready.status_code == 503 and not ready.json()["checks"]["vector_store"]["ok"]

        # inputs outside data_dir / serve.rebuild_roots are refused (403), missing ones not
        # found (404), before any job exists
        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(SAMPLE)]})
        assert r.status_code == 403 and r.json()["fields"][0]["field"] == "body.inputs.0"
        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "nope.xml")]})
        assert r.status_code == 404 and "does not exist" in r.json()["detail"]

        # 1) a good rebuild: 202 + Location, one job at a time, progress, alias switched
        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "pubmed")]})
        assert r.status_code == 202, r.text
        job_id = r.json()["id"]
        assert r.headers["location"].endswith(f"/v1/jobs/{job_id}")
        second = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "pubmed")]})
        assert second.status_code == 409 and second.json()["job"]["id"] == job_id
        job = _wait(c, job_id)
        assert job["state"] == "succeeded", job
        assert job["progress"]["stage"] == "done" and job["progress"]["done"] == 91
        assert job["result"]["alias_switched"] and job["result"]["rows"] > 50
        first_collection = job["result"]["collection"]
        assert _alias_target(settings) == first_collection

        before = c.get("/v1/search/pubmed", params={"q": QUERY, "k": 3})
        assert before.status_code == 200, before.text
        hits_before = [h["id"] for h in before.json()["hits"]]
        assert len(hits_before) == 3
        assert c.get("/readyz").json()["checks"]["vector_store"]["ok"]

        # 2) a rebuild over a broken file fails; the previous index keeps serving
        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(broken)]})
        assert r.status_code == 202
        failed = _wait(c, r.json()["id"])
        assert failed["state"] == "failed"
        assert "update0001.xml" in failed["error"] and "alias not switched" in failed["error"]
        assert failed["result"]["alias_switched"] is False
        assert _alias_target(settings) == first_collection
        after = c.get("/v1/search/pubmed", params={"q": QUERY, "k": 3})
        assert after.status_code == 200 and [h["id"] for h in after.json()["hits"]] == hits_before

        jobs = c.get("/v1/jobs").json()
        assert [j["state"] for j in jobs] == ["failed", "succeeded"]
        assert c.get("/v1/jobs/doesnotexist").status_code == 404
        metrics = c.get("/metrics").text
        assert 'biorag_source_seconds_count{source="pubmed"}' in metrics
        assert 'biorag_tool_errors_total{source="pubmed"} 1.0' in metrics  # the 404 before any index


def _open_handles() -> dict[str, int]:
    """What a leak would grow: open file descriptors, MilvusClients not closed, pymilvus
    connections (the server, its jobs and the test share this process)."""
    import gc

    from pymilvus import MilvusClient
    from pymilvus.client.connection_manager import ConnectionManager

    gc.collect()
    return {
        "fds": len(os.listdir("/proc/self/fd")),
        "clients": sum(1 for o in gc.get_objects() if type(o) is MilvusClient and o._handler is not None),
        "connections": ConnectionManager.get_instance().get_stats()["total_connections"],
    }


def test_rebuild_job_inputs_are_checked_as_text_and_every_file_is_contained(tmp_path):
    data = tmp_path / "data"
    (data / "pubmed" / "sub").mkdir(parents=True)
    with gzip.open(ROWS, "rt") as f:
        (data / "pubmed" / "records.jsonl").write_text("".join(next(f) for _ in range(5)))
    (data / "pubmed" / "sub" / "p.jsonl").symlink_to("/etc/passwd")
    settings = settings_with(f"data_dir={data}", "planner=rules")
    with serve(settings) as srv, srv.client() as c:
        for raw in ("\u0000", "~nosuchuser/x", "", "a\u0000b"):
            r = c.post("/v1/jobs/index-rebuild", json={"inputs": [raw]})
            assert r.status_code == 422, (raw, r.status_code, r.text)
            assert r.headers["content-type"].startswith("application/json")
            assert r.json()["fields"][0]["field"] == "body.inputs.0"
        assert c.get("/healthz").status_code == 200  # the connection and the server are fine

        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "pubmed")]})
        assert r.status_code == 202, r.text
        job = _wait(c, r.json()["id"])
        # the symlink to /etc/passwd was refused and named; nothing was switched
        assert job["state"] == "failed" and "sub/p.jsonl" in job["error"] and "/etc/passwd" in job["error"]
        assert list(job["result"]["refused_files"]) == [str(data / "pubmed" / "sub" / "p.jsonl")]
        assert job["result"]["alias_switched"] is False and _alias_target(settings) is None


def test_twenty_rebuild_jobs_in_a_row_succeed_and_leak_nothing(tmp_path, capfd):
    data = tmp_path / "data"
    (data / "pubmed").mkdir(parents=True)
    with gzip.open(ROWS, "rt") as f:
        (data / "pubmed" / "records.jsonl").write_text("".join(next(f) for _ in range(5)))
    cut = data / "cut" / "pubmed_0_to_99.xml.gz"
    cut.parent.mkdir()
    cut.write_bytes(SAMPLE.read_bytes()[: SAMPLE.stat().st_size // 2])  # a real file, truncated
    settings = settings_with(f"data_dir={data}", "planner=rules")
    states, handles = [], []
    with serve(settings) as srv, srv.client() as c:
        for i in range(20):
            r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "pubmed")]})
            assert r.status_code == 202, r.text
            job = _wait(c, r.json()["id"])
            states.append(job["state"] if job["state"] == "succeeded" else f"{i}: {job['error']}")
            search = c.get("/v1/search/pubmed", params={"q": QUERY, "k": 2})
            assert search.status_code == 200, search.text
            handles.append(_open_handles())
            if i == 1:
                # idle for longer than pymilvus's 30 s health-check threshold: Milvus Lite's
                # gRPC server used to answer the idle connection's keepalive pings with
                # GOAWAY too_many_pings, and the next job could not open the store
                time.sleep(36)
            if i == 10:
                # a truncated input fails the job and never switches the alias
                before = _alias_target(settings)
                r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(cut)]})
                failed = _wait(c, r.json()["id"])
                assert failed["state"] == "failed" and "truncated" in failed["error"]
                assert failed["result"]["alias_switched"] is False and _alias_target(settings) == before
        jobs = c.get("/v1/jobs").json()
    assert states == ["succeeded"] * 20
    # grpc's core logs a GOAWAY straight to fd 2: Lite must never have to push a client away
    goaways = [line for line in capfd.readouterr().err.splitlines() if "too_many_pings" in line]
    assert not goaways, goaways[:3]
    assert not [j for j in jobs if j["state"] == "failed" and (j.get("result") or {}).get("alias_switched")]
    # after the first jobs warmed everything up, nothing grows
    print(f"20 jobs: {states.count('succeeded')} succeeded; handles after job 3 {handles[2]}, after job 20 {handles[-1]}")
    assert handles[-1] == handles[2], handles
    assert max(h["clients"] for h in handles) <= handles[2]["clients"], handles
