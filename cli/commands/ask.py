"""`biorag ask`, `biorag config` and `biorag demo`."""

from __future__ import annotations

from typing import Annotated

import typer

from biorag.contracts.redaction import scrub
from cli.commands.common import (
    DisableOpt,
    EnableOpt,
    JsonOpt,
    PresetOpt,
    ReplayOpt,
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


@friendly_errors
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    preset: PresetOpt = None,
    set_: SetOpt = None,
    disable: DisableOpt = None,
    enable: EnableOpt = None,
    replay: ReplayOpt = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Text mode: print only the answer and citations.")] = False,
) -> None:
    """Answer QUESTION with the agent loop and print the answer, citations and trace.

    Examples:

      biorag ask "What is the official gene symbol of LMP10?"

      biorag ask "Which gene is SNP rs1217074595 associated with?" --json

      biorag ask "..." --preset paper --set llm.base_url=http://gpu-host:8000/v1

      biorag ask "..." --disable gene --disable self_eval --set planner=rules
    """
    from application.engine import build_agent

    settings = settings_from_options(preset, set_, disable, enable, replay)
    agent = build_agent(settings)
    on_event = None if (as_json or quiet) else _print_event
    answer = agent.answer(question, on_event=on_event)
    if as_json:
        print_json(answer.model_dump(mode="json"))
        return
    _print_answer(answer)


def _print_event(ev) -> None:
    parts = [f"[round {ev.round}] {ev.step:<8}"]
    if ev.retriever:
        parts.append(ev.retriever)
    if ev.query and ev.step in ("rewrite", "retrieve"):
        q = ev.query if len(ev.query) <= 70 else ev.query[:67] + "..."
        parts.append(f"query={q!r}")
    if ev.mesh:
        parts.append(f"mesh={ev.mesh}")
    if ev.step == "retrieve":
        parts.append(f"hits={len(ev.hits)}")
    if ev.decision:
        parts.append(f"-> {ev.decision}")
    if not ev.ok:
        parts.append(f"FAILED: {scrub(ev.error or '')}")
    parts.append(f"({ev.ms:.0f} ms)")
    typer.echo(" ".join(parts), err=True)


def _print_answer(answer) -> None:
    typer.echo("")
    typer.echo(f"Answer: {answer.answer}")
    if answer.citations:
        typer.echo("Citations:")
        for c in answer.citations:
            via = [f"genes linked by {', '.join(c.linked_by)}"] if c.linked_by else []
            if c.found_by and c.found_by != c.source:
                via.append(f"found by the {c.found_by} source")
            typer.echo(f"  [{c.source}:{c.id}] {c.title}" + (f" ({'; '.join(via)})" if via else "")
                       + (f"  {c.url}" if c.url else ""))
    status = "sufficient" if answer.sufficient else "NOT verified as sufficient"
    typer.echo(
        f"({answer.rounds} round(s), evidence {status}, {answer.timings.total_ms / 1000:.1f} s total, "
        f"{answer.timings.llm_ms / 1000:.1f} s in the LLM)"
    )
