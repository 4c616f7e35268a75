"""Reading the small JSON files users hand to BioRAG (presets, artifact manifests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from biorag.contracts.errors import ConfigError
from biorag.host.textfile import unreadable


def read_json_object(path: Path, what: str, fix: str = "") -> dict[str, Any]:
    """The JSON object in `path`; a ConfigError naming `what` (and the `fix`) otherwise."""
    hint = f": {fix}" if fix else ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ConfigError(f"{what} {path} is not valid JSON ({e}){hint}") from None
    except (UnicodeDecodeError, OSError) as e:
        raise ConfigError(f"{what} {path} {unreadable(e)}: give a JSON file{hint}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{what} {path} must hold a JSON object{hint}")
    return data
