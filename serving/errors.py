"""How failures become HTTP responses. Every client error names the field at fault.

- `FieldError` (our own checks: unknown switch, out-of-range override, long question) and
  FastAPI's `RequestValidationError` (malformed JSON, wrong types) -> 422
  `{"error": "invalid request", "detail": [{"field": "body.top_k", "message": ...}]}`.
- BioragError subclasses map to the status that tells a client what to do next.
"""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from biorag.errors import (
    BioragError,
    ConfigError,
    InputError,
    LLMError,
    NotRecorded,
    SourceUnavailable,
    ToolError,
)

log = logging.getLogger("biorag.serving")


class FieldError(Exception):
    """A request value we reject after parsing; `field` is dotted, e.g. `query.k`."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class ServiceBusy(Exception):
    """Every agent slot is taken; the client should retry after `retry_after` seconds."""

    def __init__(self, retry_after: int):
        super().__init__("busy")
        self.retry_after = retry_after


def invalid(details: list[dict]) -> JSONResponse:
    return JSONResponse({"error": "invalid request", "detail": details}, status_code=422)


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
    if isinstance(exc, NotRecorded):
        return 404  # replay mode: the recording holds no answer for this request
    if isinstance(exc, SourceUnavailable):
        return 503
    if isinstance(exc, (ToolError, LLMError)):
        return 502
    return 500


def error_body(exc: BioragError) -> dict:
    return {"error": type(exc).__name__, "detail": str(exc)}


def install_handlers(app) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError):
        return invalid(validation_details(exc))

    @app.exception_handler(FieldError)
    async def _field(_: Request, exc: FieldError):
        return invalid([{"field": exc.field, "message": exc.message}])

    @app.exception_handler(ServiceBusy)
    async def _busy(_: Request, exc: ServiceBusy):
        return JSONResponse(
            {"error": "busy", "detail": "all answer slots are in use; retry later"},
            status_code=503,
            headers={"Retry-After": str(exc.retry_after)},
        )

    @app.exception_handler(BioragError)
    async def _biorag(_: Request, exc: BioragError):
        status = status_for(exc)
        if status >= 500:
            log.warning("request failed: %s", exc)
        return JSONResponse(error_body(exc), status_code=status)
