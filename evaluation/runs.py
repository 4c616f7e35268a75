"""The configurations already evaluated in an output folder, and how a new run joins them.

Each `<name>__<key>/` folder holds `config.json` and `results.jsonl`. A report covers
every configuration in the folder: a new run's configurations replace earlier ones of the
same name (the newest results under a name are the ones that count: a changed store or
code gives the name a new key), and the others stay in the report beside them.
"""

from __future__ import annotations

import json
from pathlib import Path

from evaluation.config import BASE, Configuration
from evaluation.harness import RESULTS, RunResult, latest_rows, read_rows


def load_runs(out_dir: str | Path) -> list[RunResult]:
    """Every configuration folder under `out_dir` with its latest rows, full system
    first, then oldest first; for one name only the newest folder."""
    found = sorted(Path(out_dir).glob("*/config.json"),
                   key=lambda p: (not p.parent.name.startswith(("full__", f"{BASE}__")), p.stat().st_mtime))
    runs: dict[str, RunResult] = {}
    for cfg_file in found:
        try:
            meta = json.loads(cfg_file.read_text())
            cfg = Configuration(meta["name"], meta.get("description", ""), None, meta["identity"],
                                meta.get("switches", {}))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # not a configuration folder this harness wrote
        rows = [r for r in latest_rows(read_rows(cfg_file.parent / RESULTS)).values()
                if r.get("config_hash") == cfg.hash]
        runs.pop(cfg.name, None)  # a newer folder of the same name supersedes the older
        runs[cfg.name] = RunResult(cfg, cfg_file.parent, rows=rows)
    return list(runs.values())


def merge_runs(current: list[RunResult], earlier: list[RunResult]) -> tuple[list[RunResult], list[str]]:
    """`current` plus the `earlier` configurations it does not replace (by name), the full
    system first; also the names kept from `earlier`."""
    names = {r.config.name for r in current}
    kept = [r for r in earlier if r.config.name not in names]
    merged = current + kept
    merged.sort(key=lambda r: r.config.name not in ("full", BASE))  # stable: otherwise in run order
    return merged, [r.config.name for r in kept]
