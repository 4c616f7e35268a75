"""The `biorag` command. Each group lives in cli/commands/<group>.py."""

from __future__ import annotations

import os
from typing import Annotated

import typer

# `unstructured` phones home on import unless told not to; BioRAG never reaches the network
# except through its tools.
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("SCARF_NO_ANALYTICS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from cli.commands import ask as ask_cmd  # noqa: E402
from cli.commands.common import setup_logging  # noqa: E402

app = typer.Typer(
    name="biorag",
    help=(
        "BioRAG: answer biology and genomics questions from retrieved evidence "
        "(local PubMed index with MeSH filters, NCBI Gene/dbSNP/OMIM/BLAST, web search).\n\n"
        "Start with `biorag ask \"Which chromosome is TP53 on?\"`; `biorag COMMAND --help` explains each command."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _main(
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, help="More logging (-v info, -vv debug).")] = 0,
) -> None:
    setup_logging(verbose)


app.command("ask")(ask_cmd.ask)
app.command("config")(ask_cmd.show_config)


def _mount(module: str, name: str) -> None:
    """Mount the command group (or single command) defined in cli/commands/<module>.py."""
    import importlib

    mod = importlib.import_module(f"cli.commands.{module}")
    if hasattr(mod, "command"):  # a single command (e.g. `biorag serve`)
        app.command(name)(mod.command)
    else:
        app.add_typer(mod.app, name=name)


for _module, _name in [
    ("index", "index"),
    ("search", "search"),
    ("tool", "tool"),
    ("data", "data"),
    ("evaluate", "eval"),
    ("train", "train"),
    ("serve", "serve"),
    ("mcp", "mcp"),
    ("geneset", "geneset"),
    ("prioritise", "prioritise"),
]:
    _mount(_module, _name)


if __name__ == "__main__":
    app(prog_name="biorag")  # `python -m cli.main` reads as the console script
