"""The guards every request passes before any route sees it: the Host header, the API
key, and the body size. Each is an ASGI middleware, so a request is refused before its
body is read or parsed (an unauthenticated client learns nothing about what it sent).

- Host: the `Host` header must name this server (`serve.allowed_hosts`; by default
  localhost, 127.0.0.1, [::1] and `serve.host`; `["*"]` turns the check off). A page on
  another site that rebinds its DNS name to 127.0.0.1 sends its own name, and gets 400.
- Keys: from `serve.api_keys` (or BIORAG_SERVE__API_KEYS='["k1","k2"]'). When any key is
  configured, every /v1 route, /metrics and the MCP endpoint (/mcp) need
  `Authorization: Bearer <key>` or `X-API-Key: <key>`; /healthz, /readyz and the chat page
  stay open. Keys are compared in
  constant time against every configured key, and never logged or echoed.
- Size: bodies over `serve.max_body_bytes` get 413, chunked ones included.

All three answer in the API's one error shape (serving/errors.py); on the MCP endpoint the
same `ErrorBody` rides in a JSON-RPC error object (`error.data`), whose `error.message` is the
one line an MCP client shows (it reads a JSON-RPC error from a non-2xx body).
"""

from __future__ import annotations

import hmac
import json

from fastapi.security import APIKeyHeader, HTTPBearer
from starlette.types import ASGIApp, Receive, Scope, Send

from serving.errors import ErrorBody, FieldIssue

#: the MCP endpoint (streamable HTTP, serving/mcp_server), mounted in the app
MCP_PATH = "/mcp"
#: paths that need a key when keys are configured
PROTECTED_PREFIXES = ("/v1/", "/metrics", MCP_PATH)
#: answered whatever the Host header says (a liveness probe reveals nothing)
HOST_EXEMPT = frozenset({"/healthz"})
DEFAULT_HOSTS = ("localhost", "127.0.0.1", "[::1]")
AUTH_HINT = "send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'"

#: declared in the OpenAPI document when keys are on (the middleware does the checking)
bearer_scheme = HTTPBearer(auto_error=False, description="an API key from serve.api_keys")
api_key_scheme = APIKeyHeader(name="X-API-Key", auto_error=False, description="an API key from serve.api_keys")


def is_mcp(scope: Scope) -> bool:
    path = scope.get("path", "")
    return path == MCP_PATH or path.startswith(MCP_PATH + "/")


def error_bytes(scope: Scope, error: str, detail: str, field: str | None = None) -> bytes:
    """The body of a middleware's error: an `ErrorBody`, or on the MCP endpoint a JSON-RPC
    error carrying it (code -32600, invalid request; id null: the request was not read)."""
    fields = [FieldIssue(field=field, message=detail)] if field else []
    body = ErrorBody(error=error, detail=detail, fields=fields)
    if not is_mcp(scope):
        return body.model_dump_json().encode()
    return json.dumps({"jsonrpc": "2.0", "id": None,
                       "error": {"code": -32600, "message": f"{error}: {detail}", "data": body.model_dump()}}).encode()


async def send_error(send: Send, status: int, error: str, detail: str, field: str | None = None,
                     headers: list[tuple[bytes, bytes]] | None = None, scope: Scope | None = None) -> None:
    """An error response in the API's one shape, from a middleware (no app behind it)."""
    body = error_bytes(scope or {}, error, detail, field)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", []):
        if k.lower() == name:
            return v.decode("latin-1")
    return None


def replaying(body: bytes, receive: Receive) -> Receive:
    """A `receive` for the app behind a middleware that read the body: the body whole, then
    the connection's own messages (a disconnect)."""
    delivered = False

    async def replay() -> dict:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


# ---- Host ---------------------------------------------------------------------------


def host_name(header: str) -> str:
    """The name in a Host header, without the port: `[::1]:8000` -> `[::1]`."""
    h = header.strip().lower()
    if h.startswith("["):
        end = h.find("]")
        return h[: end + 1] if end > 0 else h
    name, _, port = h.rpartition(":")
    return name if name and port.isdigit() else h


def allowed_host_names(configured: list[str], bind_host: str) -> frozenset[str] | None:
    """The names the Host check accepts; None when the check is off (`*`)."""
    if "*" in configured:
        return None
    names = configured or [*DEFAULT_HOSTS, bind_host]
    out = set()
    for n in names:
        n = n.strip().lower()
        out.add(f"[{n}]" if ":" in n and not n.startswith("[") else n)  # a bare IPv6 address
    return frozenset(out)


class HostGuard:
    """ASGI middleware: 400 unless the Host header names this server (DNS rebinding)."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str] | None):
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.allowed is None or scope["path"] in HOST_EXEMPT:
            await self.app(scope, receive, send)
            return
        header = _header(scope, b"host")
        if header is None or host_name(header) not in self.allowed:
            shown = "no Host header" if header is None else f"Host '{header[:100]}'"
            await send_error(send, 400, "bad request",
                             f"{shown} is not a name of this server: use one of "
                             f"{', '.join(sorted(self.allowed))}, or add it to serve.allowed_hosts",
                             field="header.host", scope=scope)
            return
        await self.app(scope, receive, send)


# ---- keys ---------------------------------------------------------------------------


def presented_key(authorization: str | None, x_api_key: str | None) -> str | None:
    auth = authorization or ""
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return x_api_key


def key_matches(given: str, keys: list[bytes]) -> bool:
    """Constant-time: compares against every key, no early exit on a match."""
    g = given.encode("utf-8", "surrogateescape")
    ok = False
    for k in keys:
        ok |= hmac.compare_digest(g, k)
    return ok


class ApiKeyAuth:
    """ASGI middleware: 401 for protected paths without a valid key, before the body is
    read. A no-op when no keys are configured."""

    def __init__(self, app: ASGIApp, keys: list[str]):
        self.app = app
        self._keys = [k.encode() for k in keys if k]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or not self._keys or scope["method"] == "OPTIONS"
                or not scope["path"].startswith(PROTECTED_PREFIXES)):
            await self.app(scope, receive, send)
            return
        given = presented_key(_header(scope, b"authorization"), _header(scope, b"x-api-key"))
        if not given or not key_matches(given, self._keys):
            await send_error(send, 401, "unauthorized", f"missing or invalid API key: {AUTH_HINT}",
                             field="header.authorization",
                             headers=[(b"www-authenticate", b"Bearer")], scope=scope)
            return
        await self.app(scope, receive, send)


# ---- size ---------------------------------------------------------------------------


class BodyLimit:
    """ASGI middleware: 413 for bodies over `max_bytes`. Declared lengths are checked up
    front; a body without Content-Length (chunked) is read here, at most `max_bytes`, and
    handed on whole, so a client cannot dodge the limit with chunked encoding."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                too_big = False
            if too_big:
                await self._reject(send, scope)
                return
            await self.app(scope, receive, send)
            return
        chunks, seen = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            seen += len(body)
            if seen > self.max_bytes:
                await self._reject(send, scope)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        await self.app(scope, replaying(b"".join(chunks), receive), send)

    async def _reject(self, send: Send, scope: Scope) -> None:
        await send_error(send, 413, "request too large", f"the request body exceeds {self.max_bytes} bytes",
                         field="body", scope=scope)
