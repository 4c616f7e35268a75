"""The embed stage on a local Ray (CPU, 127.0.0.1) with real records: the same PMIDs and
vectors (cosine >= 0.9999) as the single-process embed stage, and every shard written
once although one worker was killed mid-file; the shards then load and verify."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
from index_helpers import SAMPLE, settings_for, shard_vectors

from biorag.ml.embedder import Embedder
from indexing.bulk_load import load_shards
from indexing.shards import embed_to_shards, finished
from indexing.split import split_pubmed_xml

pytestmark = pytest.mark.milvus
ray = pytest.importorskip("ray", reason="ray[data] is not installed (dev extra)")


@pytest.fixture(scope="module")
def local_ray():
    from indexing.ray_build import start_ray

    r = start_ray(None, num_cpus=2)
    yield r
    r.shutdown()


def test_ray_build_matches_the_single_process_build_and_survives_a_killed_worker(tmp_path, local_ray):
    from indexing.ray_build import ray_embed_to_shards

    parts = split_pubmed_xml(SAMPLE / "pubmed_0_to_99.xml.gz", tmp_path / "in", 4)
    embedder = Embedder()
    settings = settings_for(tmp_path / "data", raw_rate_sample=0)
    single = embed_to_shards(settings, parts, tmp_path / "single", progress=False, embedder=embedder)
    assert single.ok

    out = tmp_path / "ray"
    result: dict = {}
    run = threading.Thread(target=lambda: result.update(
        report=ray_embed_to_shards(settings, parts, out, actors=2, batch_size=8, embedder=embedder)))
    run.start()
    killed = None
    deadline = time.monotonic() + 600
    while run.is_alive() and killed is None and time.monotonic() < deadline:
        for tmp in out.glob("*.parquet.*.tmp"):  # a file under way: kill the actor writing it
            name, pid = tmp.name.split(".parquet.")[0], int(tmp.name.split(".")[-2])
            if not finished(out, name):
                os.kill(pid, signal.SIGKILL)
                killed = (name, pid)
                break
        time.sleep(0.05)
    run.join(timeout=900)
    assert killed is not None, "no worker was caught mid-file"
    report = result["report"]
    assert report.ok and report.shards_written == 4 and report.failed_files == {}
    assert finished(out, killed[0]) and not list(out.glob("*.tmp"))  # retried by a new actor, once
    got, want = shard_vectors(out), shard_vectors(tmp_path / "single")
    assert set(got) == set(want) and len(got) == single.rows == report.rows
    assert min(float(got[p] @ want[p]) for p in got) >= 0.9999

    loaded = load_shards(settings_for(tmp_path / "lite"), out, progress=False, embedder=embedder)
    assert loaded.ok and loaded.alias_switched and loaded.rows == len(want)
