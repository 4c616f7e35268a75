"""`biorag mcp`: BioRAG's tools for an MCP client (Claude Desktop, an IDE assistant) over stdio."""

from __future__ import annotations

from cli.commands.common import (
    DisableOpt,
    EnableOpt,
    PresetOpt,
    ReplayOpt,
    SetOpt,
    friendly_errors,
    settings_from_options,
)


@friendly_errors
def command(
    preset: PresetOpt = None,
    set_: SetOpt = None,
    disable: DisableOpt = None,
    enable: EnableOpt = None,
    replay: ReplayOpt = None,
) -> None:
    """Serve BioRAG's tools over MCP on stdin/stdout, for a client that starts this command.

    Tools: ask (the whole agent), search_pubmed (MeSH filters), gene_record, variant_genes, disease_genes, phenotype_genes, gene_set_enrichment; each result carries structured citations.

    stdout carries only protocol messages; logs and progress go to stderr. A local process: no API key. Over HTTP the same tools are at /mcp of `biorag serve`, behind its keys.

    Example client entry: {"command": "biorag", "args": ["mcp"]}
    """
    from serving.mcp_server import serve_stdio

    serve_stdio(settings_from_options(preset, set_, disable, enable, replay))
