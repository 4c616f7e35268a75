"""`make test` on a fresh machine: it installs the browser tests' chromium when missing
(as root), or stops at once with one line that says how (not root), so `.ci/run` is only
`make test`. Make runs for real here; `-n` where it would install packages."""

from __future__ import annotations

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
