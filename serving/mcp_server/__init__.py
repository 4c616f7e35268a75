"""BioRAG as a Model Context Protocol server: the agent and six direct lookups as MCP tools,
over stdio (`biorag mcp`, a local process: no auth) and over streamable HTTP at /mcp in
`biorag serve` (the server's API keys, body-size limit and agent slots).

Built on the official `mcp` SDK (PyPI `mcp`, 2.x), not FastMCP: the SDK's `MCPServer`
already gives typed tools from annotated functions (pydantic input schemas, `outputSchema`
and `structuredContent` from the return type), a streamable HTTP session manager that
mounts into an existing Starlette/FastAPI app and runs in its lifespan, a stdio transport
that moves file descriptor 1 to stderr while it serves (so a stray print or a library's
progress output cannot corrupt the protocol), and the client (`mcp.Client`) the tests
use. FastMCP 4 is a layer over the same SDK with many more dependencies (auth providers,
OpenAPI generation, LLM-provider clients) and its own server class; nothing here needs
them. The SDK adds mcp-types, PyJWT (with cryptography) and python-multipart to the
environment and upgrades nothing (pydantic, starlette, fastapi, anyio stay as they are).

- tools.py: the tools (their docstrings are their manuals) and the backend they run on;
- results.py: typed results, citations, the text a client shows;
- server.py: the `MCPServer` with errors as one readable line;
- http.py: the /mcp endpoint (busy -> 429 with Retry-After);
- `serve_stdio`: the stdio server of `biorag mcp`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biorag.settings import Settings


def serve_stdio(settings: Settings) -> None:
    """Serve the tools over stdin/stdout until the client closes stdin. Heavy parts (stores,
    embedder, LLM) load on first use, after the transport has taken stdout over."""
    import anyio

    from serving.mcp_server.server import build_server
    from serving.mcp_server.tools import Backend

    backend = Backend.standalone(settings)
    try:
        anyio.run(build_server(backend).run_stdio_async)
    finally:
        backend.close()
