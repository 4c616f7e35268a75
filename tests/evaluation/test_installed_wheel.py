"""`biorag eval retrieval` from a wheel, as a user installs it: the project is built into a
wheel (from a copy of the tracked files, so the checkout gains no build/ folder), installed
with its console script into a fresh virtualenv, and run from a directory outside the
checkout with nothing of the checkout on the path. Before the benchmark moved into
`evaluation/` the command reached `benchmarks/` (not packaged) through `sys.path` and failed
here.

No network: the wheel is built without build isolation and installed without
dependencies; the new environment sees the shared environment's packages through a `.pth`
line (a plain path: the shared environment's own `.pth` files, such as an editable install
of the checkout, are not run), after its own site-packages, so the wheel's modules win.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.milvus

ROOT = Path(__file__).resolve().parents[2]
PUBMEDQA = ROOT / "tests" / "data" / "training" / "pubmedqa_sample.json"
CORPUS = ROOT / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"


def _tracked_copy(dest: Path) -> None:
    """The files git tracks (what a clone has), without the tests."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in listed.decode().split("\0"):
        if not name or name.startswith("tests/") or not (ROOT / name).is_file():
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("wheel")
    src, dist, env_dir = tmp / "src", tmp / "dist", tmp / "venv"
    _tracked_copy(src)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "-q", "-w", str(dist), str(src)],
        capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    wheel = next(dist.glob("biorag-*.whl"))

    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "shared_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        capture_output=True, text=True, timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]

    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(BIORAG_DATA_DIR=str(tmp / "data"), HF_HUB_OFFLINE="1")
    return {"bin": env_dir / "bin", "python": python, "site": site, "cwd": elsewhere, "env": env}


def _run(installed: dict, *argv: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*argv], cwd=installed["cwd"], env=installed["env"], capture_output=True,
                          text=True, timeout=timeout)


def test_the_packages_come_from_the_wheel(installed):
    code = "import cli.main, evaluation.retrieval, application.engine, biorag; print(cli.main.__file__)"
    r = _run(installed, str(installed["python"]), "-c", code)
    assert r.returncode == 0, r.stderr[-2000:]
    assert Path(r.stdout.strip()).is_relative_to(installed["site"]), r.stdout
    r = _run(installed, str(installed["python"]), "-c", "import benchmarks")
    assert r.returncode != 0, "benchmarks/ must not be needed (nor shipped) by the installed command"


def test_eval_retrieval_help_from_the_wheel(installed):
    r = _run(installed, str(installed["bin"] / "biorag"), "eval", "retrieval", "--help")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Recall@1/4/10" in r.stdout and "--dataset" in r.stdout


def test_eval_retrieval_runs_from_the_wheel(installed):
    out = installed["cwd"] / "bench"
    r = _run(installed, str(installed["bin"] / "biorag"), "eval", "retrieval", "--dataset", "pubmedqa",
             "-q", str(PUBMEDQA), "--corpus", str(CORPUS), "--limit", "3", "--corpus-limit", "5",
             "--mode", "dense", "--mode", "bm25", "--out", str(out), "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    summary = json.loads(r.stdout)
    assert summary["questions"] == 3 and summary["corpus_gold"] == 3 and summary["corpus_distractors"] == 5
    assert set(summary["modes"]) == {"dense", "bm25"}
    # each question's own context is in an 8-document index: dense search finds it
    assert summary["modes"]["dense"]["recall@10"] == 1.0
    assert (out / "results.csv").exists() and (out / "summary.json").exists()
