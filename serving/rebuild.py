"""The index-rebuild job: request body and the work function the JobManager runs.

The indexing pipeline writes a *new* collection and switches the alias only after it
verified the result, so the previous index keeps serving throughout and after a failure.
It runs inside this process because the server owns the Milvus Lite file. Input paths
are files on the server: a request may only name files under `data_dir` or one of
`serve.rebuild_roots`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from serving.errors import FieldError

if TYPE_CHECKING:
    from serving.engine import Engine
    from serving.jobs import ProgressFn


class RebuildRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    inputs: list[str] = Field(..., min_length=1, description="PubMed XML/JSONL files or folders on the server")
    embedder: str | None = Field(None, description="embedder name or path; default: index.embedder")
    limit: int | None = Field(None, ge=1, description="index at most this many records (a trial run)")


def allowed_roots(engine: Engine) -> list[Path]:
    s = engine.settings
    return [Path(s.data_dir).resolve()] + [Path(p).resolve() for p in s.serve.rebuild_roots]


def check_inputs(engine: Engine, req: RebuildRequest) -> list[Path]:
    roots = allowed_roots(engine)
    out = []
    for i, raw in enumerate(req.inputs):
        p = Path(raw).expanduser().resolve()
        if not any(p == r or r in p.parents for r in roots):
            raise FieldError(
                f"body.inputs.{i}",
                f"{raw} is outside the directories rebuild jobs may read ({', '.join(map(str, roots))}); "
                "add its folder to serve.rebuild_roots",
            )
        if not p.exists():
            raise FieldError(f"body.inputs.{i}", f"{raw} does not exist on the server")
        out.append(p)
    return out


def rebuild_work(engine: Engine, req: RebuildRequest):
    """Validate now (422 before a job exists); return the function the job thread runs."""
    inputs = check_inputs(engine, req)

    def work(progress: ProgressFn) -> dict:
        from indexing.jobs import run_rebuild  # the indexing package's job API

        result = run_rebuild(engine.settings, inputs, embedder=req.embedder, limit=req.limit, progress=progress)
        engine.forget("pubmed")  # next search opens the new collection behind the alias
        return result

    return work
