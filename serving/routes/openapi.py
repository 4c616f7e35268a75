"""What the OpenAPI document declares for every route: the one error shape (ErrorBody) per
status a route can answer, and the API-key guard of the /v1 routes and /metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Security
from pydantic import BaseModel

from serving.errors import ErrorBody
from serving.security import api_key_scheme, bearer_scheme

_WHY = {
    400: "the Host header is not a name of this server, or the body is not UTF-8 text",
    401: "missing or invalid API key",
    403: "outside the operator's configuration: an override changing hosts, tool I/O or a disabled source; "
         "a rebuild input outside serve.rebuild_roots",
    404: "no such record, MeSH descriptor, job or input file (for a replayed source: not in the recording); "
         "or the source is not available on this server (its store or index was never built: the detail "
         "names the build command)",
    409: "another job is running, or the overrides leave no source to search",
    413: "the request body is too large",
    422: "a request field is invalid; `fields` names it",
    429: "every answer slot is busy: retry after the Retry-After header's seconds",
    502: "an upstream (NCBI, the LLM server) failed",
    503: "a source is unavailable (its store cannot be opened, a package or the network is missing)",
    504: "no answer within the request deadline",
}


def errors(*codes: int, **models: type[BaseModel]) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: each status with the one error shape (`m409=Model` for
    another model under 409)."""
    return {c: {"model": models.get(f"m{c}", ErrorBody), "description": _WHY[c]} for c in codes}


@dataclass(frozen=True)
class Guard:
    """The API-key check of a guarded route as the document states it. The check itself is
    a middleware (it runs before the body is read, `serving.security.ApiKeyAuth`); this
    declares the schemes and the 401, only when the server has keys."""

    dependencies: list = field(default_factory=list)
    auth: tuple[int, ...] = ()

    @classmethod
    def for_keys(cls, keys: list[str]) -> Guard:
        if not keys:
            return cls()
        return cls([Security(bearer_scheme), Security(api_key_scheme)], (401,))


def errors_as_json(app: FastAPI) -> None:
    """Error responses are JSON on every route, also where the 200 is text (/metrics):
    FastAPI files declared error models under the route's media type, so fix the
    document once it is generated."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = generate()
            for item in doc.get("paths", {}).values():
                for op in item.values():
                    for code, resp in op.get("responses", {}).items():
                        content = resp.get("content") or {}
                        if code[:1] in "45" and content and "application/json" not in content:
                            resp["content"] = {"application/json": next(iter(content.values()))}
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
