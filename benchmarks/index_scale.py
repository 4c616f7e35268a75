"""Index types at scale on a real Milvus server (a benchmark, not a test).

    nice -n 15 python -m benchmarks.index_scale \
        --records /work/shared/data/pubmed_xml/pubmed_records.jsonl.gz \
        --work /var/tmp/biorag-scale --sizes 1000000 2000000 \
        --types IVF_SQ8 HNSW IVF_PQ DISKANN --out benchmarks/results/2026-11-26

Rows look like ours (`benchmarks/index_scale_data.py` states the method): real abstracts
embedded with the default embedder, larger sets drawn as a Gaussian mixture around them
with calibrated spread, each row carrying its parent's MeSH terms, year and text. Queries:
real titles, unfiltered and with one descriptor from the real heading distribution (the
query mix of `benchmarks/mesh_filter_latency.py`).

Per size the shards are bulk-imported once (`indexing.bulk_load._bulk_import`: Parquet +
`do_bulk_insert` on 2.3.5); per index type the vector index is rebuilt on them, the
server restarted and the collection loaded, and the figures taken: build time, server
RSS after load and its peak during load (VmHWM of a fresh process), disk, recall@10 vs
exact on every query (filtered and unfiltered) per search parameter, p50/p95 at 1 and 4
clients, the load average beside each figure, and this process's peak RSS. Resumable per
(index type, size): a finished pair's JSON is kept and skipped. One server at a time:
never beside the milvus_server tests (port 2380 is fixed).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from benchmarks.index_scale_data import Base, ensure_shards, merged_truth

# build parameters per type, and the search parameter swept (ascending) for recall
BUILD = {
    "HNSW": {"M": 16, "efConstruction": 200},
    "IVF_SQ8": {"nlist": 1024},
    "IVF_PQ": {"nlist": 1024, "m": 48, "nbits": 8},
    "DISKANN": {},
}
# IVF_SQ8 runs to nprobe = nlist (an exhaustive scan of the codes): the per-query recalls of
# the whole curve let `index_scale_report` evaluate a probe rule that depends on the filter's
# match count without another run.
SWEEP = {"HNSW": ("ef", [64, 128, 256, 512]), "IVF_SQ8": ("nprobe", [32, 64, 128, 256, 512, 1024]),
         "IVF_PQ": ("nprobe", [32, 64, 128, 256]), "DISKANN": ("search_list", [64, 128, 256])}
TARGET = 0.95
# what the paper preset serves (biorag/presets/paper.json, index.filtered_probe_rows): the
# figures and the 4-client run of these types use it rather than the first breadth that
# meets the target unfiltered and filtered alike
SERVED = {"IVF_SQ8": 256}
PROBE_ROWS = 65_536


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.2f}] {msg}", flush=True)


def load_avg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def client_peak_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def du_mb(p: Path) -> float:
    if not p.exists():
        return 0.0
    return round(sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) / 1e6, 1)


class Server:
    """The 2.3.5 embedded server (tests/milvus_server.py) with its RSS readings."""

    def __init__(self, base_dir: Path, mmap: bool = False):
        self.base_dir = base_dir
        self.mmap_dir = base_dir / "mmap" if mmap else None
        self.srv = None

    def start(self) -> None:
        from tests.milvus_server import MilvusTestServer

        self.srv = MilvusTestServer(self.base_dir, timeout_s=300, mmap_dir=self.mmap_dir).start()

    def stop(self) -> None:
        if self.srv is not None:
            self.srv.stop()
            self.srv = None

    @property
    def uri(self) -> str:
        return self.srv.uri

    def _status(self, key: str) -> float:
        """A memory line of the server process's /proc status, in MB (it runs etcd and
        every Milvus role in one process)."""
        txt = Path(f"/proc/{self.srv.server.server_proc.pid}/status").read_text()
        return next(int(line.split()[1]) for line in txt.splitlines() if line.startswith(key)) / 1024

    def rss_mb(self) -> float:
        return round(self._status("VmRSS:"), 1)

    def peak_mb(self) -> float:
        return round(self._status("VmHWM:"), 1)


def settings_for(uri: str):
    from biorag.settings import Settings

    return Settings(index={"uri": uri})


def ensure_imported(server: Server, name: str, shards: list[Path], rows: int, record: Path) -> dict:
    """Bulk-import the shards once per size (kept across index types and resumed runs)."""
    from pymilvus import MilvusClient

    from biorag.ml import pubmed_schema as ps
    from indexing.bulk_load import _bulk_import

    c = MilvusClient(uri=server.uri)
    try:
        for other in c.list_collections():  # one size on the server at a time: disk and RSS are its own
            if other.startswith("scale_") and other != name:
                c.drop_collection(other)
        if c.has_collection(name) and record.exists():
            if int(c.get_collection_stats(name).get("row_count", 0)) == rows:
                log(f"{name}: {rows} rows already imported")
                return json.loads(record.read_text())
        if c.has_collection(name):
            c.drop_collection(name)
        c.create_collection(collection_name=name, schema=ps.build_schema(384))
        c.release_collection(name)
        t0, la = time.perf_counter(), load_avg()
        _bulk_import(c, settings_for(server.uri), name, shards)
        c.flush(name)
        fig = {"import_s": round(time.perf_counter() - t0, 1), "import_load_avg": [la, load_avg()],
               "shard_mb": du_mb(shards[0].parent), "disk_data_after_import_mb": du_mb(server.base_dir / "data")}
        record.write_text(json.dumps(fig, indent=1))
        log(f"{name}: imported {rows} rows in {fig['import_s']}s")
        return fig
    finally:
        c.close()


def _log_lines(base_dir: Path) -> dict[Path, int]:
    return {p: p.stat().st_size for p in (base_dir / "logs").glob("standalone*.log")}


def _new_build_failure(base_dir: Path, since: dict[Path, int]) -> str | None:
    """The first "failed to build index" line the server logged after `since` (2.3.5 retries
    a failed build forever and reports it only in its log)."""
    for p, size in _log_lines(base_dir).items():
        with open(p, "rb") as f:
            f.seek(since.get(p, 0))
            for line in f.read(size - since.get(p, 0)).decode(errors="replace").splitlines():
                if "failed to build index" in line:
                    return line.strip()
    return None


def _built_index(col, name: str, itype: str) -> bool:
    """Whether the collection already holds a finished `itype` index with this run's build
    parameters (a measurement that changes only how the server loads can reuse it)."""
    from pymilvus import utility

    for ix in col.indexes:
        p = ix.params
        params = p.get("params", {})
        if isinstance(params, str):
            params = json.loads(params)
        if p.get("index_type") == itype and {k: int(v) for k, v in params.items()} == BUILD[itype]:
            prog = utility.index_building_progress(name, using="bench")
            return bool(prog.get("total_rows")) and prog.get("indexed_rows") == prog.get("total_rows")
    return False


def build_index(server: Server, name: str, itype: str, fig: dict, timeout_s: float, reuse: bool = False) -> bool:
    """Replace the collection's vector index with `itype`; False (error recorded) if refused.
    reuse: keep a finished index of the same type and parameters (no build figures then)."""
    from pymilvus import Collection, connections, utility

    from biorag.ml import pubmed_schema as ps

    connections.connect("bench", uri=server.uri)
    try:
        col = Collection(name, using="bench")
        col.release()
        if reuse and _built_index(col, name, itype):
            fig["index_reused"] = True
            log(f"{itype}: the finished index of the same parameters is reused (no build figures)")
            return True
        for ix in list(col.indexes):
            col.drop_index(index_name=ix.index_name)
        since = _log_lines(server.base_dir)
        t0, la = time.perf_counter(), load_avg()
        # held until the build ends: a dropped future cancels the server's CreateIndex call
        pending = col.create_index(ps.VECTOR_FIELD, {"index_type": itype, "metric_type": "COSINE",
                                                     "params": BUILD[itype]}, _async=True)
        while True:
            time.sleep(2)
            try:
                prog = utility.index_building_progress(name, using="bench")
            except Exception as e:  # noqa: BLE001 - the index is registered a moment after the call
                prog = {"not yet": str(e)[:200]}
            if prog.get("total_rows") and prog.get("indexed_rows") == prog.get("total_rows"):
                break
            err = _new_build_failure(server.base_dir, since)
            if err or time.perf_counter() - t0 > timeout_s:
                fig["error"] = err or f"index not built after {timeout_s:.0f}s ({prog})"
                log(f"{itype} not built: {fig['error'][:300]}")
                col.drop_index()  # 2.3.5 would retry the failed build for ever
                return False
        del pending
        fig.update(build_s=round(time.perf_counter() - t0, 1), build_load_avg=[la, load_avg()],
                   server_peak_mb_through_build=server.peak_mb())
        log(f"{itype}: index built in {fig['build_s']}s")
        return True
    finally:
        connections.disconnect("bench")


def load_and_measure(server: Server, name: str, fig: dict) -> None:
    """Restart the server, load the collection, record RSS after load and the peak during it."""
    from pymilvus import MilvusClient

    server.stop()
    server.start()
    fig["server_rss_idle_mb"] = server.rss_mb()
    c = MilvusClient(uri=server.uri)
    t0, la = time.perf_counter(), load_avg()
    c.load_collection(name)
    fig.update(load_s=round(time.perf_counter() - t0, 1), load_load_avg=[la, load_avg()])
    time.sleep(5)
    data = server.base_dir / "data"
    # VmRSS counts mapped file pages the load touched; RssAnon is what the server cannot give
    # back (with --mmap the field data is file-backed: the page cache, reclaimable under pressure)
    fig.update(server_rss_anon_after_load_mb=round(server._status("RssAnon:"), 1),
               server_rss_file_after_load_mb=round(server._status("RssFile:"), 1))
    fig.update(server_rss_after_load_mb=server.rss_mb(), server_peak_during_load_mb=server.peak_mb(),
               disk_data_mb=du_mb(data), disk_index_files_mb=du_mb(data / "index_files"),
               disk_insert_log_mb=du_mb(data / "insert_log"))
    c.close()
    log(f"loaded in {fig['load_s']}s; server RSS {fig['server_rss_after_load_mb']} MB (anon "
        f"{fig['server_rss_anon_after_load_mb']}, file {fig['server_rss_file_after_load_mb']}), peak {fig['server_peak_during_load_mb']} MB")


def _search(c, name: str, q: np.ndarray, expr: str, itype: str, param: int) -> tuple[float, list[int]]:
    from biorag.ml import pubmed_schema as ps

    key = SWEEP[itype][0]
    t = time.perf_counter()
    res = c.search(name, data=[q.tolist()], limit=10, filter=expr, anns_field=ps.VECTOR_FIELD, output_fields=["pmid"],
                   search_params={"metric_type": "COSINE", "params": {key: param}})
    return time.perf_counter() - t, [int(h["id"]) for h in res[0]]


def _recall(got: list[int], truth: np.ndarray) -> float:
    want = {int(x) for x in truth if x >= 0}
    return len(want & set(got)) / len(want) if want else float(not got)


def _pct(xs: list[float], q: float) -> float:
    return round(float(np.percentile(np.asarray(xs) * 1000, q)), 1)


def query_figures(server: Server, name: str, itype: str, base: Base, truth: dict, fig: dict,
                  params: list[int] | None = None) -> None:
    from pymilvus import MilvusClient

    from biorag.ml import pubmed_schema as ps

    q_ui = base.meta["q_ui"]
    exprs = [f'array_contains_any(mesh_ui, ["{u}"])' for u in q_ui]
    c = MilvusClient(uri=server.uri)
    for q in base.qv[:10]:  # warm-up
        _search(c, name, q, "", itype, SWEEP[itype][1][0])
    sweep, chosen = [], None
    for param in params or SWEEP[itype][1]:
        la = load_avg()
        lat_u, lat_f, rec_u, rec_f = [], [], [], []
        for i, q in enumerate(base.qv):
            dt, got = _search(c, name, q, "", itype, param)
            lat_u.append(dt)
            rec_u.append(_recall(got, truth["unfiltered"][i]))
            dt, got = _search(c, name, q, exprs[i], itype, param)
            lat_f.append(dt)
            rec_f.append(_recall(got, truth["filtered"][i]))
        row = {SWEEP[itype][0]: param, "recall10_unfiltered": round(float(np.mean(rec_u)), 4),
               "recall10_filtered": round(float(np.mean(rec_f)), 4), "p50_ms_1client_unfiltered": _pct(lat_u, 50),
               "p95_ms_1client_unfiltered": _pct(lat_u, 95), "p50_ms_1client_filtered": _pct(lat_f, 50),
               "p95_ms_1client_filtered": _pct(lat_f, 95), "load_avg": [la, load_avg()]}
        row["recall10_filtered_per_query"] = [round(x, 2) for x in rec_f]
        row["recall10_unfiltered_per_query"] = [round(x, 2) for x in rec_u]
        row["ms_filtered_per_query"] = [round(x * 1000, 1) for x in lat_f]
        sweep.append(row)
        log(f"{itype} {({k: v for k, v in row.items() if not k.endswith('_per_query')})}")
        if itype in SERVED:
            chosen = row if param == SERVED[itype] else chosen
        elif chosen is None or chosen["recall10_unfiltered"] < TARGET or chosen["recall10_filtered"] < TARGET:
            chosen = row  # the first breadth that meets both targets (or the widest tried)
        if itype != "IVF_SQ8" and row["recall10_unfiltered"] >= TARGET and row["recall10_filtered"] >= TARGET:
            break
    c.close()
    fig["sweep"] = sweep
    fig["chosen"] = chosen
    rule = None
    if itype in SERVED:  # filtered queries probe as the retriever does (PubMedRetriever.probes)
        rule = [ps.filtered_nprobe(SERVED[itype], PROBE_ROWS, BUILD[itype]["nlist"], m)
                for m in fig["expected_matches_per_query"]]
        fig["clients4_rule"] = {"nprobe": SERVED[itype], "filtered_probe_rows": PROBE_ROWS}
    fig["clients4"] = four_clients(server, name, itype, base, exprs, chosen[SWEEP[itype][0]], rule)
    c = MilvusClient(uri=server.uri)
    c.release_collection(name)  # a restarted server reloads what was loaded: only the measured one may be
    c.close()


def four_clients(server: Server, name: str, itype: str, base: Base, exprs: list[str], param: int,
                 filtered_params: list[int] | None = None) -> dict:
    """p50/p95 with 4 clients, each its own connection, over all queries (half filtered);
    `filtered_params`: the search parameter per filtered query (the retriever's probe rule)."""
    from pymilvus import MilvusClient

    clients = [MilvusClient(uri=server.uri) for _ in range(4)]
    lat: dict[str, list[float]] = {"unfiltered": [], "filtered": []}
    lock = threading.Lock()

    def work(w: int) -> None:
        for i in range(w, len(base.qv), 4):
            kind = "filtered" if i % 2 else "unfiltered"
            p = filtered_params[i] if filtered_params and i % 2 else param
            dt, _ = _search(clients[w], name, base.qv[i], exprs[i] if i % 2 else "", itype, p)
            with lock:
                lat[kind].append(dt)

    la, t0 = load_avg(), time.perf_counter()
    with ThreadPoolExecutor(4) as ex:
        list(ex.map(work, range(4)))
    wall = time.perf_counter() - t0
    for c in clients:
        c.close()
    return {"p50_ms_unfiltered": _pct(lat["unfiltered"], 50), "p95_ms_unfiltered": _pct(lat["unfiltered"], 95),
            "p50_ms_filtered": _pct(lat["filtered"], 50), "p95_ms_filtered": _pct(lat["filtered"], 95),
            "queries_per_s": round(len(base.qv) / wall, 1), "load_avg": [la, load_avg()]}


def run_size(a, base: Base, rows: int, server: Server) -> None:
    tag = f"{rows}_notext" if a.no_text else f"{rows}"
    shards = ensure_shards(base, a.work / f"rows-{tag}", rows, a.shard_rows, a.seed, log=log, text=not a.no_text)
    truth = merged_truth(shards)
    name = f"scale_{tag}"
    for itype in a.types:
        out = a.out / f"index_scale_{itype}_{tag}{'_mmap' if a.mmap else ''}.json"
        if out.exists():
            log(f"{out.name} exists: skipped")
            continue
        if server.srv is None:
            server.start()
        imported = ensure_imported(server, name, shards, rows, a.out / f"index_scale_import_{tag}.json")
        fig = {"index_type": itype, "rows": rows, "text": not a.no_text, "mmap": a.mmap,
               # rows carrying each query's descriptor (expected: parents' share x rows), for the
               # production path, which scores filters of at most index.exact_filter_rows rows exactly
               "expected_matches_per_query": [round(float(x) * rows) for x in base.carries.mean(axis=0)], "dim": int(base.vecs.shape[1]), "build_params": BUILD[itype],
               "queries": len(base.qv), "server": "milvus 2.3.5 (embedded wheel)", **imported}
        if build_index(server, name, itype, fig, a.build_timeout, reuse=a.reuse_index):
            load_and_measure(server, name, fig)
            query_figures(server, name, itype, base, truth, fig, a.params)
        fig["client_peak_rss_mb"] = client_peak_mb()
        fig["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        out.write_text(json.dumps(fig, indent=1))
        log(f"wrote {out}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", required=True, help="real PubMed records, JSONL(.gz) (title, abstract, mesh, year)")
    ap.add_argument("--work", type=Path, required=True, help="folder for shards and the server's data (tens of GB)")
    ap.add_argument("--out", type=Path, required=True, help="folder for the figures (JSON per index type and size)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 2_000_000])
    ap.add_argument("--types", nargs="+", default=["IVF_SQ8", "HNSW", "IVF_PQ", "DISKANN"])
    ap.add_argument("--queries", type=int, default=600)
    ap.add_argument("--embed-budget", type=float, default=1e9,
                    help="seconds to spend embedding real records for the base set (a random sample when cut short)")
    ap.add_argument("--shard-rows", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--build-timeout", type=float, default=5400, help="seconds an index build may take")
    ap.add_argument("--no-text", action="store_true",
                    help="rows without title/abstract/journal (what the text costs in the server's RAM)")
    ap.add_argument("--shards-only", action="store_true",
                    help="write the shards and exact truth only (no server): the client's peak memory per size")
    ap.add_argument("--fresh-server", action="store_true", help="remove the server's data dir first")
    ap.add_argument("--mmap", action="store_true",
                    help="memory-map loaded field data (2.3's queryNode.mmapDirPath under WORK/server/mmap): "
                         "text, scalars and raw vectors leave the server's heap; figures go to *_mmap.json")
    ap.add_argument("--reuse-index", action="store_true",
                    help="keep a finished index of the same type and parameters (e.g. to measure --mmap "
                         "on an index already built): no build figures then")
    ap.add_argument("--params", type=int, nargs="+",
                    help="search parameters to sweep instead of the type's full sweep (e.g. the served nprobe)")
    a = ap.parse_args(argv)
    warnings.filterwarnings("ignore", message=".*ORM-style PyMilvus API.*")
    logging.getLogger("pymilvus").setLevel(logging.CRITICAL)  # the polled "index not found" of a fresh index
    a.out.mkdir(parents=True, exist_ok=True)
    base_dir = a.work / "base"
    if not (base_dir / "base.json").exists():
        log("embedding the real records (base set), in a child process: the model stays out of this one's peak")
        subprocess.run([sys.executable, "-m", "benchmarks.index_scale_data", a.records, str(base_dir), str(a.queries),
                        str(a.seed), str(a.embed_budget)], check=True)
    base = Base(base_dir)
    (a.out / "index_scale_base.json").write_text(json.dumps({k: v for k, v in base.meta.items() if k != "q_ui"}, indent=1))
    log(f"base: {base.meta['records']} real vectors; chosen h {base.meta['chosen_h']}")
    if a.shards_only:  # the client's side alone: its peak memory while it writes a set and its truth
        for rows in a.sizes:
            shards = ensure_shards(base, a.work / f"rows-{rows}", rows, a.shard_rows, a.seed, log=log)
            merged_truth(shards)
            fig = {"rows": rows, "shard_rows": a.shard_rows, "client_peak_rss_mb": client_peak_mb(),
                   "shards_mb": du_mb(shards[0].parent), "load_avg": load_avg()}
            (a.out / f"index_scale_client_{rows}.json").write_text(json.dumps(fig, indent=1))
            log(f"{rows} rows written: client peak RSS {fig['client_peak_rss_mb']} MB")
        return
    server = Server(a.work / "server", mmap=a.mmap)
    if a.fresh_server:
        shutil.rmtree(server.base_dir, ignore_errors=True)
    try:
        for rows in a.sizes:
            run_size(a, base, rows, server)
    finally:
        server.stop()
    log(f"client peak RSS {client_peak_mb()} MB")


if __name__ == "__main__":
    sys.exit(main())
