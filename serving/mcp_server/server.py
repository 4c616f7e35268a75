"""The MCP server object: BioRAG's tools (serving/mcp_server/tools.py) on the SDK's
`MCPServer`, with one rule added: every failure is a tool error of one readable line.

The SDK already turns a `ToolError` into an `is_error` result; what it lets through is a
pydantic report of several lines for a bad argument, and "Error executing tool X" with
nothing else for any other exception. `BioragMcp.call_tool` rewrites both: a bad argument
names each field and what is wrong with it, a BioRAG error keeps its own line (a missing
store names the command that builds it), a busy server says when to retry, and only a
real bug is reported as one, its traceback going to the server's log (stderr), never to
the client."""

from __future__ import annotations

import logging
from importlib import metadata
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from biorag.contracts.errors import BioragError
from serving.errors import FieldError, ServiceBusy
from serving.mcp_server.tools import AGENT_TOOLS, TOOL_NAMES, Backend, Tools

log = logging.getLogger("biorag.mcp")

INSTRUCTIONS = (
    "BioRAG answers biology and genomics questions from retrieved evidence and cites every record it used. "
    "`ask` runs the whole agent (slow; it chooses sources itself). The other tools look one thing up "
    "directly and fast: search_pubmed (local PubMed index, MeSH filters), gene_record, variant_genes, "
    "disease_genes, phenotype_genes and gene_set_enrichment. Every result carries structured citations."
)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def error_line(tool: str, exc: BaseException) -> str:
    """The one line a client sees for a failed call of `tool`."""
    cause = exc.__cause__ if isinstance(exc, ToolError) else exc
    if isinstance(cause, ValidationError):
        issues = [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in cause.errors()]
        return _one_line(f"{tool}: invalid arguments: {'; '.join(issues)}")
    if isinstance(cause, ServiceBusy):
        return f"{tool}: busy: every answer slot is in use; retry after {cause.retry_after} s"
    if isinstance(cause, FieldError):
        return _one_line(f"{tool}: {cause.field}: {cause.message}")
    if isinstance(cause, BioragError):
        return _one_line(f"{tool}: {cause}")
    if cause is None:  # the SDK's own (an unknown tool name): its text is already plain
        return _one_line(str(exc))
    log.error("tool %s failed unexpectedly", tool, exc_info=cause)
    return f"{tool}: unexpected {type(cause).__name__} (a bug: the server's log has the details)"


class BioragMcp(MCPServer):
    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            raise ToolError(error_line(name, e)) from None


def _version() -> str:
    try:
        return metadata.version("biorag")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return ""


def build_server(backend: Backend) -> BioragMcp:
    """An MCP server whose tools run on `backend` (the HTTP endpoint's: the REST API's own)."""
    server = BioragMcp("biorag", title="BioRAG", instructions=INSTRUCTIONS, version=_version())
    tools = Tools(backend)
    for name in TOOL_NAMES:
        agentic = name in AGENT_TOOLS
        server.add_tool(getattr(tools, name), name=name,
                        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=not agentic,
                                                    open_world_hint=agentic))
    return server

