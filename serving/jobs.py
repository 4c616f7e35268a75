"""Background jobs with progress, one at a time, recorded durably.

A job is a function `work(progress) -> result dict` run in its own thread; `progress`
takes keyword fields (stage, done, total, message, percent, eta_s) that GET
/v1/jobs/{id} shows. A second submission while one runs is refused (409): an index
rebuild holds the embedder, the vector store and much memory, and two at once would
only slow both.

With a `JobStore` (`serving.job_store`, SQLite beside the index) every job is recorded
when it starts, as it progresses (at most every `PERSIST_EVERY_S` seconds) and when it
ends, so jobs are listed after a restart. A record left `running` by a process that is
gone reads `interrupted`, with how to resume: a rebuild re-run with the same inputs
continues where its last checkpoint left it.

Cancelling (`cancel`) sets the job's flag; the next `progress()` call in the job raises
`JobCancelled`, so the work unwinds through its own clean-up (a rebuild stops its reader
processes and checkpoints what it wrote; its collection stays for a resume or for
`biorag index gc`). `shutdown` cancels what still runs, waits for it, and logs each job
it had to abandon.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from serving.job_store import JobStore

log = logging.getLogger("biorag.serving")

State = Literal["queued", "running", "cancelling", "succeeded", "failed", "cancelled", "interrupted"]
FINAL = ("succeeded", "failed", "cancelled", "interrupted")
PERSIST_EVERY_S = 2.0
RESUME_HINT = "re-submit the same request (same inputs and mode) to resume from its last checkpoint"
_STOPPED = f"the server stopped during the job; {RESUME_HINT}"


class Progress(BaseModel):
    stage: str = ""
    done: int = 0
    total: int | None = Field(None, description="records expected in all; an estimate from the bytes of the "
                              "input files read so far until the job ends")
    percent: float | None = Field(None, description="share of the input bytes read, 0-100")
    eta_s: float | None = Field(None, description="seconds left at the rate so far")
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
    alias_before: str | None = Field(None, description="the collection the alias served when the job started")
    alias_after: str | None = Field(None, description="the collection the alias serves after the job")
    owner: dict[str, Any] | None = Field(None, description="host and process id of the server running the job")


class JobFailed(Exception):
    """A job that ran to its end but did not succeed; `result` still tells what it did."""

    def __init__(self, message: str, result: dict[str, Any] | None = None):
        super().__init__(message)
        self.result = result


class JobCancelled(Exception):
    """Raised inside a job by `progress()` once the job was asked to stop."""


class JobBusy(Exception):
    def __init__(self, running: Job):
        super().__init__(f"job {running.id} ({running.kind}) is still {running.state}")
        self.running = running


class NotCancellable(Exception):
    def __init__(self, job: Job, why: str = ""):
        super().__init__(why or f"job {job.id} is {job.state}: only a queued or running job can be cancelled")
        self.job = job


ProgressFn = Callable[..., None]
Listener = Callable[[Job], None]


class JobManager:
    def __init__(self, keep: int = 50, store: JobStore | None = None, on_change: Listener | None = None):
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._active: str | None = None
        self._threads: dict[str, threading.Thread] = {}
        self._cancel: dict[str, threading.Event] = {}
        self._keep = keep
        self._store = store
        self._on_change = on_change
        self._saved_at: dict[str, float] = {}
        self._stopping = False
        if store is not None:
            self._adopt_orphans()

    # ---- records ---------------------------------------------------------------------

    def _adopt_orphans(self) -> None:
        """Mark the records of jobs whose server is gone as interrupted, and say so."""
        assert self._store is not None
        for rec, gone in self._store.unfinished():
            if not gone:
                continue
            job = _interrupted(Job.model_validate(rec))
            self._store.save(job.model_dump(mode="json"))
            log.warning("job %s (%s) was interrupted: %s", job.id, job.kind, job.error)

    def _persist(self, job: Job, force: bool = True) -> None:
        if self._store is None:
            return
        now = time.monotonic()
        if not force and now - self._saved_at.get(job.id, 0.0) < PERSIST_EVERY_S:
            return
        self._saved_at[job.id] = now
        try:
            self._store.save(job.model_dump(mode="json"))
        except Exception as e:  # noqa: BLE001 - a full disk must not kill the job it records
            log.warning("could not record job %s: %s", job.id, e)

    def _changed(self, job: Job) -> None:
        if self._on_change is not None:
            try:
                self._on_change(job)
            except Exception as e:  # noqa: BLE001 - metrics never break a job
                log.debug("job listener failed: %s", e)

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None:
                return job.model_copy(deep=True)
        if self._store is None:
            return None
        found = self._store.get(job_id)
        if found is None:
            return None
        return _as_seen(*found)

    def list(self) -> list[Job]:
        with self._lock:
            mine = {j.id: j.model_copy(deep=True) for j in self._jobs.values()}
        if self._store is None:
            return list(reversed(mine.values()))
        out = {rec["id"]: _as_seen(rec, gone) for rec, gone in self._store.recent(self._keep)}
        out.update(mine)
        return sorted(out.values(), key=lambda j: j.created_at, reverse=True)[: max(self._keep, len(mine))]

    # ---- running ---------------------------------------------------------------------

    def submit(self, kind: str, params: dict[str, Any], work: Callable[[ProgressFn], dict | None],
               alias_before: str | None = None) -> Job:
        with self._lock:
            if self._active is not None:
                raise JobBusy(self._jobs[self._active].model_copy(deep=True))
            owner = self._store.owner.as_dict() if self._store is not None else None
            job = Job(id=uuid.uuid4().hex[:12], kind=kind, params=params, alias_before=alias_before, owner=owner)
            self._jobs[job.id] = job
            while len(self._jobs) > self._keep:
                self._jobs.popitem(last=False)
            self._active = job.id
            self._cancel[job.id] = threading.Event()
            t = threading.Thread(target=self._run, args=(job.id, work), name=f"biorag-job-{job.id}", daemon=True)
            self._threads[job.id] = t
            snapshot = job.model_copy(deep=True)
        self._persist(snapshot)
        log.info("job %s (%s) started: %s", job.id, kind, params)
        t.start()
        return snapshot

    def wait(self, job_id: str, timeout: float | None = None) -> Job | None:
        t = self._threads.get(job_id)
        if t is not None:
            t.join(timeout)
        return self.get(job_id)

    def cancel(self, job_id: str, wait_s: float = 0.0) -> Job | None:
        """Ask a running job to stop; wait up to `wait_s` for it. None: no such job here."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                pass
            elif job.state not in ("queued", "running", "cancelling"):
                raise NotCancellable(job.model_copy(deep=True))
            else:
                self._cancel[job_id].set()
                if job.state != "cancelling":
                    job.state = "cancelling"
        if job is None:
            stored = self.get(job_id)
            if stored is not None and stored.state not in FINAL:
                owner = stored.owner or {}
                raise NotCancellable(stored, f"job {job_id} runs on another server ({owner.get('host', '?')} pid "
                                             f"{owner.get('pid', '?')}): cancel it there")
            if stored is not None:
                raise NotCancellable(stored)
            return None
        log.info("job %s (%s): cancel requested", job_id, job.kind)
        self._persist(job)
        if wait_s:
            self.wait(job_id, wait_s)
        return self.get(job_id)

    def running(self) -> list[Job]:
        with self._lock:
            return [j.model_copy(deep=True) for j in self._jobs.values() if j.state not in FINAL]

    def shutdown(self, wait_s: float = 20.0) -> list[Job]:
        """Stop every job still running (server shutdown): cancel, wait, then record and log
        each as interrupted. Returns the jobs abandoned."""
        self._stopping = True
        abandoned = self.running()
        for job in abandoned:
            log.warning("server stopping: abandoning job %s (%s) at %s (%s done); %s", job.id, job.kind,
                        job.progress.stage or job.state, job.progress.done, RESUME_HINT)
            self._cancel[job.id].set()
        deadline = time.monotonic() + wait_s
        for job in abandoned:
            t = self._threads.get(job.id)
            if t is not None:
                t.join(max(0.0, deadline - time.monotonic()))
            if t is not None and t.is_alive():  # still unwinding: record it now, it will not finish
                log.warning("job %s did not stop within %.0f s", job.id, wait_s)
                self._update(job.id, state="interrupted", finished_at=time.time(), error=_STOPPED)
        return abandoned

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def _update(self, job_id: str, **fields: Any) -> Job:
        with self._lock:
            job = self._jobs[job_id]
            for k, v in fields.items():
                setattr(job, k, v)
            snapshot = job.model_copy(deep=True)
        self._persist(snapshot)
        self._changed(snapshot)
        return snapshot

    def _progress(self, job_id: str) -> ProgressFn:
        stop = self._cancel[job_id]

        def report(stage: str | None = None, done: int | None = None, total: int | None = None,
                   message: str | None = None, percent: float | None = None, eta_s: float | None = None,
                   **_ignored: Any) -> None:
            if stop.is_set():
                raise JobCancelled(f"job {job_id} cancelled")
            with self._lock:
                job = self._jobs[job_id]
                p = job.progress
                for name, value in (("stage", stage), ("done", done), ("total", total), ("message", message),
                                    ("percent", percent), ("eta_s", eta_s)):
                    if value is not None:
                        setattr(p, name, value)
                snapshot = job.model_copy(deep=True)
            self._persist(snapshot, force=False)

        return report

    def _run(self, job_id: str, work: Callable[[ProgressFn], dict | None]) -> None:
        self._update(job_id, state="running", started_at=time.time())
        try:
            result = work(self._progress(job_id))
            result = result or {}
            job = self._update(job_id, state="succeeded", result=result, finished_at=time.time(),
                               **_aliases(result))
            log.info("job %s (%s) succeeded in %.1f s", job_id, job.kind, (job.finished_at or 0) - (job.started_at or 0))
        except JobCancelled:
            self._stopped(job_id)
        except JobFailed as e:
            log.warning("job %s failed: %s", job_id, e)
            self._update(job_id, state="failed", error=str(e), result=e.result, finished_at=time.time(),
                         **_aliases(e.result or {}))
        except Exception as e:  # a job failure is reported on the job, never crashes the server
            if self._cancel[job_id].is_set():  # the work wrapped the JobCancelled it unwound with
                self._stopped(job_id)
            else:
                log.warning("job %s failed: %s", job_id, e)
                msg = str(e) or type(e).__name__
                self._update(job_id, state="failed", error=msg, finished_at=time.time())
        finally:
            with self._lock:
                self._active = None
                self._threads.pop(job_id, None)

    def _stopped(self, job_id: str) -> None:
        if self._stopping:
            self._update(job_id, state="interrupted", finished_at=time.time(), error=_STOPPED)
            return
        log.warning("job %s cancelled; %s", job_id, RESUME_HINT)
        self._update(job_id, state="cancelled", finished_at=time.time(), error=f"cancelled on request; {RESUME_HINT}")


def _aliases(result: dict[str, Any]) -> dict[str, Any]:
    out = {}
    if "alias_before" in result:
        out["alias_before"] = result["alias_before"]
    if "alias_after" in result:
        out["alias_after"] = result["alias_after"]
    return out


def _interrupted(job: Job) -> Job:
    owner = job.owner or {}
    where = f"{owner.get('host', '?')} pid {owner.get('pid', '?')}"
    job.state = "interrupted"
    job.error = f"the server that ran it ({where}) stopped during the job; {RESUME_HINT}"
    return job


def _as_seen(rec: dict[str, Any], gone: bool) -> Job:
    job = Job.model_validate(rec)
    if gone and job.state not in FINAL:
        job = _interrupted(job)
    return job
