"""Per-request overrides: the body of /v1/answer and how it becomes effective settings.

A request may change what an ablation changes (sources and components on/off, top-k,
rounds, planner, grounding) and pick another named preset. It may NOT point the server
at other hosts or files (llm.base_url, index.uri, tool_io.cassette, ...): `set` keys are
checked against an allow-list, so a client cannot make the server fetch arbitrary URLs
or read arbitrary paths.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from biorag.errors import ConfigError
from biorag.settings import (
    Components,
    Settings,
    apply_switches,
    available_presets,
    deep_merge,
    load_settings,
)
from retrievers.registry import registered_sources
from serving.errors import FieldError

#: dotted `set` keys a request may override; <source>/<component> are checked by name
ALLOWED_SET = (
    "planner",
    "max_rounds",
    "grounding",
    "components.<component>",
    "sources.<source>.enabled",
    "sources.<source>.top_k",
    "index.mesh_widen",
)


class AnswerRequest(BaseModel):
    """A question plus optional overrides; unknown fields are rejected."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(..., description="the question, plain text")
    preset: str | None = Field(None, description="named preset (embedded, paper); default: the server's")
    disable: list[str] = Field(default_factory=list, description="sources/components to switch off")
    enable: list[str] = Field(default_factory=list, description="sources/components to switch on")
    top_k: int | None = Field(None, ge=1, le=100, description="hits per retrieval for every source")
    max_rounds: int | None = Field(None, ge=1, le=50, description="agent loop rounds")
    set: dict[str, Any] = Field(
        default_factory=dict,
        description="dotted setting -> value; allowed: " + ", ".join(ALLOWED_SET),
    )

    model_config["json_schema_extra"] = {
        "examples": [
            {"question": "What is the official gene symbol of LMP10?"},
            {"question": "Which genes are associated with Marfan syndrome?", "disable": ["web"], "top_k": 5},
        ]
    }

    def has_overrides(self) -> bool:
        return bool(self.preset or self.disable or self.enable or self.top_k or self.max_rounds or self.set)


def check_question(question: str, max_chars: int) -> str:
    q = question.strip()
    if not q:
        raise FieldError("body.question", "the question is empty")
    if len(q) > max_chars:
        raise FieldError(
            "body.question", f"the question has {len(q)} characters; the limit is {max_chars}"
        )
    return q


def _allowed(path: list[str], sources: set[str]) -> bool:
    comps = set(Components.model_fields)
    for pattern in ALLOWED_SET:
        parts = pattern.split(".")
        if len(parts) != len(path):
            continue
        ok = True
        for want, got in zip(parts, path, strict=True):
            if want == "<source>":
                ok = got in sources
            elif want == "<component>":
                ok = got in comps
            else:
                ok = want == got
            if not ok:
                break
        if ok:
            return True
    return False


def _tree_set(tree: dict[str, Any], path: list[str], value: Any) -> None:
    node = tree
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value


def effective_settings(base: Settings, req: AnswerRequest) -> Settings:
    """base (the server's settings) + the request's overrides; FieldError names what's wrong."""
    if req.preset and req.preset != base.preset:
        names = available_presets()
        if req.preset not in names:  # names only: a request may not load files by path
            raise FieldError("body.preset", f"unknown preset '{req.preset}': choose one of {', '.join(names)}")
        try:
            start = load_settings(preset=req.preset)
        except ConfigError as e:
            raise FieldError("body.preset", str(e)) from None
        start = start.model_copy(update={"serve": base.serve})
    else:
        start = base

    sources = set(start.sources)
    tree: dict[str, Any] = {}
    for key, value in req.set.items():
        path = key.split(".")
        if not _allowed(path, sources):
            raise FieldError(
                f"body.set.{key}",
                "not a setting a request may change; allowed: " + ", ".join(ALLOWED_SET)
                + f" (sources: {', '.join(sorted(sources))}; components: {', '.join(sorted(Components.model_fields))})",
            )
        _tree_set(tree, path, value)
    if req.top_k is not None:
        for name in sources:
            _tree_set(tree, ["sources", name, "top_k"], req.top_k)
    if req.max_rounds is not None:
        tree["max_rounds"] = req.max_rounds

    sources |= set(registered_sources())  # a registered source no preset lists can be switched on
    switches = set(start.switch_names()) | sources
    for field in ("disable", "enable"):
        for i, name in enumerate(getattr(req, field)):
            if name not in switches:
                raise FieldError(
                    f"body.{field}.{i}",
                    f"unknown switch '{name}': sources are {', '.join(sorted(sources))}; "
                    f"components are {', '.join(sorted(Components.model_fields))}",
                )

    merged = deep_merge(start.model_dump(), tree)
    apply_switches(merged, req.disable, req.enable, sorted(sources))
    try:
        return Settings(**merged)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise FieldError(f"body.set.{loc}", f"{err['msg']} (got {err.get('input')!r})") from None

