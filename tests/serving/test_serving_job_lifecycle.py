"""An operator's rebuild jobs through the server that owns the Milvus Lite store:
cancel mid-job (workers stopped, no defunct processes, alias unchanged), resume after the
cancel, a failed job, the log lines and /metrics of each, then a rollback while searches
run (0 non-200s, the old rows back) and gc that keeps the rollback target."""

from __future__ import annotations

import gzip
import logging
import os
import threading
import time
from pathlib import Path

import pytest
from live_server import serve, settings_with

from biorag.ml import pubmed_schema as ps
from biorag.ml.vector_store import open_store

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "indexing" / "resources" / "pubmed_sample"
ROWS = SAMPLE_DIR / "alzheimers_records.jsonl.gz"
XML_GZ = SAMPLE_DIR / "pubmed_0_to_99.xml.gz"
QUERY = "amyloid beta plaques in Alzheimer disease"

pytestmark = pytest.mark.milvus


def _wait(c, job_id: str, timeout: float = 600) -> dict:
    deadline = time.monotonic() + timeout
    job: dict = {}
    while time.monotonic() < deadline:
        job = c.get(f"/v1/jobs/{job_id}").json()
        if job["state"] in ("succeeded", "failed", "cancelled", "interrupted"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish: {job}")


def _alias_target(settings) -> str | None:
    client = open_store(settings.milvus_uri)
    try:
        return ps.resolve_collection(client, settings.index.collection)
    finally:
        client.close()


def _reader_children() -> list[tuple[int, str]]:
    """This process's children that are reader processes, and any defunct child: (pid, state)."""
    out = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for pid in kids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            state = stat.rsplit(")", 1)[1].split()[0]
            if state == "Z" or "spawn_main" in cmd:  # the reader processes, not the resource tracker
                out.append((int(pid), state))
    return out


def _hits(c) -> list[str]:
    r = c.get("/v1/search/pubmed", params={"q": QUERY, "k": 3})
    assert r.status_code == 200, r.text
    return [h["id"] for h in r.json()["hits"]]


def test_cancel_resume_fail_rollback_and_gc(tmp_path, caplog):
    data = tmp_path / "data"
    with gzip.open(ROWS, "rt") as f:
        lines = f.readlines()
    (data / "small").mkdir(parents=True)
    (data / "small" / "a.jsonl").write_text("".join(lines[:40]))
    (data / "big").mkdir()
    for i in range(6):  # small files first, then a large one: the job is cancelled after its first batch
        (data / "big" / f"part{i}.jsonl").write_text("".join(lines[40 + 40 * i : 40 + 40 * (i + 1)]))
    (data / "big" / "z_medline.xml.gz").write_bytes((SAMPLE_DIR / "medline16n0902.xml.gz").read_bytes())
    (data / "cut").mkdir()
    (data / "cut" / "b.xml.gz").write_bytes(XML_GZ.read_bytes()[:5000])
    settings = settings_with(f"data_dir={data}", "planner=rules", "index.read_workers=1",
                             "index.checkpoint_seconds=0")

    caplog.set_level(logging.INFO, logger="biorag")
    with serve(settings) as srv, srv.client() as c:
        # 1) a first index: job start and alias switch logged, metrics say what serves
        first = _wait(c, c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "small")]}).json()["id"])
        assert first["state"] == "succeeded", first
        first_collection = first["alias_after"]
        assert first["alias_before"] is None and first_collection == _alias_target(settings)
        assert first["result"]["raw_sample"] == 0  # no benchmark sample in API jobs
        assert first["progress"]["total"] == first["progress"]["done"] and first["progress"]["percent"] == 100.0
        hits_first = _hits(c)
        log = "\n".join(r.getMessage() for r in caplog.records)
        assert f"job {first['id']} (index-rebuild) started" in log
        assert f"index alias 'pubmed' switched: nothing -> {first_collection}" in log

        # 2) a rebuild cancelled mid-job: workers stopped, alias unchanged
        r = c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "big")]})
        job_id = r.json()["id"]
        deadline = time.monotonic() + 300
        while not (p := c.get(f"/v1/jobs/{job_id}").json())["progress"]["done"] and time.monotonic() < deadline:
            assert p["state"] in ("queued", "running"), p
            time.sleep(0.05)
        assert p["progress"]["total"] and p["progress"]["eta_s"] is not None and 0 < p["progress"]["percent"] < 100
        cancelled = c.delete(f"/v1/jobs/{job_id}")
        assert cancelled.status_code in (200, 202), cancelled.text
        cancelled = _wait(c, job_id)
        assert cancelled["state"] == "cancelled" and "resume" in cancelled["error"]
        assert _reader_children() == []  # readers joined, nothing defunct
        assert _alias_target(settings) == first_collection and _hits(c) == hits_first
        assert c.delete(f"/v1/jobs/{job_id}").status_code == 409  # already over
        assert c.delete("/v1/jobs/nosuchjob").status_code == 404

        # 3) the same request resumes
        resumed = _wait(c, c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "big")]}).json()["id"])
        assert resumed["state"] == "succeeded", resumed
        assert resumed["result"]["resumed_rows"] > 0
        second_collection = resumed["alias_after"]
        assert resumed["alias_before"] == first_collection and second_collection != first_collection
        assert _hits(c) != hits_first

        # 4) a failed job: logged, alias unchanged
        failed = _wait(c, c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "cut")]}).json()["id"])
        assert failed["state"] == "failed" and failed["alias_after"] == second_collection
        log = "\n".join(r.getMessage() for r in caplog.records)
        assert f"job {failed['id']} failed" in log and "b.xml.gz" in log

        metrics = c.get("/metrics").text
        assert 'biorag_jobs_total{kind="index-rebuild",state="cancelled"} 1.0' in metrics
        assert 'biorag_jobs_total{kind="index-rebuild",state="succeeded"} 2.0' in metrics
        assert 'biorag_jobs_total{kind="index-rebuild",state="failed"} 1.0' in metrics
        assert f'biorag_index_alias_target{{alias="pubmed",collection="{second_collection}"}} 1.0' in metrics
        assert f'biorag_index_rows{{alias="pubmed"}} {float(resumed["result"]["rows"])}' in metrics
        assert "biorag_index_last_success_timestamp_seconds " in metrics
        assert "refused with 429 (busy)" in metrics

        # 5) rollback while searches run: never a non-200, then the first index's rows
        statuses: list[int] = []
        stop = threading.Event()

        def search_loop() -> None:
            with srv.client() as s:
                while not stop.is_set():
                    statuses.append(s.get("/v1/search/pubmed", params={"q": QUERY, "k": 3}).status_code)

        t = threading.Thread(target=search_loop)
        t.start()
        try:
            time.sleep(0.5)
            rb = c.post("/v1/index/rollback")
            time.sleep(0.5)
        finally:
            stop.set()
            t.join(60)
        assert rb.status_code == 200, rb.text
        assert rb.json()["serving"] == first_collection and rb.json()["rolled_back_from"] == second_collection
        assert statuses and set(statuses) == {200}, statuses
        assert _hits(c) == hits_first and _alias_target(settings) == first_collection
        assert f'collection="{first_collection}"}} 1.0' in c.get("/metrics").text
        assert "rolled back" in "\n".join(r.getMessage() for r in caplog.records)

        # 6) gc keeps the rollback target unless told otherwise; never the served one
        gc = c.post("/v1/index/gc").json()
        assert second_collection in [k["name"] for k in gc["kept"] if k["status"] == "previous"]
        assert first_collection not in [x["name"] for x in gc["removed"]]
        gc = c.post("/v1/index/gc", params={"keep_previous": "false"}).json()
        assert second_collection in [x["name"] for x in gc["removed"]]
        assert c.post("/v1/index/rollback").status_code == 409  # nothing left to roll back to
        assert _hits(c) == hits_first


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _is_reader(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def test_sigterm_mid_job_logs_it_reaps_its_readers_and_a_restart_resumes(tmp_path):
    """`biorag serve` in its own process, stopped by SIGTERM during a rebuild."""
    import subprocess
    import sys

    import httpx
    from live_server import free_port

    data = tmp_path / "data"
    with gzip.open(ROWS, "rt") as f:
        lines = f.readlines()
    (data / "big").mkdir(parents=True)
    for i in range(6):
        (data / "big" / f"part{i}.jsonl").write_text("".join(lines[i::6]))  # every part holds records
    port = free_port()
    sets = [f"data_dir={data}", "planner=rules", "index.read_workers=2", "index.checkpoint_seconds=0"]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--port", str(port),
                             *[x for s in sets for x in ("--set", s)]],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    readers: set[int] = set()
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read()
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.3)
        job_id = httpx.post(f"{base}/v1/jobs/index-rebuild", json={"inputs": [str(data / "big")]},
                            timeout=30).json()["id"]
        deadline = time.monotonic() + 300
        while not (p := httpx.get(f"{base}/v1/jobs/{job_id}", timeout=30).json())["progress"]["done"]:
            assert p["state"] in ("queued", "running") and time.monotonic() < deadline, p
            readers |= {c for c in _children(proc.pid) if _is_reader(c)}
            time.sleep(0.05)
        readers |= {c for c in _children(proc.pid) if _is_reader(c)}
        assert readers, "the job ran no reader process"
        proc.send_signal(15)
        err = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert f"abandoning job {job_id} (index-rebuild)" in err and "resume" in err
    assert "Traceback" not in err
    for pid in readers:  # reaped by the server before it exited, not left running or defunct
        assert not Path(f"/proc/{pid}").exists() or not _is_reader(pid), pid

    settings = settings_with(*sets)
    with serve(settings) as srv, srv.client() as c:
        job = c.get(f"/v1/jobs/{job_id}").json()
        assert job["state"] == "interrupted" and "resume" in job["error"], job
        assert job_id in [j["id"] for j in c.get("/v1/jobs").json()]
        again = _wait(c, c.post("/v1/jobs/index-rebuild", json={"inputs": [str(data / "big")]}).json()["id"])
        assert again["state"] == "succeeded", again
        assert again["result"]["resumed_rows"] > 0
