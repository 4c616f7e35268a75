"""Configurations under evaluation: ablation names, settings, and their identity hash.

Ablations are named as in the BioRAG paper:

| name | meaning | switch |
|---|---|---|
| full | the whole system | - |
| D1 | no Gene database | disable gene |
| D2 | no web search | disable web |
| D3 | no local PubMed | disable pubmed |
| C1 | no MeSH filter | disable mesh_filter |
| C2 | no query rewrite | disable query_rewrite |
| C3 | no self-evaluation | disable self_eval |
| M:<x> | another base LLM | preset <x> if it names a preset; llm.model_path=<x> for a .gguf file; else llm.model=<x> |

Specs combine with `+` (`D1+C3`), and `-<switch>` disables any source or component
(`-blast+-omim`). `all` expands to full, D1, D2, D3, C1, C2, C3. The base `--preset`,
`--set`, `--disable`, `--enable` and `--replay` apply to every configuration.

A configuration's hash (its cache key) covers everything that can change an answer: the
effective settings (`Settings.fingerprint()`), the model identity (backend, model, and for
a local GGUF its size and a digest of its head), the tool recording (sha256 of the
cassette in replay/cache mode), the index (Milvus URI, the collection the alias serves and
its rows), the local stores' build ids and the code version (`evaluation.content_key`).
It is computed from the effective settings, never from the spec's spelling, so `C3` and
`-self_eval` share one key and one set of cached answers.

A bare `M:<name>` is a model name an OpenAI-compatible server serves: with the embedded
backend (which runs GGUF files) it is refused, never run as the default model under the
name's label. A configuration's description says what differs from the full system of
the base preset, whichever option made the difference (an ablation or a base `--disable`);
`full` run with base options that change the system is named `base`, never `full`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biorag.contracts.errors import ConfigError

ABLATIONS: dict[str, tuple[str, str]] = {
    "D1": ("gene", "no Gene database"),
    "D2": ("web", "no web search"),
    "D3": ("pubmed", "no local PubMed"),
    "C1": ("mesh_filter", "no MeSH filter"),
    "C2": ("query_rewrite", "no query rewrite"),
    "C3": ("self_eval", "no self-evaluation"),
}
ALL = ["full", *ABLATIONS]


@dataclass
class Variant:
    """One configuration to run, before settings are built."""

    name: str
    description: str
    disable: list[str] = field(default_factory=list)
    sets: list[str] = field(default_factory=list)
    preset: str | None = None
    model: str | None = None  # a bare M:<name>: valid only for a backend that serves models by name


def parse_ablations(specs: list[str] | None) -> list[Variant]:
    """Expand `--ablate` specs (see module docstring) into variants; none -> [full]."""
    out: list[Variant] = []
    for spec in specs or ["full"]:
        for name in (ALL if spec.strip() == "all" else [spec.strip()]):
            v = _parse_one(name)
            if v.name not in {x.name for x in out}:
                out.append(v)
    return out


def _parse_one(spec: str) -> Variant:
    if not spec:
        raise ConfigError("empty --ablate spec: use full, all, D1-D3, C1-C3, M:<preset-or-model> or -<switch>")
    if spec == "full":
        return Variant("full", "full system")
    v = Variant(spec, "")
    descs = []
    for part in spec.split("+"):
        part = part.strip()
        if part in ABLATIONS:
            switch, desc = ABLATIONS[part]
            v.disable.append(switch)
            descs.append(f"{part} {desc}")
        elif part.startswith("M:") and len(part) > 2:
            target = part[2:]
            from biorag.settings import available_presets

            if target in available_presets() or target.endswith(".json"):
                if v.preset:
                    raise ConfigError(f"--ablate {spec}: only one M: part allowed")
                v.preset = target
                descs.append(f"base LLM from preset {target}")
            elif target.endswith(".gguf"):  # a local model file for the embedded backend
                if not Path(target).is_file():
                    raise ConfigError(f"--ablate {spec}: no GGUF file at {target}")
                v.sets += [f"llm.model_path={target}", f"llm.model={Path(target).stem}"]
                descs.append(f"base LLM file {Path(target).name}")
            else:
                v.sets.append(f"llm.model={target}")
                v.model = target
                descs.append(f"base LLM {target}")
        elif part.startswith("-") and len(part) > 1:
            v.disable.append(part[1:])
            descs.append(f"no {part[1:]}")
        else:
            raise ConfigError(
                f"unknown ablation '{part}' in --ablate {spec}: use full, all, "
                f"{', '.join(ABLATIONS)}, M:<preset-or-model> or -<switch> (combine with +)"
            )
    v.description = "; ".join(descs)
    return v


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def model_identity(settings) -> dict[str, Any]:
    """Who answers: backend and model; for a local GGUF also its file name, size and
    the sha256 of its first MiB (cheap, and changes with any re-quantisation)."""
    llm = settings.llm
    ident: dict[str, Any] = {"backend": llm.backend, "model": llm.model}
    if llm.backend == "openai":
        ident["base_url"] = llm.base_url
        return ident
    path: Path | None = Path(llm.model_path) if llm.model_path else None
    if path is None:
        try:
            from biorag.llm.embedded import bundled_gguf

            path = bundled_gguf()
        except Exception as e:  # not installed: record it rather than fail here
            ident["file"] = f"unavailable ({e})"
            return ident
    ident["file"] = path.name
    if path.exists():
        ident["size"] = path.stat().st_size
        with open(path, "rb") as fh:
            ident["head_sha256"] = hashlib.sha256(fh.read(1 << 20)).hexdigest()
    return ident


@dataclass
class Configuration:
    name: str
    description: str
    settings: Any  # biorag.settings.Settings
    identity: dict[str, Any]
    #: readable summary for reports (preset, sources on, components off); not hashed
    switches: dict[str, Any] = field(default_factory=dict)

    @property
    def hash(self) -> str:
        blob = json.dumps(self.identity, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    @property
    def dirname(self) -> str:
        safe = "".join(c if c.isalnum() or c in "-_+." else "_" for c in self.name)
        return f"{safe}__{self.hash}"


def check_model(variant: Variant, settings) -> None:
    """A bare model name needs a backend that serves models by name."""
    if variant.model and settings.llm.backend != "openai":
        from biorag.settings import available_presets

        raise ConfigError(
            f"--ablate {variant.name}: unknown model '{variant.model}': not a preset "
            f"({', '.join(available_presets())}), a .json preset file or a .gguf file, and the "
            f"{settings.llm.backend} backend cannot run a model by name (a served model name needs "
            "--set llm.backend=openai)")


def _flat(tree: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(tree, dict):
        out: dict[str, Any] = {}
        for k, v in tree.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: tree}


#: settings that change how answers are obtained or where they are written, not what the system is
_NOT_A_DIFFERENCE = ("tool_io.", "training.", "data_dir", "preset", "serve.", "sources.", "components.")


def differences(reference, settings) -> list[str]:
    """What `settings` changes from `reference` (the full system of the base preset), in
    words: sources and components switched, another model, other settings."""
    out = []
    ref_src, src = set(reference.enabled_sources()), set(settings.enabled_sources())
    out += [f"no {x}" for x in sorted(ref_src - src)] + [f"with {x}" for x in sorted(src - ref_src)]
    ref_c, comp = reference.components.model_dump(), settings.components.model_dump()
    out += [f"no {k}" for k, v in ref_c.items() if v is True and comp.get(k) is False]
    out += [f"with {k}" for k, v in ref_c.items() if v is False and comp.get(k) is True]
    other_preset = settings.preset != reference.preset
    if other_preset:  # a preset changes many settings: name it and its model, not each key
        out.append(f"preset {settings.preset}")
    ref_flat, flat = _flat(reference.redacted()), _flat(settings.redacted())
    for key in sorted(set(ref_flat) | set(flat)):
        if key.startswith(_NOT_A_DIFFERENCE) or ref_flat.get(key) == flat.get(key):
            continue
        if other_preset and key not in ("llm.backend", "llm.model"):
            continue
        out.append(f"{key}={flat.get(key)}")
    return out


#: the name of the `full` configuration when the base options changed the system
BASE = "base"


def build_configuration(variant: Variant, settings, cassette: str | Path | None, reference=None,
                        content: dict[str, Any] | None = None) -> Configuration:
    """Freeze a variant into a Configuration. `cassette` is the recording the tools
    will replay (resolved by the caller, since the default lives in `retrievers/`).
    `reference`: the full system's settings, for the label; `content`: the code, store
    and index identity (`evaluation.content_key.content_identity`), part of the key."""
    check_model(variant, settings)
    tool_io: dict[str, Any] = {"mode": settings.tool_io.mode}
    if settings.tool_io.mode in ("replay", "cache"):
        if cassette and Path(cassette).exists():
            tool_io["cassette"] = Path(cassette).name
            tool_io["cassette_sha256"] = sha256_file(cassette)
        else:
            tool_io["cassette"] = str(cassette) if cassette else None
            tool_io["cassette_sha256"] = None
    identity = {
        "settings_fingerprint": settings.fingerprint(),
        "model": model_identity(settings),
        "tool_io": tool_io,
        "index": {"uri": settings.milvus_uri, "collection": settings.index.collection,
                  "embedder": settings.index.embedder},
    }
    if content is not None:
        identity["content"] = content
    name, description = variant.name, variant.description
    if reference is not None:
        diff = differences(reference, settings)
        description = "; ".join(diff) if diff else "full system"
        if name == "full" and diff:  # the base options changed the system: never call it full
            name = BASE
    switches = {
        "preset": settings.preset,
        "planner": settings.planner,
        "sources": settings.enabled_sources(),
        "components_off": [k for k, v in settings.components.model_dump().items() if v is False],
    }
    return Configuration(name, description, settings, identity, switches)
