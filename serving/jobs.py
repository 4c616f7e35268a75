"""Background jobs with progress, one at a time.

A job is a function `work(progress) -> result dict` run in its own thread; `progress`
takes keyword fields (stage, done, total, message) that GET /v1/jobs/{id} shows. A second
submission while one runs is refused (409): an index rebuild holds the embedder, the
vector store and much memory, and two at once would only slow both.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

log = logging.getLogger("biorag.serving")

State = Literal["queued", "running", "succeeded", "failed"]


class Progress(BaseModel):
    stage: str = ""
    done: int = 0
    total: int | None = None
    message: str = ""


class Job(BaseModel):
    id: str
    kind: str
    state: State = "queued"
    params: dict[str, Any] = Field(default_factory=dict)
    progress: Progress = Field(default_factory=Progress)
    created_at: float = Field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None
    error: str | None = None
    result: dict[str, Any] | None = None


class JobFailed(Exception):
    """A job that ran to its end but did not succeed; `result` still tells what it did."""

    def __init__(self, message: str, result: dict[str, Any] | None = None):
        super().__init__(message)
        self.result = result


class JobBusy(Exception):
    def __init__(self, running: Job):
        super().__init__(f"job {running.id} ({running.kind}) is still {running.state}")
        self.running = running


ProgressFn = Callable[..., None]


class JobManager:
    def __init__(self, keep: int = 50):
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._active: str | None = None
        self._threads: dict[str, threading.Thread] = {}
        self._keep = keep

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(job_id)
            return job.model_copy(deep=True) if job else None

    def list(self) -> list[Job]:
        with self._lock:
            return [j.model_copy(deep=True) for j in reversed(self._jobs.values())]

    def submit(self, kind: str, params: dict[str, Any], work: Callable[[ProgressFn], dict | None]) -> Job:
        with self._lock:
            if self._active is not None:
                raise JobBusy(self._jobs[self._active].model_copy(deep=True))
            job = Job(id=uuid.uuid4().hex[:12], kind=kind, params=params)
            self._jobs[job.id] = job
            while len(self._jobs) > self._keep:
                self._jobs.popitem(last=False)
            self._active = job.id
            t = threading.Thread(target=self._run, args=(job.id, work), name=f"biorag-job-{job.id}", daemon=True)
            self._threads[job.id] = t
        t.start()
        return job.model_copy(deep=True)

    def wait(self, job_id: str, timeout: float | None = None) -> Job | None:
        t = self._threads.get(job_id)
        if t is not None:
            t.join(timeout)
        return self.get(job_id)

    def _update(self, job_id: str, **fields: Any) -> None:
        with self._lock:
            job = self._jobs[job_id]
            for k, v in fields.items():
                setattr(job, k, v)

    def _progress(self, job_id: str) -> ProgressFn:
        def report(stage: str | None = None, done: int | None = None, total: int | None = None,
                   message: str | None = None, **_ignored: Any) -> None:
            with self._lock:
                p = self._jobs[job_id].progress
                if stage is not None:
                    p.stage = stage
                if done is not None:
                    p.done = done
                if total is not None:
                    p.total = total
                if message is not None:
                    p.message = message

        return report

    def _run(self, job_id: str, work: Callable[[ProgressFn], dict | None]) -> None:
        self._update(job_id, state="running", started_at=time.time())
        try:
            result = work(self._progress(job_id))
            self._update(job_id, state="succeeded", result=result or {}, finished_at=time.time())
        except JobFailed as e:
            log.warning("job %s failed: %s", job_id, e)
            self._update(job_id, state="failed", error=str(e), result=e.result, finished_at=time.time())
        except Exception as e:  # a job failure is reported on the job, never crashes the server
            log.warning("job %s failed: %s", job_id, e)
            msg = str(e) or type(e).__name__
            self._update(job_id, state="failed", error=msg, finished_at=time.time())
        finally:
            with self._lock:
                self._active = None
                self._threads.pop(job_id, None)
