"""The front door shows the house: a README short enough to read, whose every command exists,
CLI names that match the sources' names, and `biorag serve --help` naming every route family
the server has."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from application.catalog import registered_sources
from tests.test_floors import ROOT

README_MAX_LINES = 300

#: the `biorag ...` command lines the README shows (in code blocks and inline code)
BIORAG_COMMAND = re.compile(r"(?:^|[\s`(])(?:\.venv/bin/)?biorag((?: [a-z][a-z0-9-]*)+)", re.M)


def typer_app() -> typer.Typer:
    from cli.main import app

    return app


def cli():
    """The command tree (click's objects, as typer builds them)."""
    return typer.main.get_command(typer_app())


def subcommand_paths(text: str) -> set[tuple[str, ...]]:
    """The leading subcommand words of each `biorag ...` line in `text` (options and
    arguments dropped): ("data", "gene-store", "build"), ("ask",), ..."""
    group = cli()
    paths = set()
    for m in BIORAG_COMMAND.finditer(text):
        words, node, path = m.group(1).split(), group, []
        for word in words:
            if not hasattr(node, "commands"):  # a command, not a group: the rest are its arguments
                break
            path.append(word)
            node = node.commands.get(word)
            if node is None:
                break
        paths.add(tuple(path))
    return paths


def test_the_readme_is_short():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines: move reference into docs/"


def test_every_command_the_readme_shows_exists():
    runner = CliRunner()
    paths = subcommand_paths((ROOT / "README.md").read_text())
    assert ("ask",) in paths, "the README shows `biorag ask`"
    for path in sorted(paths):
        result = runner.invoke(typer_app(), [*path, "--help"])
        assert result.exit_code == 0, f"`biorag {' '.join(path)} --help` exited {result.exit_code}: {result.output[-300:]}"


@pytest.mark.parametrize("source", registered_sources())
def test_each_registered_source_has_a_tool_subcommand_of_its_name(source):
    tool = cli().commands["tool"]
    assert source in tool.commands, f"add `biorag tool {source}` (cli/commands/tool.py)"
    result = CliRunner().invoke(typer_app(), ["tool", source, "--help"])
    assert result.exit_code == 0


def test_snp_stays_an_alias_of_dbsnp():
    tool = cli().commands["tool"]
    snp, dbsnp = tool.commands["snp"], tool.commands["dbsnp"]
    assert snp.hidden and not dbsnp.hidden and snp.callback.__name__ == dbsnp.callback.__name__ == "dbsnp"


def test_serve_help_names_every_route_family():
    from biorag.settings import load_settings
    from serving.app import create_app

    app = create_app(load_settings())
    paths = {getattr(r, "path", "") for r in app.routes}
    families = {"/".join(p.split("/")[:3]) for p in paths if p.startswith("/v1/")}
    families |= {p for p in paths if p in ("/healthz", "/readyz", "/metrics", "/mcp")}
    text = " ".join(CliRunner().invoke(typer_app(), ["serve", "--help"], env={"COLUMNS": "400"}).output.split())
    missing = sorted(f for f in families if f not in text)
    assert not missing, f"`biorag serve --help` does not name: {missing}"
