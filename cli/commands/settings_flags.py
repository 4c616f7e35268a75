"""CLI flags generated from a settings section, as PaperQA2 builds its command line from
its settings model: one flag per field, its help the field's description, its default the
field's default. The flags, the presets and `--set` then cannot disagree on a name, a type
or a default, and a new setting is a flag without touching the command.

A field's flag is ``--field-name`` (a boolean that defaults to on: ``--field-name/--no-field-name``)
unless the field names another with ``json_schema_extra={"flag": "--other"}``. List settings
take one comma-separated value. A flag the user does not give is left out, so presets,
the environment and ``--set`` still apply beneath the flags that are given.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal

import annotated_types
import click
import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

PARAMETER = "flags"


def settings_flags(section: type[BaseModel], path: str) -> Callable[[Callable], Callable]:
    """Decorator for a typer command: one option per field of `section`, the settings model
    at dotted `path` ("training.embedder"). The command receives the flags given as
    `flags`: an overrides tree for `load_settings` ({"training": {"embedder": {...}}})."""

    def decorate(command: Callable) -> Callable:
        signature = inspect.signature(command)
        hints = typing.get_type_hints(command, include_extras=True)  # the module's string annotations, resolved
        own = [p.replace(annotation=hints.get(name, p.annotation))
               for name, p in signature.parameters.items() if name != PARAMETER]
        taken = {p.name for p in own}
        clash = taken & set(section.model_fields)
        if clash:
            raise TypeError(f"{command.__name__} has parameters named like settings of {path}: {sorted(clash)}")
        generated = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=_option(name, info))
            for name, info in section.model_fields.items()
        ]

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in section.model_fields}
            tree: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
            for part in reversed(path.split(".")):
                tree = {part: tree}
            return command(**kwargs, **{PARAMETER: tree})

        run.__signature__ = signature.replace(parameters=own + generated)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in own + generated}
        return run

    return decorate


def flag_names(name: str, info: FieldInfo) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if "flag" in extra:
        return str(extra["flag"])
    flag = "--" + name.replace("_", "-")
    if _base_type(info.annotation) is bool and info.default is True:
        return f"{flag}/--no-{flag[2:]}"
    return flag


def _option(name: str, info: FieldInfo) -> Any:
    kind = _base_type(info.annotation)
    opts: dict[str, Any] = {"help": info.description, "show_default": _shown_default(info)}
    if typing.get_origin(kind) is Literal:
        opts["click_type"] = click.Choice([str(v) for v in typing.get_args(kind)])
        kind = str
    elif typing.get_origin(kind) is list:
        kind = str  # one comma-separated value; the setting splits it
    elif kind in (int, float):
        for bound in info.metadata:
            if isinstance(bound, annotated_types.Ge):
                opts["min"] = bound.ge
            elif isinstance(bound, annotated_types.Le):
                opts["max"] = bound.le
    return Annotated[kind | None, typer.Option(flag_names(name, info), **opts)]


def _base_type(annotation: Any) -> Any:
    """The type without `| None` and `Annotated[...]` wrappers."""
    if typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return _base_type(args[0])
    return annotation


def _shown_default(info: FieldInfo) -> str | bool:
    default = info.get_default(call_default_factory=True)
    if default is None:
        return False  # the description says what happens
    if isinstance(default, bool):
        return "on" if default else "off"
    if isinstance(default, list):
        return ",".join(str(v) for v in default)
    return str(default)
