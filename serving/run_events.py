"""What one agent run (`serving.runner.Run`) produces, as the routes that answer with the
agent read it: the steps as they happen, then the answer or a failure with its HTTP status.
The REST routes (`/v1/answer`, `/v1/answer/stream`) and the chat API write the same
outcomes in their own wire formats."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from biorag.contracts.errors import BioragError
from biorag.contracts.models import Answer
from serving.errors import ErrorBody, error_body, status_for
from serving.runner import DONE, Run, RunCancelled

log = logging.getLogger("biorag.serving")
KEEPALIVE_S = 15.0


def failure(exc: BaseException, deadline_s: float | None = None) -> tuple[int, dict]:
    """Status and body (ErrorBody) for a run that did not produce an answer."""
    if isinstance(exc, BioragError):
        return status_for(exc), error_body(exc)
    if isinstance(exc, TimeoutError):
        return 504, ErrorBody(error="timeout", detail=f"no answer within the {deadline_s:.0f}s request deadline").model_dump()
    log.error("agent run failed", exc_info=exc)
    return 500, ErrorBody(error="internal error",
                          detail=f"the agent failed unexpectedly ({type(exc).__name__})").model_dump()


async def finished(run: Run) -> Answer | tuple[int, dict]:
    """The run's answer, or (status, ErrorBody) when it failed or missed its deadline; the
    run is asked to stop if it is still going. A cancelled request cancels the run."""
    try:
        return await asyncio.wait_for(asyncio.shield(run.future), run.remaining())
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a response
        run.cancel()
        if isinstance(exc, asyncio.CancelledError):
            raise
        return failure(exc, run.deadline_s)


async def outcomes(run: Run) -> AsyncIterator[tuple[str, Any]]:
    """("trace", TraceEvent) per step as it happens, ("keepalive", None) while a step takes
    long, then ("answer", Answer) or ("error", {"status": ..., **ErrorBody}); a run cancelled
    by its client yields nothing more. The run is cancelled if the consumer goes away."""
    try:
        while True:
            wait = min(run.remaining(), KEEPALIVE_S)
            try:
                item = await asyncio.wait_for(run.queue.get(), timeout=wait)
            except TimeoutError:
                if run.remaining() <= 0:
                    run.cancel()
                    status, body = failure(TimeoutError(), run.deadline_s)
                    yield "error", {"status": status, **body}
                    return
                yield "keepalive", None
                continue
            if item is DONE:
                break
            yield "trace", item
        exc = run.future.exception()
        if exc is None:
            yield "answer", run.future.result()
        elif not isinstance(exc, RunCancelled):
            status, body = failure(exc, run.deadline_s)
            yield "error", {"status": status, **body}
    finally:
        if not run.future.done():
            run.cancel()  # client went away or deadline: stop the agent at its next step
