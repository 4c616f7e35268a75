"""Runs `biorag prioritise` over a folder of phenopackets as a separate command, the way
PhEval's Exomiser runner runs Exomiser: BioRAG keeps its own environment, and the command is
recorded so a result can be reproduced by hand."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from evaluation.pheval_plugin.options import RunnerOptions


def find_biorag(given: Path | None) -> Path:
    """The `biorag` command: the one configured, else the one installed beside PhEval's own
    Python (`pip install -e .[pheval]`), else the one on PATH."""
    if given is not None:
        if not given.is_file():
            raise FileNotFoundError(f"biorag_executable {given}: no such file")
        return given
    beside = Path(sys.executable).parent / "biorag"
    if beside.is_file():
        return beside
    found = shutil.which("biorag")
    if found is None:
        raise FileNotFoundError("no `biorag` command beside PhEval's Python nor on PATH: set "
                                "tool_specific_configuration_options.biorag_executable in config.yaml")
    return Path(found)


def prioritise_command(options: RunnerOptions, phenopackets: Path) -> list[str]:
    """The command line: every case of the folder, ranked as JSON on stdout."""
    argv = [str(find_biorag(options.biorag_executable)), "prioritise", str(phenopackets),
            "--top-k", str(options.top_k), "--json"]
    if options.data_dir is not None:
        argv += ["--set", f"data_dir={json.dumps(str(options.data_dir))}"]
    return argv


def run_prioritise(argv: list[str], commands_dir: Path) -> dict[str, Any]:
    """Runs the command (written first to commands_dir/biorag_commands.txt) and returns its
    JSON: {"cases": [...], "not_read": [...]}. Exit 1 means some files were not read (they are
    listed, and PhEval counts them as misses); any other failure stops the run."""
    commands_dir.mkdir(parents=True, exist_ok=True)
    (commands_dir / "biorag_commands.txt").write_text(shlex.join(argv) + "\n")
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise RuntimeError(f"`{shlex.join(argv)}` failed (exit {done.returncode}):\n{done.stderr.strip()[-2000:]}")
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError as e:
        raise RuntimeError(f"`{shlex.join(argv)}` printed no JSON ({e}): is it BioRAG's `biorag`?") from e
    for bad in result.get("not_read", []):
        print(f"biorag: not read: {bad['file']}: {bad['error']}", file=sys.stderr)
    return result
