"""Job records outlive the process that ran them (SQLite beside the index), a job whose
owner is gone reads `interrupted` with how to resume, cancelling stops a job at its next
progress report, and a stopping server records and logs each job it abandons.

The owner that dies is a real process killed with SIGKILL mid-job."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from serving.job_store import JobStore, Owner
from serving.jobs import JobManager, NotCancellable
from serving.metrics import Metrics

ROOT = Path(__file__).resolve().parents[2]


def _looping(stop_after: float = 60.0, started: threading.Event | None = None):
    def work(progress):
        t0 = time.monotonic()
        n = 0
        while time.monotonic() - t0 < stop_after:
            n += 1
            progress(stage="indexing", done=n, total=10_000, percent=n / 100, eta_s=1.0)
            if started is not None:
                started.set()
            time.sleep(0.01)
        return {"rows": n}

    return work


def test_a_job_whose_process_died_reads_interrupted_and_is_logged(tmp_path, caplog):
    db = tmp_path / "index_jobs" / "jobs.sqlite"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time, threading
        sys.path.insert(0, {str(ROOT)!r})
        from serving.job_store import JobStore, Owner
        from serving.jobs import JobManager
        jobs = JobManager(store=JobStore({str(db)!r}, Owner()))
        def work(progress):
            for n in range(10**6):
                progress(stage="indexing", done=n)
                time.sleep(0.01)
        job = jobs.submit("index-rebuild", {{"inputs": ["/data/pubmed"]}}, work)
        time.sleep(2.5)  # past the first throttled progress write
        print(job.id, flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        job_id = child.stdout.readline().strip()
        assert job_id, "the child did not start its job"
        running = JobStore(db, Owner()).get(job_id)
        assert running is not None and running[0]["state"] == "running" and not running[1]
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)

    with caplog.at_level(logging.WARNING, logger="biorag.serving"):
        jobs = JobManager(store=JobStore(db, Owner()))  # the restarted server
    job = jobs.get(job_id)
    assert job is not None and job.state == "interrupted"
    assert f"pid {child.pid}" in job.error and "resume" in job.error
    assert job.params == {"inputs": ["/data/pubmed"]} and job.progress.done > 0
    assert [j.id for j in jobs.list()] == [job_id]
    assert any(job_id in r.getMessage() and "interrupted" in r.getMessage() for r in caplog.records)
    assert JobStore(db, Owner()).get(job_id)[0]["state"] == "interrupted"  # recorded, not only shown


def test_cancel_stops_the_job_and_is_recorded(tmp_path):
    db = tmp_path / "jobs.sqlite"
    metrics = Metrics()
    jobs = JobManager(store=JobStore(db, Owner()), on_change=metrics.observe_job)
    started = threading.Event()
    job = jobs.submit("index-rebuild", {"inputs": ["x"]}, _looping(started=started))
    assert started.wait(10)
    stopped = jobs.cancel(job.id, wait_s=10)
    assert stopped.state == "cancelled" and "resume" in stopped.error
    assert JobStore(db, Owner()).get(job.id)[0]["state"] == "cancelled"
    with pytest.raises(NotCancellable):
        jobs.cancel(job.id)
    assert jobs.cancel("nosuchjob") is None
    text = metrics.render().decode()
    assert 'biorag_jobs_total{kind="index-rebuild",state="cancelled"} 1.0' in text
    assert 'biorag_jobs_started_total{kind="index-rebuild"} 1.0' in text
    assert 'biorag_jobs_running{kind="index-rebuild"} 0.0' in text
    assert 'biorag_job_seconds_count{kind="index-rebuild",state="cancelled"} 1.0' in text

    done = jobs.submit("index-rebuild", {"inputs": ["x"]}, _looping(stop_after=0.05))
    assert jobs.wait(done.id, 10).state == "succeeded"
    text = metrics.render().decode()
    assert 'biorag_jobs_total{kind="index-rebuild",state="succeeded"} 1.0' in text
    assert "biorag_index_last_success_timestamp_seconds " in text
    assert [j.state for j in JobManager(store=JobStore(db, Owner())).list()] == ["succeeded", "cancelled"]


def test_shutdown_abandons_running_jobs_with_a_log_line(tmp_path, caplog):
    db = tmp_path / "jobs.sqlite"
    jobs = JobManager(store=JobStore(db, Owner()))
    started = threading.Event()
    job = jobs.submit("index-rebuild", {"inputs": ["x"]}, _looping(started=started))
    assert started.wait(10)
    with caplog.at_level(logging.WARNING, logger="biorag.serving"):
        abandoned = jobs.shutdown(wait_s=10)
    assert [j.id for j in abandoned] == [job.id]
    assert any("abandoning job " + job.id in r.getMessage() for r in caplog.records)
    after = JobManager(store=JobStore(db, Owner())).get(job.id)
    assert after.state == "interrupted" and "resume" in after.error


def test_another_hosts_record_is_not_declared_dead(tmp_path):
    """A replica on another host may still run its job: nothing here can tell, so it stays."""
    db = tmp_path / "jobs.sqlite"
    far = Owner()
    far.host = "replica-2"
    far.pid = os.getpid()
    JobStore(db, far).save({"id": "abc", "created_at": time.time(), "state": "running", "kind": "index-rebuild"})
    assert JobManager(store=JobStore(db, Owner())).get("abc").state == "running"
