"""The `tool_specific_configuration_options` of a PhEval input directory's config.yaml,
read with errors that name the option, so a typo stops the run before BioRAG starts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the genes `biorag prioritise` may return per case (its --top-k range)
MAX_TOP_K = 100

KNOWN = {"biorag_executable", "data_dir", "top_k"}


@dataclass(frozen=True)
class RunnerOptions:
    """biorag_executable: the `biorag` command (None: found beside PhEval's Python, then on
    PATH); data_dir: the folder holding hpo_store.sqlite (None: BioRAG's own data dir, or
    BIORAG_DATA_DIR); top_k: genes ranked per case."""

    biorag_executable: Path | None = None
    data_dir: Path | None = None
    top_k: int = MAX_TOP_K


def read_options(raw: Any, config: Path) -> RunnerOptions:
    """RunnerOptions from the parsed YAML mapping (None or empty: the defaults)."""
    if raw is None:
        return RunnerOptions()
    if not isinstance(raw, dict):
        raise ValueError(f"{config}: tool_specific_configuration_options must be a mapping, not {type(raw).__name__}")
    unknown = sorted(set(raw) - KNOWN)
    if unknown:
        raise ValueError(f"{config}: unknown tool_specific_configuration_options {unknown}; "
                         f"known: {sorted(KNOWN)}")
    top_k = raw.get("top_k", MAX_TOP_K)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise ValueError(f"{config}: top_k must be a whole number from 1 to {MAX_TOP_K}, not {top_k!r}")
    paths = {k: Path(str(raw[k])).expanduser() if raw.get(k) else None for k in ("biorag_executable", "data_dir")}
    return RunnerOptions(paths["biorag_executable"], paths["data_dir"], top_k)
