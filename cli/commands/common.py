"""Options and helpers shared by every command: settings flags and error handling."""

from __future__ import annotations

import functools
import json
import logging
import sys
from typing import Annotated, Any

import typer

from application.catalog import registered_sources
from biorag.contracts.errors import BioragError
from biorag.contracts.redaction import install_log_scrubbing, scrub, scrub_obj

PresetOpt = Annotated[
    str | None,
    typer.Option("--preset", "-p", help="Named set-up: embedded (default) or paper, or a JSON preset file."),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", help="Override any setting: dotted.key=value (JSON values), repeatable."),
]
DisableOpt = Annotated[
    list[str] | None,
    typer.Option("--disable", "-d", help="Switch off a source (any registered one: gene, dbsnp, omim, blast, pubmed, web, nucleotide, ...) or component (mesh_filter, query_rewrite, self_eval). Repeatable."),
]
EnableOpt = Annotated[
    list[str] | None,
    typer.Option("--enable", "-e", help="Switch on a source or component. Repeatable."),
]
ReplayOpt = Annotated[
    str | None,
    typer.Option("--replay", help="Replay tool HTTP traffic from this JSONL recording (sets tool_io.mode=replay)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")]


def settings_from_options(
    preset: str | None = None,
    sets: list[str] | None = None,
    disable: list[str] | None = None,
    enable: list[str] | None = None,
    replay: str | None = None,
    overrides: dict[str, Any] | None = None,
):
    """The settings of a command: its --preset, --set, switches and --replay, then
    `overrides` (a tree, e.g. the flags made by `settings_flags`)."""
    from biorag.settings import load_settings

    overrides = dict(overrides or {})
    if replay:
        from pathlib import Path

        if not Path(replay).exists():
            raise BioragError(f"--replay file {replay} does not exist")
        if not Path(replay).is_file():
            raise BioragError(f"--replay {replay} is not a file: give a JSONL recording")
        overrides["tool_io"] = {"mode": "replay", "cassette": replay}
    return load_settings(preset=preset, sets=sets, disable=disable, enable=enable, overrides=overrides,
                         known_sources=registered_sources())


def fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {scrub(message)}", err=True)
    raise typer.Exit(code)


def friendly_errors(fn):
    """Turn BioragError into a one-line message and a non-zero exit, no traceback. Any
    other exception is a bug: one line saying so, the traceback only in the -vv log."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except BioragError as e:
            fail(str(e), getattr(e, "exit_code", 2))
        except KeyboardInterrupt:
            fail("interrupted", 130)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except Exception as e:  # noqa: BLE001 - the last line of defence for users
            logging.getLogger("biorag").debug("unexpected failure", exc_info=e)
            fail(f"unexpected {type(e).__name__}: {e} (a bug: please report it; -vv shows the traceback)", 1)

    return wrapper


def print_json(obj: Any) -> None:
    """Print `obj` as JSON, scrubbed of secrets (see biorag/contracts/redaction.py)."""
    sys.stdout.write(json.dumps(scrub_obj(obj), indent=2, ensure_ascii=False, default=str) + "\n")


def setup_logging(verbose: int) -> None:
    """Log to stderr (-v info, -vv debug). Every record is scrubbed of secrets when it is
    made, whichever library logs it (httpx logs full request URLs at info)."""
    install_log_scrubbing()
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
