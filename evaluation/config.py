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

A configuration's hash covers everything that can change an answer: the effective
settings (`Settings.fingerprint()`), the model identity (backend, model, and for a
local GGUF its size and a digest of its head), the tool recording (sha256 of the
cassette in replay/cache mode) and the index (Milvus URI and collection name).
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
                v.sets += [f"llm.model_path={target}", f"llm.model={Path(target).stem}"]
                descs.append(f"base LLM file {Path(target).name}")
            else:
                v.sets.append(f"llm.model={target}")
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


def build_configuration(variant: Variant, settings, cassette: str | Path | None) -> Configuration:
    """Freeze a variant into a Configuration. `cassette` is the recording the tools
    will replay (resolved by the caller, since the default lives in `retrievers/`)."""
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
    switches = {
        "preset": settings.preset,
        "planner": settings.planner,
        "sources": settings.enabled_sources(),
        "components_off": [k for k, v in settings.components.model_dump().items() if v is False],
    }
    return Configuration(variant.name, variant.description, settings, identity, switches)
