"""The index-rebuild job: request body and the work function the JobManager runs.

`indexing.build.build_index` writes a *new* physical collection and points the alias at
it only after verifying it, so the previous index keeps serving during the job and after
a failure. The job runs inside the server process because the server owns the Milvus
Lite store (milvus-lite runs one store server per file per process; the build's client
and the retriever's share it). After a switch the PubMed retriever is rebuilt, so the
next search resolves the alias to the new collection.

Input paths are files on the server: a request may only name files under `data_dir` or
one of `serve.rebuild_roots`. A path is checked as text first (no NUL, no `~user`), then
resolved; every file the job finds in a folder is resolved again and refused (named in
the job's result, alias left alone) when it leads outside those folders, e.g. a symlink. The embedder is the server's (`index.embedder`): queries
and documents must be embedded by the same model; to change it, restart the server with
the new `index.embedder` and rebuild.

The job reports progress with an estimated total and ETA (from the bytes of the input files
read to their end), stops at its next batch when cancelled (`JobCancelled` from
`progress()`: the build stops its readers and checkpoints, so the same request resumes),
records the alias before and after, and logs its start, its alias switch and its failure.
The encoder's raw-rate sample, a benchmark figure, is off in jobs unless `rate_sample`.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from serving.errors import FieldError
from serving.jobs import JobCancelled, JobFailed

if TYPE_CHECKING:
    from application.engine import Engine
    from serving.jobs import ProgressFn


class RebuildRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    inputs: list[str] = Field(
        ..., min_length=1, description="PubMed XML/MEDLINE/JSONL files or folders on the server: absolute, "
        "under data_dir or serve.rebuild_roots (403 outside them, 404 when missing)",
        # what check_inputs refuses with 422 (blank, '~', NUL), stated for clients and fuzzers
        json_schema_extra={"items": {"type": "string", "pattern": "^[^~\\s\\x00][^\\x00]*$"}},
    )
    mode: Literal["rebuild", "update"] = Field(
        "rebuild",
        description="rebuild: new collection, alias switched after verification; "
        "update: upsert/delete into the live collection (daily update files)",
    )
    allow_shrink: bool = Field(
        False,
        description="switch the alias even when the rebuild holds fewer rows than index.rebuild_min_fraction "
        "of the collection it replaces",
    )
    rate_sample: bool = Field(
        False,
        description="after the build, time the encoder alone on a sample of the texts (a benchmark figure; "
        "adds about 15 % to a job)",
    )


log = logging.getLogger("biorag.serving")


def allowed_roots(engine: Engine) -> list[Path]:
    s = engine.settings
    return [Path(s.data_dir).resolve()] + [Path(p).resolve() for p in s.serve.rebuild_roots]


def check_inputs(engine: Engine, req: RebuildRequest) -> list[Path]:
    roots = allowed_roots(engine)
    out = []
    for i, raw in enumerate(req.inputs):
        field = f"body.inputs.{i}"
        if not raw.strip() or "\x00" in raw:
            raise FieldError(field, "give a file or folder path on the server (not empty, no NUL character)")
        if raw.startswith("~"):
            raise FieldError(field, f"{raw!r}: give an absolute path; '~' is not expanded on the server")
        try:
            p = Path(raw).resolve()
            exists = p.exists()
        except (OSError, RuntimeError, ValueError) as e:
            raise FieldError(field, f"{raw!r} is not a usable path on the server: {e}") from None
        if not any(p == r or r in p.parents for r in roots):
            raise FieldError(
                field,
                f"{raw} is outside the folders rebuild jobs may read ({', '.join(map(str, roots))}); "
                "add its folder to serve.rebuild_roots",
                status=403,
            )
        if not exists:
            raise FieldError(field, f"{raw} does not exist on the server", status=404)
        out.append(p)
    return out


def rebuild_work(engine: Engine, req: RebuildRequest):
    """Validate now (422 before any job exists); return the function the job thread runs."""
    inputs = check_inputs(engine, req)

    settings = engine.settings.model_copy(deep=True)
    settings.index.rate_sample = req.rate_sample

    def work(progress: ProgressFn) -> dict:
        from indexing.build import build_index, format_report

        t0 = time.monotonic()

        def on_progress(report) -> None:
            percent = total = eta = None
            if report.bytes_total:
                share = report.bytes_done / report.bytes_total
                percent = round(100 * share, 1)
                if share > 0:
                    total = max(report.read, round(report.read / share))
                    eta = round((time.monotonic() - t0) * (1 - share) / share, 1)
            progress(stage="indexing", done=report.read, total=total, percent=percent, eta_s=eta,
                     message=f"{report.kept} kept, {report.upserted} upserted, {report.deleted} deleted, "
                             f"{len(report.failed_files)} file(s) failed")

        alias = settings.index.collection
        progress(stage="starting", message=f"{len(inputs)} input(s) into '{alias}'")
        report = build_index(settings, inputs, rebuild=req.mode == "rebuild", progress=False,
                             on_progress=on_progress, allow_shrink=req.allow_shrink,
                             allowed_roots=allowed_roots(engine))
        if report.alias_switched or req.mode == "update":
            engine.forget("pubmed")  # next search resolves the alias again
        result = report.to_dict()
        result["summary"] = format_report(report)
        result["alias_before"] = report.previous_collection
        result["alias_after"] = report.collection if report.alias_switched or report.mode == "update" \
            else report.previous_collection
        result["served_rows"] = report.rows if result["alias_after"] == report.collection else report.previous_rows
        if not report.ok:
            raise JobFailed(_failure_message(report), result)
        try:
            progress(stage="done", done=report.read, total=report.read, percent=100.0, eta_s=0.0)
        except JobCancelled:  # asked too late: the build finished, and its result stands
            log.info("cancel of the finished rebuild into '%s' came too late; it succeeded", alias)
        return result

    return work


def _failure_message(report) -> str:
    parts = [f"{f}: {err}" for f, err in report.failed_files.items()]
    parts += [f"refused {f}: {why}" for f, why in report.refused_files.items()]
    if report.mode == "update":
        if not report.verified:
            parts.append("verification failed (" + "; ".join(report.verify_problems) + ")")
        return "; ".join(parts)
    serving = (f"'{report.alias}' still serves {report.previous_collection}" if report.previous_collection
               else "no index was serving")
    parts.append(f"alias not switched ({'; '.join(report.switch_blockers())}): {serving}")
    return "; ".join(parts)
