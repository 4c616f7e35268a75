"""API keys and request-size limits.

Keys come from `serve.api_keys` (or BIORAG_SERVE__API_KEYS='["k1","k2"]'). When any key is
configured, every /v1 route and /metrics need `Authorization: Bearer <key>` or
`X-API-Key: <key>`; health probes and the chat page itself stay open. Keys are compared
in constant time against every configured key, and never logged or echoed.
"""

from __future__ import annotations

import hmac

from fastapi import HTTPException, Request
from starlette.types import ASGIApp, Receive, Scope, Send


def presented_key(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.headers.get("x-api-key")


def key_matches(given: str, keys: list[bytes]) -> bool:
    """Constant-time: compares against every key, no early exit on a match."""
    g = given.encode()
    ok = False
    for k in keys:
        ok |= hmac.compare_digest(g, k)
    return ok


class ApiKeyGuard:
    """FastAPI dependency; a no-op when no keys are configured."""

    def __init__(self, keys: list[str]):
        self._keys = [k.encode() for k in keys if k]

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    async def __call__(self, request: Request) -> None:
        if not self._keys:
            return
        given = presented_key(request)
        if not given or not key_matches(given, self._keys):
            raise HTTPException(
                status_code=401,
                detail="missing or invalid API key: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'",
                headers={"WWW-Authenticate": "Bearer"},
            )


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
        headers = dict(scope.get("headers", []))
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_bytes
            except ValueError:
                too_big = False
            if too_big:
                await self._reject(send)
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
                await self._reject(send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = b"".join(chunks)
        delivered = False

        async def replay() -> dict:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, send: Send) -> None:
        body = (
            b'{"error":"request too large","detail":"the request body exceeds '
            + str(self.max_bytes).encode()
            + b' bytes"}'
        )
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
