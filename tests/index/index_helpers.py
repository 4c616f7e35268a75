"""Real records for the index tests: the bundled PubMed sample, as JSONL rows and files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from biorag.ml.embedder import Embedder
from biorag.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample"


def sample_rows(n: int, start: int = 0) -> list[dict]:
    with gzip.open(SAMPLE / "alzheimers_records.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f]
    return rows[start : start + n]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def settings_for(tmp: Path, **index):
    return load_settings(overrides={"data_dir": str(tmp), "index": index} if index else {"data_dir": str(tmp)})


class FailingEmbedder:
    """The real embedder that breaks after `ok_batches` document batches."""

    def __init__(self, inner: Embedder, ok_batches: int):
        self.inner, self.left = inner, ok_batches
        self.name, self.query_name = inner.name, inner.query_name

    @property
    def dim(self):
        return self.inner.dim

    def embed_documents(self, texts, progress=False):
        if self.left <= 0:
            raise RuntimeError("simulated embedder crash")
        self.left -= 1
        return self.inner.embed_documents(texts)


class CountingEmbedder(FailingEmbedder):
    """Records the size of every embed call."""

    def __init__(self, inner, left=10**9):
        super().__init__(inner, left)
        self.calls: list[int] = []

    def embed_documents(self, texts, progress=False):
        self.calls.append(len(texts))
        return super().embed_documents(texts)


def shard_vectors(out: Path) -> dict:
    """PMID -> vector over every shard a shard folder's manifest lists."""
    import numpy as np
    import pyarrow.parquet as pq

    from biorag.ml import pubmed_schema as ps
    from indexing.shards import read_manifest

    vecs = {}
    for e in read_manifest(out)["inputs"]:
        t = pq.read_table(out / f"{e['shard']}.parquet", columns=["pmid", ps.VECTOR_FIELD]).to_pylist()
        vecs.update({int(r["pmid"]): np.asarray(r[ps.VECTOR_FIELD], dtype=np.float32) for r in t})
    return vecs
