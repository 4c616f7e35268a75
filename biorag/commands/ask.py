"""`biorag ask` and `biorag config`."""

from __future__ import annotations

import typer

from biorag.commands.common import (
    DisableOpt,
    EnableOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)


@friendly_errors
def show_config(
    preset: PresetOpt = None, set_: SetOpt = None, disable: DisableOpt = None, enable: EnableOpt = None
) -> None:
    """Print the effective settings (defaults < preset < BIORAG_* env < flags), secrets redacted."""
    settings = settings_from_options(preset, set_, disable, enable)
    print_json(settings.redacted())


def ask(question: str) -> None:
    """Answer a question (the agent loop lands in the next commit)."""
    typer.echo("not implemented yet", err=True)
    raise typer.Exit(1)
