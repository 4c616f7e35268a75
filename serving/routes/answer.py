"""POST /v1/answer and /v1/answer/stream: a question (+ overrides) answered by the agent,
as one Answer (the object `biorag ask --json` prints) or as Server-Sent Events, a `trace`
event per step and then the `answer`."""

# No `from __future__ import annotations`: the request model is built per server
# (answer_request_model), and FastAPI must see the real class in the route signature.
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from biorag.contracts.models import Answer
from biorag.contracts.redaction import scrub_obj
from biorag.settings import Settings
from serving.errors import NothingToSearch, ScrubbedJSONResponse
from serving.overrides import (
    AnswerRequest,
    answer_request_model,
    check_question,
    effective_settings,
)
from serving.routes.openapi import Guard, errors
from serving.routes.state import RunnerDep
from serving.run_events import finished, outcomes
from serving.runner import Run

#: one Server-Sent Event of /v1/answer/stream (OpenAPI 3.1: the schema describes each event)
SSE_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["trace", "answer", "error"]},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "description": "trace: a TraceEvent; answer: an Answer; error: an ErrorBody with `status`"},
        "id": {"type": "string"},
        "retry": {"type": "integer"},
    },
}


def _sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(scrub_obj(data), ensure_ascii=False, default=str)}\n\n"


def _resolve(settings: Settings, req: AnswerRequest) -> tuple[Settings, str]:
    """The checked question and the settings this request runs under (the server's plus
    its overrides); FieldError (422/403/409) names the field at fault."""
    question = check_question(req.question, settings)
    eff = effective_settings(settings, req) if req.has_overrides() else settings
    if not eff.enabled_sources():
        raise NothingToSearch("body.disable" if req.disable else "body.set",
                              "these overrides switch off every source, leaving the agent nothing to search; "
                              f"keep at least one of {', '.join(settings.enabled_sources())}")
    return eff, question


async def _events(run: Run) -> AsyncIterator[str]:
    """The run's outcomes as SSE: `trace` per step, a keep-alive comment while a step takes
    long, then `answer` or `error`."""
    async for kind, item in outcomes(run):
        if kind == "keepalive":
            yield ": keep-alive\n\n"
        elif kind == "error":
            yield _sse("error", item)
        else:
            yield _sse(kind, item.model_dump(mode="json"))


def answer_router(settings: Settings, guard: Guard) -> APIRouter:
    router = APIRouter()
    AnswerBody = answer_request_model(settings)

    @router.post("/v1/answer", dependencies=guard.dependencies, response_model=Answer,
                 responses=errors(400, *guard.auth, 403, 409, 413, 422, 429, 502, 503, 504),
                 summary="Answer a question (same object as `biorag ask --json`)")
    async def answer(req: AnswerBody, runner: RunnerDep) -> Any:
        eff, question = _resolve(settings, req)
        result = await finished(runner.start(eff, question))
        if isinstance(result, tuple):
            status, body = result
            return ScrubbedJSONResponse(body, status_code=status)
        return ScrubbedJSONResponse(result.model_dump(mode="json"))

    @router.post("/v1/answer/stream", dependencies=guard.dependencies,
                 summary="Answer a question, streaming each trace step as Server-Sent Events",
                 response_class=StreamingResponse,
                 responses={200: {"content": {"text/event-stream": {"schema": SSE_EVENT}},
                                  "description": "events: `trace` (one per step), then `answer`, or `error` "
                                                 "(ErrorBody plus `status`)"},
                            **errors(400, *guard.auth, 403, 409, 413, 422, 429)})
    async def answer_stream(req: AnswerBody, runner: RunnerDep) -> StreamingResponse:
        eff, question = _resolve(settings, req)
        run = runner.start(eff, question)  # 429 here, before the stream starts
        return StreamingResponse(
            _events(run),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    return router
