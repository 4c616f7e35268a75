"""The MCP endpoint of `biorag serve`: streamable HTTP at /mcp, a route of the app itself,
so every request passes the app's middlewares first: the Host check, the API keys
(`security.PROTECTED_PREFIXES` holds /mcp), the body-size limit and the request metrics.
The SDK's own Host/Origin check is off: the app's (`serve.allowed_hosts`) is the one rule.
Its session manager runs inside the app's lifespan.

Added in front of the SDK's transport: the agent's concurrency limit, as HTTP. A
`tools/call` of an agent tool (`ask`) that finds every agent slot taken is answered 429
with `Retry-After` before the SDK reads it, as OpenAI-style clients expect of a busy
server. The slot itself is taken when the tool starts its run (`AgentRunner.start`), so
two calls racing for the last slot can still meet a full runner there: the loser gets a
tool error saying when to retry, and the limit holds either way."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Receive, Scope, Send

from serving.mcp_server.server import build_server
from serving.mcp_server.tools import AGENT_TOOLS, Backend
from serving.metrics import Metrics
from serving.security import MCP_PATH, replaying, send_error


def _calls_agent(body: bytes) -> bool:
    """Whether a JSON-RPC message (or batch) calls a tool that runs the agent."""
    try:
        parsed: Any = json.loads(body)
    except ValueError:
        return False  # the SDK answers a malformed message itself
    for msg in parsed if isinstance(parsed, list) else [parsed]:
        if isinstance(msg, dict) and msg.get("method") == "tools/call":
            params = msg.get("params")
            if isinstance(params, dict) and params.get("name") in AGENT_TOOLS:
                return True
    return False


class McpEndpoint:
    """The ASGI app at /mcp: the busy check, then the SDK's streamable HTTP transport."""

    def __init__(self, backend: Backend, metrics: Metrics):
        server = build_server(backend)
        # builds the server's session manager; the Starlette app it returns is not used
        server.streamable_http_app(streamable_http_path=MCP_PATH,
                                   max_request_body_size=backend.settings.serve.max_body_bytes,
                                   transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
        self._manager = server.session_manager
        self._transport = StreamableHTTPASGIApp(self._manager)
        self._runner = backend.runner
        self._metrics = metrics

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """For the app's lifespan: the session manager's task group lives as long as the app."""
        async with self._manager.run():
            yield

    def _full(self) -> bool:
        return self._runner.busy >= self._runner.max_concurrent

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not self._full():
            await self._transport(scope, receive, send)
            return
        chunks = []  # at most serve.max_body_bytes: the BodyLimit middleware stands in front
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if _calls_agent(body) and self._full():
            self._metrics.rejected.inc()
            retry = self._runner.retry_after_s
            await send_error(send, 429, "busy", f"every answer slot is in use; retry after {retry} s",
                             headers=[(b"retry-after", str(retry).encode())], scope=scope)
            return
        await self._transport(scope, replaying(body, receive), send)
