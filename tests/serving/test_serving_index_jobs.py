"""Index rebuild jobs through the server that owns the Milvus Lite store: a job builds the
bundled PubMed sample (progress, alias switch), search serves it; a second job over a
broken file fails and the previous index keeps serving; one job at a time; readiness
follows the vector store."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from live_server import serve, settings_with

from biorag import pubmed_schema as ps

SAMPLE = Path(__file__).resolve().parents[2] / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"
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
    client = ps.connect(settings.milvus_uri)
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
        # no index yet: search says so (503) and readiness reports the vector store
        r = c.get("/v1/search/pubmed", params={"q": QUERY})
        assert r.status_code == 503 and "biorag index build" in r.json()["detail"]
        ready = c.get("/readyz")
        assert ready.status_code == 503 and not ready.json()["checks"]["vector_store"]["ok"]

        # inputs outside data_dir / serve.rebuild_roots are refused before any job exists
        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(SAMPLE)]})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == "body.inputs.0"
        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "nope.xml")]})
        assert r.status_code == 422 and "does not exist" in r.json()["detail"][0]["message"]

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
        assert 'biorag_tool_errors_total{source="pubmed"} 1.0' in metrics  # the 503 before any index
