"""How failures become HTTP responses: one error shape everywhere, `ErrorBody`.

    {"error": "invalid request", "detail": "body.top_k: Input should be ...", "fields": [...]}

`error` is a short name, `detail` one line a person can act on, and `fields` lists each
request field at fault (`body.top_k`, `query.q`, `header.host`), empty when no single
field is. The middlewares (host check, auth, size limit), FastAPI's validation,
Starlette's 404/405 and our own errors all answer in it, and the OpenAPI document
declares it for every status a route can answer.

- `FieldError` (our checks after parsing) -> 422; `OverrideRefused` -> 403;
  `RequestValidationError` (malformed JSON, wrong types) -> 422; a body that is not
  UTF-8 -> 400.
- BioragError subclasses map to the status that tells a client what to do next: a source
  whose local data was never built (`NotBuilt`) -> 404 "not available on this server",
  its detail naming the build command; every agent slot busy (`ServiceBusy`) -> 429 with
  Retry-After (what OpenAI clients back off on). The same statuses hold for the REST
  routes and the chat API (`serving.routes.chat` writes them in OpenAI's error shape).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from biorag.contracts.errors import (
    BioragError,
    ConfigError,
    InputError,
    LLMError,
    NoRecord,
    NotBuilt,
    NotRecorded,
    SourceUnavailable,
    ToolError,
)
from biorag.contracts.redaction import scrub, scrub_obj

log = logging.getLogger("biorag.serving")


_REASONS = {400: "bad request", 401: "unauthorized", 403: "forbidden", 404: "not found",
            405: "method not allowed", 406: "not acceptable", 413: "request too large",
            415: "unsupported media type", 429: "busy"}

#: the `error` of a source that is not built here (404)
NOT_BUILT = "not available on this server"


class FieldIssue(BaseModel):
    field: str = Field(..., description="dotted location: body.question, query.k, path.source, header.host")
    message: str


class ErrorBody(BaseModel):
    """Every error response (4xx and 5xx) of the API, and the SSE `error` event's data."""

    error: str = Field(..., description="short name of the failure, e.g. 'invalid request', 'LLMError'")
    detail: str = Field(..., description="one line: what was wrong and how to fix it")
    fields: list[FieldIssue] = Field(default_factory=list, description="the request fields at fault")


class FieldError(Exception):
    """A request value we reject after parsing; `field` is dotted, e.g. `query.k`. 422 by
    default; `status` for a value that is well-formed but names something forbidden (403)
    or absent (404)."""

    status = 422
    error = "invalid request"

    def __init__(self, field: str, message: str, status: int | None = None):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        if status is not None:
            self.status = status
            self.error = _REASONS.get(status, self.error)


class OverrideRefused(FieldError):
    """A per-request override that would leave the operator's configuration (another
    host, another tool I/O mode, a source the operator disabled)."""

    status = 403
    error = "forbidden"


class NothingToSearch(FieldError):
    """Valid overrides that together switch off every source: the request conflicts
    with what this server can do for it."""

    status = 409
    error = "conflict"


class ServiceBusy(Exception):
    """Every agent slot is taken; the client should retry after `retry_after` seconds
    (429 with Retry-After)."""

    def __init__(self, retry_after: int):
        super().__init__("busy")
        self.retry_after = retry_after


class ScrubbedJSONResponse(JSONResponse):
    """The app's response class: every JSON body is scrubbed of secrets on the way out."""

    def render(self, content: Any) -> bytes:
        return super().render(scrub_obj(content))


def error_json(status: int, error: str, detail: str, fields: list[dict] | None = None,
               headers: dict[str, str] | None = None) -> ScrubbedJSONResponse:
    body = ErrorBody(error=error, detail=detail, fields=[FieldIssue(**f) for f in fields or []])
    return ScrubbedJSONResponse(body.model_dump(), status_code=status, headers=headers)


def invalid(details: list[dict], status: int = 422, error: str = "invalid request") -> ScrubbedJSONResponse:
    line = "; ".join(f"{d['field']}: {d['message']}" for d in details) or "the request is invalid"
    return error_json(status, error, line, details)


def _field_of(loc: tuple) -> str:
    return ".".join(str(p) for p in loc) or "body"


def validation_details(exc: RequestValidationError) -> list[dict]:
    out = []
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        msg = err.get("msg", "invalid value")
        if err.get("type") == "json_invalid":
            pos = loc[1] if len(loc) > 1 else "?"
            msg = f"malformed JSON at character {pos}: {err.get('ctx', {}).get('error', msg)}"
            loc = ("body",)
        elif err.get("type") == "extra_forbidden":
            msg = "unknown field"
        out.append({"field": _field_of(loc), "message": msg})
    return out


def status_for(exc: BioragError) -> int:
    """The HTTP status for an error raised by the agent or a retriever."""
    if isinstance(exc, (InputError, ConfigError)):
        return 422
    if isinstance(exc, (NotRecorded, NoRecord, NotBuilt)):
        # the source holds nothing for it (or, replaying, the recording does not; or the
        # source's data was never built on this server: the detail says how to build it)
        return 404
    if isinstance(exc, SourceUnavailable):
        return 503
    if isinstance(exc, (ToolError, LLMError)):
        return 502
    return 500


def error_body(exc: BioragError) -> dict:
    name = NOT_BUILT if isinstance(exc, NotBuilt) else type(exc).__name__
    return ErrorBody(error=name, detail=scrub(str(exc))).model_dump()


def busy_response(exc: ServiceBusy) -> ScrubbedJSONResponse:
    return error_json(429, "busy", "all answer slots are in use; retry after the Retry-After seconds",
                      headers={"Retry-After": str(exc.retry_after)})


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def allowed_methods(request: Request) -> list[str]:
    """The methods the resource at this path takes, for a 405's Allow header. Starlette's
    names only the first route matching the path (GET /v1/jobs/{id}, not DELETE beside it).
    A documented path answers with the methods its document lists, the literal path before
    a template (/v1/jobs/index-rebuild is not a job id); another path (the page) with every
    method some route takes there."""
    path = request.scope.get("path", "")
    documented = request.app.openapi().get("paths", {})
    templates = [t for t in documented if re.fullmatch(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(t)), path)]
    if templates:
        return [m for m in _METHODS if m.lower() in documented[min(templates, key=lambda t: t.count("{"))]]
    routes = request.app.router.routes
    return [m for m in _METHODS if any(r.matches({**request.scope, "method": m})[0] == Match.FULL for r in routes)]


def install_handlers(app) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError):
        return invalid(validation_details(exc))

    @app.exception_handler(FieldError)
    async def _field(_: Request, exc: FieldError):
        return invalid([{"field": exc.field, "message": exc.message}], exc.status, exc.error)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 400 and "parsing the body" in detail:
            detail = "the body could not be read as JSON text (is it UTF-8?)"
            return invalid([{"field": "body", "message": detail}], 400, "bad request")
        fields = None
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no route {request.url.path}: see /docs for the API"
            fields = [{"field": "path", "message": "no such route"}]
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}"
            fields = [{"field": "method", "message": detail}]
            headers = {**(headers or {}), "Allow": ", ".join(allowed_methods(request))}
        return error_json(exc.status_code, _REASONS.get(exc.status_code, "error"), detail, fields, headers=headers)

    @app.exception_handler(ServiceBusy)
    async def _busy(_: Request, exc: ServiceBusy):
        return busy_response(exc)

    @app.exception_handler(BioragError)
    async def _biorag(_: Request, exc: BioragError):
        status = status_for(exc)
        if status >= 500:
            log.warning("request failed: %s", exc)
        return ScrubbedJSONResponse(error_body(exc), status_code=status)
