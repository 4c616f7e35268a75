"""Run Python code in a child process where some top-level packages cannot be imported:
what an accelerator machine lacks (pydantic and so the settings tree, FastAPI, pymilvus,
sentence-transformers, lxml). The torch-only entry points meant to run there
(`indexing.gpu_embed`, `training.gpu_train`) are tested through it. The code sees the set
as ``BLOCKED`` (to report which of them got imported anyway)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_BLOCKER = """
import sys
BLOCKED = set({blocked!r})
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is not on the accelerator machine")
sys.meta_path.insert(0, Block())
"""


def run_without(blocked: set[str], code: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """`code` (dedented) run as ``python -c`` with `args`, the repository on the path and
    the `blocked` packages unimportable."""
    script = _BLOCKER.format(blocked=sorted(blocked)) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script, *args], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=timeout)
