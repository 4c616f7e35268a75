"""Per-request overrides: the body of /v1/answer and how it becomes effective settings.

A request may change what an ablation changes (sources and components on/off, top-k,
rounds, planner, grounding, MeSH widening) and pick another named preset, but only inside
the operator's configuration. It may NOT:

- point the server at other hosts or files, or another tool I/O mode (llm.*, index.uri,
  ncbi.*, web.*, tool_io.*, data_dir, ...);
- enable a source the operator disabled.

Such a request gets 403 naming the field (`body.set.llm.base_url`, `body.enable.0`, or
`body.preset` for a preset that would do it).

Overrides may lower the operator's limits, never raise them: the request model's maximums
for rounds and top-k are the server's own (`max_rounds`, each source's `top_k`), so a larger
value is a 422 the document announces; a preset's larger rounds or top-k are capped at the
operator's. Requests set no timeouts. The request model is built per server
(`answer_request_model`), so the OpenAPI document lists the presets, switch names and
`set` keys this server accepts as enums.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from application.catalog import registered_sources
from biorag.contracts.errors import ConfigError, InputError
from biorag.settings import (
    Components,
    IndexSettings,
    Settings,
    apply_switches,
    available_presets,
    deep_merge,
    deep_set,
    is_setting,
    load_settings,
)
from biorag.understanding.user_text import check_user_text, user_text_schema
from serving.errors import FieldError, OverrideRefused

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
    """A question plus optional overrides; unknown fields are rejected. The server's own
    model (`answer_request_model`) narrows preset, disable/enable and set to enums."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(..., description="the question, plain text")
    preset: str | None = Field(None, description="named preset; default: the server's")
    disable: list[str] = Field(default_factory=list, description="sources/components to switch off")
    enable: list[str] = Field(
        default_factory=list, description="sources/components to switch on (not a source the operator disabled)"
    )
    top_k: int | None = Field(None, ge=1, le=100, description="hits per retrieval for every source")
    max_rounds: int | None = Field(None, ge=1, le=50, description="agent loop rounds")
    set: Any = Field(default_factory=dict, description="dotted setting -> value; allowed: " + ", ".join(ALLOWED_SET))

    def has_overrides(self) -> bool:
        return bool(self.preset or self.disable or self.enable or self.top_k or self.max_rounds or self.set_values())

    def set_values(self) -> dict[str, Any]:
        """The `set` overrides as {dotted key: value} (typed ones and the rest alike)."""
        if isinstance(self.set, BaseModel):
            return {**self.set.model_dump(by_alias=True, exclude_unset=True), **(self.set.model_extra or {})}
        return dict(self.set or {})


def _allowed_keys(settings: Settings) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Each `set` key a request may send: its type and bounds (the operator's limits)."""
    keys: dict[str, tuple[Any, dict[str, Any]]] = {
        "planner": (Settings.model_fields["planner"].annotation, {}),
        "max_rounds": (int, {"ge": 1, "le": settings.max_rounds}),
        "grounding": (bool, {}),
        "index.mesh_widen": (IndexSettings.model_fields["mesh_widen"].annotation, {}),
    }
    for comp in Components.model_fields:
        keys[f"components.{comp}"] = (bool, {})
    for name in settings.sources:
        keys[f"sources.{name}.enabled"] = (bool, {})
        keys[f"sources.{name}.top_k"] = (int, {"ge": 1, "le": settings.sources[name].top_k})
    return keys


def _set_model(settings: Settings) -> type[BaseModel]:
    """`set` as a model: each allowed key typed. Other keys are kept (extra) so that the
    handler can tell a setting only the operator may change (403) from no setting at all
    (422); the document still says additionalProperties: false."""
    fields = {
        key.replace(".", "__"): (ann, Field(None, alias=key, **bounds))
        for key, (ann, bounds) in _allowed_keys(settings).items()
    }
    return create_model(
        "SetOverrides",
        __config__=ConfigDict(extra="allow", json_schema_extra={"additionalProperties": False}),
        **fields,
    )


def answer_request_model(settings: Settings) -> type[AnswerRequest]:
    """AnswerRequest narrowed to this server: the OpenAPI document lists its presets,
    switch names and `set` keys, and the question's length limit."""
    presets = Literal[tuple(available_presets())]  # type: ignore[valid-type]
    names = sorted(set(settings.switch_names()) | set(registered_sources()))
    switches = Literal[tuple(names)]  # type: ignore[valid-type]
    limit = settings.max_question_chars
    return create_model(
        "AnswerRequest",
        __base__=AnswerRequest,
        question=(str, Field(..., description=f"the question, plain text (at most {limit} characters)",
                             json_schema_extra=user_text_schema(settings))),
        preset=(presets | None, Field(None, description="named preset; default: the server's")),
        disable=(list[switches], Field(default_factory=list, description="sources/components to switch off")),
        enable=(list[switches], Field(default_factory=list,
                                      description="sources/components to switch on (not a source the operator disabled)")),
        set=(_set_model(settings), Field(default_factory=dict,
                                         description="dotted setting -> value; only these keys")),
        top_k=(int | None, Field(None, ge=1, le=max_top_k(settings),
                                 description="hits per retrieval for every source, each capped at the "
                                 "source's own top_k on this server")),
        max_rounds=(int | None, Field(None, ge=1, le=settings.max_rounds,
                                      description=f"agent loop rounds (this server allows {settings.max_rounds})")),
    )


def max_top_k(settings: Settings) -> int:
    """The largest top-k a request may ask for: the largest of the server's sources'."""
    return max((src.top_k for src in settings.sources.values()), default=1)


def within_operator_limits(tree: dict[str, Any], base: Settings) -> dict[str, Any]:
    """The merged settings `tree` with rounds and each source's top-k capped at the
    operator's (`base`): a preset (or a request's top_k for every source) may lower them
    only."""
    tree["max_rounds"] = min(tree.get("max_rounds", base.max_rounds), base.max_rounds)
    for name, src in tree.get("sources", {}).items():
        if name in base.sources and "top_k" in src:
            src["top_k"] = min(src["top_k"], base.sources[name].top_k)
    return tree


def check_question(question: str, settings: Settings, field: str = "body.question") -> str:
    """`check_user_text` (the agent's and the CLI's check), its refusal as a 422 naming
    the request field."""
    try:
        return check_user_text(question, settings)
    except InputError as e:
        raise FieldError(field, str(e)) from None


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


def _flat(tree: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(tree, dict):
        return {prefix: tree}
    out: dict[str, Any] = {}
    for k, v in tree.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def _operator_enabled(base: Settings, source: str) -> bool:
    return source in base.sources and base.sources[source].enabled


def _enables_disabled(key: str, value: Any, base: Settings) -> bool:
    """`sources.<name>.enabled` switched on for a source the operator disabled."""
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "sources" and parts[2] == "enabled" and value is True:
        src = base.sources.get(parts[1])
        return src is None or not src.enabled
    return False


def _preset_start(base: Settings, preset: str) -> Settings:
    """The settings of another preset, refused (403) where they leave the operator's
    configuration: a preset may change only what a request may change."""
    names = available_presets()
    if preset not in names:  # names only: a request may not load files by path
        raise FieldError("body.preset", f"unknown preset '{preset}': choose one of {', '.join(names)}")
    try:
        start = load_settings(preset=preset)
    except ConfigError as e:
        raise FieldError("body.preset", str(e)) from None
    start = start.model_copy(update={"serve": base.serve})
    mine, theirs = _flat(base.model_dump(mode="json")), _flat(start.model_dump(mode="json"))
    sources = set(base.sources)
    changed = sorted(
        key for key in set(mine) | set(theirs)
        if key != "preset" and mine.get(key) != theirs.get(key)
        and (not _allowed(key.split("."), sources) or _enables_disabled(key, theirs.get(key), base))
    )
    if changed:
        shown = ", ".join(changed[:32]) + (f" and {len(changed) - 32} more" if len(changed) > 32 else "")
        raise OverrideRefused(
            "body.preset",
            f"preset '{preset}' would change {shown}, which only the operator sets on this server; "
            f"leave preset out, or ask for switches, top_k, max_rounds or set within {', '.join(ALLOWED_SET)}",
        )
    return start


def effective_settings(base: Settings, req: AnswerRequest) -> Settings:
    """base (the server's settings) + the request's overrides; FieldError (422) or
    OverrideRefused (403) names what is wrong."""
    start = _preset_start(base, req.preset) if req.preset and req.preset != base.preset else base

    sources = set(start.sources)
    tree: dict[str, Any] = {}
    for key, value in req.set_values().items():
        path = key.split(".")
        if not _allowed(path, sources):
            if is_setting(path):
                raise OverrideRefused(f"body.set.{key}", "only the operator sets this on this server; a request "
                                      "may set " + ", ".join(ALLOWED_SET))
            raise FieldError(
                f"body.set.{key}",
                "not a setting a request may change; allowed: " + ", ".join(ALLOWED_SET)
                + f" (sources: {', '.join(sorted(sources))}; components: {', '.join(sorted(Components.model_fields))})",
            )
        if _enables_disabled(key, value, base):
            raise OverrideRefused(f"body.set.{key}", f"the operator has not enabled source '{path[1]}' on this server")
        deep_set(tree, path, value)
    if req.top_k is not None:
        for name in sources:
            deep_set(tree, ["sources", name, "top_k"], req.top_k)
    if req.max_rounds is not None:
        tree["max_rounds"] = req.max_rounds

    sources |= set(registered_sources())  # a registered source no preset lists is still a switch
    switches = set(start.switch_names()) | sources
    for field in ("disable", "enable"):
        for i, name in enumerate(getattr(req, field)):
            if name not in switches:
                raise FieldError(
                    f"body.{field}.{i}",
                    f"unknown switch '{name}': sources are {', '.join(sorted(sources))}; "
                    f"components are {', '.join(sorted(Components.model_fields))}",
                )
            if field == "enable" and name in sources and not _operator_enabled(base, name):
                raise OverrideRefused(f"body.enable.{i}", f"the operator has not enabled source '{name}' on this server")

    merged = within_operator_limits(deep_merge(start.model_dump(), tree), base)
    apply_switches(merged, req.disable, req.enable, sorted(sources))
    try:
        return Settings(**merged)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise FieldError(f"body.set.{loc}", f"{err['msg']} (got {err.get('input')!r})") from None
