"""The embed stage on Ray Data: `biorag index build --engine ray [--address ADDR] --to-shards DIR`.

Ray Data spreads the input files over a pool of actors, one per GPU where the cluster has
GPUs (else `--actors` CPU actors). Each actor loads the embedder once and turns whole input
files into the bulk path's shards (`indexing.shards`: read, clean, tokenize, length-sorted
embedding, one Parquet shard per file, written under a temporary name and renamed when
whole). A shard is the unit of work and of retry: Ray Data restarts a killed actor and
retries its file, which rewrites that shard from the start, so every file's rows are
written exactly once whatever failed. Files with a finished shard are skipped, as in the
single-process embed stage. `biorag index load DIR` then loads the shards (a server's bulk
import, or row upserts on Lite).

Without `--address` a local Ray starts on 127.0.0.1 (no dashboard, no usage report). The
shard folder must be one every node can read and write (a shared filesystem) and, for the
load stage's bulk import, one the Milvus server can read.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from biorag.settings import Settings
    from indexing.shards import ShardReport

RAY_ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def _worker_settings(settings: Settings) -> dict[str, Any]:
    """What an actor needs to rebuild the settings: the index section without secrets."""
    return {"data_dir": str(settings.data_dir),
            "index": settings.index.model_dump(mode="json", exclude={"token"}) | {"read_workers": 0,
                                                                                  "raw_rate_sample": 0}}


class ShardEmbedder:
    """A Ray Data actor: embeds each input file of a batch into its finished shard."""

    def __init__(self, overrides: dict[str, Any], out_dir: str, batch_size: int):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from biorag.ml.embedder import Embedder
        from biorag.settings import load_settings

        self.settings = load_settings(overrides=overrides)
        self.embedder = Embedder.from_settings(self.settings)
        self.out = Path(out_dir)
        self.batch_size = batch_size

    def __call__(self, batch: dict[str, Any]) -> dict[str, list]:
        from indexing.shards import ShardReport, embed_files

        out: dict[str, list] = {"file": [], "rows": [], "read": [], "kept": [], "dropped": [], "error": [],
                                "seconds": [], "embed_seconds": [], "pid": []}
        for file, name in zip(batch["file"], batch["shard"], strict=True):
            f = Path(str(file))
            r = ShardReport(out_dir=str(self.out))
            t0 = time.perf_counter()
            embed_files(self.settings, [f], {f: str(name)}, self.out, self.embedder, r, self.batch_size,
                        progress=False, workers=0)
            out["file"].append(str(f))
            out["rows"].append(r.rows)
            out["read"].append(r.read)
            out["kept"].append(r.kept)
            out["dropped"].append(json.dumps(r.dropped))
            out["error"].append(r.failed_files.get(str(f), ""))
            out["seconds"].append(time.perf_counter() - t0)
            out["embed_seconds"].append(r.seconds.get("embed", 0.0))
            out["pid"].append(os.getpid())
        return out


def start_ray(address: str | None, num_cpus: int | None = None):
    """Connect to `address`, or start a local Ray on 127.0.0.1."""
    for k, v in RAY_ENV.items():
        os.environ.setdefault(k, v)
    import ray

    logging.getLogger("ray.data").setLevel(logging.WARNING)  # one progress line per 10 s otherwise
    if ray.is_initialized():
        return ray
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        # unix socket paths are capped at 107 bytes: keep Ray's temp dir short
        tmp = tempfile.mkdtemp(prefix="rb", dir="/tmp" if os.path.isdir("/tmp") else None)
        ray.init(num_cpus=num_cpus or os.cpu_count(), include_dashboard=False, object_store_memory=256 * 2**20,
                 _temp_dir=tmp, log_to_driver=False, _node_ip_address="127.0.0.1")
    return ray


def ray_embed_to_shards(settings: Settings, inputs: list[str | Path], out_dir: str | Path,
                        address: str | None = None, actors: int = 2, batch_size: int = 128,
                        embedder=None) -> ShardReport:
    """The embed stage on Ray (see the module docstring); the report sums the actors' work."""
    from biorag.ml.embedder import Embedder
    from indexing.shards import ShardReport, plan_shards, write_manifest

    t_start = time.perf_counter()
    embedder = embedder or Embedder.from_settings(settings)
    out, files, names, todo = plan_shards(settings, inputs, out_dir, embedder)
    write_manifest(out, embedder, files, names)
    report = ShardReport(out_dir=str(out), files=len(files), files_skipped=len(files) - len(todo),
                         embedder=embedder.name, dim=embedder.dim, device="ray actors")
    if not todo:
        return report
    ray = start_ray(address)
    from ray.data import ActorPoolStrategy

    gpus = int(ray.cluster_resources().get("GPU", 0))
    size = min(len(todo), gpus or actors)
    report.seconds["startup"] = time.perf_counter() - t_start
    t0 = time.perf_counter()
    ds = ray.data.from_items([{"file": str(f), "shard": names[f]} for f in todo]).map_batches(
        ShardEmbedder, batch_size=1, compute=ActorPoolStrategy(size=size),
        fn_constructor_kwargs={"overrides": _worker_settings(settings), "out_dir": str(out),
                               "batch_size": batch_size},
        num_gpus=1 if gpus else 0, num_cpus=0 if gpus else max(0.5, (ray.cluster_resources().get("CPU", 2)) / size),
    )
    results = ds.take_all()
    report.seconds["pipeline"] = time.perf_counter() - t0
    for r in results:
        report.rows += int(r["rows"])
        report.read += int(r["read"])
        report.kept += int(r["kept"])
        for reason, n in json.loads(r["dropped"]).items():
            report.dropped[reason] = report.dropped.get(reason, 0) + int(n)
        report.seconds["embed"] = report.seconds.get("embed", 0.0) + float(r["embed_seconds"])
        if r["error"]:
            report.failed_files[str(r["file"])] = str(r["error"])
    report.shards_written = len(results) - len(report.failed_files)
    report.read_workers = size
    report.seconds["wall"] = time.perf_counter() - t_start
    return report
