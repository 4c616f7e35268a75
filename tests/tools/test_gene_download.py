"""`biorag data gene-store build --download` against a real HTTP server started here on
127.0.0.1, serving the small real sample files (chromosome 16 rows of NCBI gene_info, HGNC,
OMIM mim2gene, NCBI mim2gene_medgen, and the ClinVar gene_condition_source_id rows of those
genes). Files and store are replaced only when every file arrived and the build passed."""

from __future__ import annotations

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from cli.main import app
from indexing.gene_annotations import CLINVAR_VCF
from indexing.gene_store_build import SAMPLE_DIR, snapshot_paths
from retrievers.stores.gene_store import GeneStore

SAMPLE = {
    "gene_info": ("Homo_sapiens.gene_info.gz", (SAMPLE_DIR / "gene_info_chr16.tsv.gz").read_bytes()),
    "hgnc": ("hgnc_complete_set.txt.gz", (SAMPLE_DIR / "hgnc_chr16.tsv.gz").read_bytes()),
    "mim2gene": ("mim2gene.txt", (SAMPLE_DIR / "mim2gene_chr16.txt").read_bytes()),
    "mim2gene_medgen": ("mim2gene_medgen", (SAMPLE_DIR / "mim2gene_medgen_chr16.txt").read_bytes()),
}


def _gcs_chr16() -> bytes:
    """The real ClinVar rows whose gene is in the chromosome-16 sample (header kept)."""
    with gzip.open(SAMPLE_DIR / "gene_info_chr16.tsv.gz", "rt", encoding="utf-8") as fh:
        genes = {line.split("\t")[1] for line in fh if not line.startswith("#")}
    with gzip.open(snapshot_paths()["gene_condition"], "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines(keepends=True)
    return "".join([lines[0], *(ln for ln in lines[1:] if ln.split("\t")[0] in genes)]).encode()


SAMPLE["gene_condition"] = ("gene_condition_source_id", _gcs_chr16())


class FileServer:
    """Serves SAMPLE under /files/<name>; `broken` maps a name to "404", "short" (the
    connection closes halfway through the announced length) or other bytes to serve."""

    def __init__(self):
        self.broken: dict[str, str] = {}
        self.requests: list[str] = []
        files = {name: body for name, body in SAMPLE.values()}
        srv = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                name = self.path.rsplit("/", 1)[-1]
                srv.requests.append(name)
                body = files.get(name)
                if isinstance(srv.broken.get(name), bytes):
                    body = srv.broken[name]
                if body is None or srv.broken.get(name) == "404":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body[: len(body) // 2] if srv.broken.get(name) == "short" else body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/files/{name}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def files():
    srv = FileServer()
    yield srv
    srv.close()


def _build(files, tmp_path, *extra):
    sets = [f"gene_files.{key}={files.url(name)}" for key, (name, _) in SAMPLE.items()]
    args = ["data", "gene-store", "build", "--download", "--out", str(tmp_path / "gs.sqlite"),
            "--set", f"data_dir={tmp_path / 'data'}", "--no-diseases", *extra]
    for s in sets:
        args += ["--set", s]
    return CliRunner().invoke(app, args)


def test_download_builds_from_the_served_files(files, tmp_path):
    r = _build(files, tmp_path, "--json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["gene_info"] == 2321 and summary["medgen_phenotype_links"] == 319
    folder = tmp_path / "data" / "gene_files"
    assert sorted(p.name for p in folder.iterdir()) == sorted(name for name, _ in SAMPLE.values())
    for name, body in SAMPLE.values():
        assert (folder / name).read_bytes() == body
    assert summary["downloaded"]["gene_info"] == str(folder / "Homo_sapiens.gene_info.gz")
    store = GeneStore(tmp_path / "gs.sqlite")
    try:
        assert store.lookup("LMP10")[0][0]["symbol"] == "PSMB10"
        # the build record names the files where they now are, not their temporary names
        # (ClinVar's variants come from the bundled subset: the full VCF is not downloaded)
        assert store.info()["inputs"] == {**{key: str(folder / name) for key, (name, _) in SAMPLE.items()},
                                          "clinvar_vcf": str(CLINVAR_VCF)}
    finally:
        store.close()
    assert sorted(files.requests) == sorted(name for name, _ in SAMPLE.values())


def test_download_shows_progress(files, tmp_path):
    r = _build(files, tmp_path)
    assert r.exit_code == 0, r.output
    assert "Homo_sapiens.gene_info.gz" in r.output and "100%" in r.output
    assert "gene store: " in r.output


@pytest.mark.parametrize("failure", ["404", "short"])
def test_failed_download_keeps_previous_files_and_store(files, tmp_path, failure):
    assert _build(files, tmp_path, "--json").exit_code == 0
    folder = tmp_path / "data" / "gene_files"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    built = GeneStore(tmp_path / "gs.sqlite")
    built_at = built.info()["built_at"]
    built.close()
    files.broken["mim2gene_medgen"] = failure
    r = _build(files, tmp_path, "--json")
    assert r.exit_code != 0
    assert r.output.startswith("error: download of http://127.0.0.1") and "mim2gene_medgen" in r.output
    assert "Traceback" not in r.output
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # no partial files left
    store = GeneStore(tmp_path / "gs.sqlite")
    try:
        assert store.info()["built_at"] == built_at
    finally:
        store.close()


def test_download_with_file_options_is_refused(files, tmp_path):
    r = _build(files, tmp_path, "--gene-info", str(SAMPLE_DIR / "gene_info_chr16.tsv.gz"))
    assert r.exit_code != 0 and "choose one of --sample, --download or file options" in r.output


def test_served_file_that_is_not_gene_info_fails_the_build_and_replaces_nothing(files, tmp_path):
    assert _build(files, tmp_path, "--json").exit_code == 0
    folder = tmp_path / "data" / "gene_files"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    files.broken["Homo_sapiens.gene_info.gz"] = SAMPLE["mim2gene"][1]  # a real file, the wrong one
    r = _build(files, tmp_path, "--json")
    assert r.exit_code != 0 and "not an NCBI gene_info" in r.output
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
