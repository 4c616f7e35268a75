"""`biorag index verify` and the check a build runs before switching the alias:
counts, recorded embedder and dimensions, and a sample of round trips (re-embed a stored
record's text: it must match its stored vector; search with that vector: the record must
come back first)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from biorag import pubmed_schema as ps

if TYPE_CHECKING:
    from biorag.embedder import Embedder


@dataclass
class VerifyReport:
    collection: str
    rows: int = 0
    dim: int | None = None
    meta: dict = field(default_factory=dict)
    sampled: int = 0
    round_trips_ok: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"collection": self.collection, "ok": self.ok, "rows": self.rows, "dim": self.dim,
                "meta": self.meta, "sampled": self.sampled, "round_trips_ok": self.round_trips_ok,
                "problems": self.problems}


def verify_collection(
    client, collection: str, embedder: Embedder | None, expected_min: int = 1,
    expected_rows: int | None = None, sample: int = 8, seed: int = 0,
) -> VerifyReport:
    r = VerifyReport(collection=collection)
    if not client.has_collection(collection):
        r.problems.append(f"collection {collection} does not exist")
        return r
    client.load_collection(collection)
    r.meta = ps.read_meta(client.describe_collection(collection))
    r.dim = ps.vector_dim(client, collection)
    r.rows = ps.row_count(client, collection)
    if not r.meta:
        r.problems.append("collection has no BioRAG metadata (embedder/dim): not built by `biorag index build`")
    elif r.meta.get("dim") != r.dim:
        r.problems.append(f"recorded dim {r.meta.get('dim')} != vector field dim {r.dim}")
    if r.rows < expected_min:
        r.problems.append(f"{r.rows} rows, expected at least {expected_min}")
    if expected_rows is not None and r.rows != expected_rows:
        r.problems.append(f"{r.rows} rows, expected {expected_rows}")
    if embedder is None or r.rows == 0:
        return r
    if embedder.dim != r.dim:
        r.problems.append(f"embedder {embedder.name} makes {embedder.dim}-dim vectors, collection holds {r.dim}-dim")
        return r
    if r.meta.get("embedder") and r.meta["embedder"] != embedder.name:
        r.problems.append(f"collection was embedded with {r.meta['embedder']}, settings say {embedder.name}")
    ids = [row["pmid"] for row in client.query(collection, filter="pmid >= 0", output_fields=["pmid"], limit=2000)]
    picked = random.Random(seed).sample(ids, min(sample, len(ids)))
    rows = client.get(collection, ids=picked, output_fields=["pmid", "title", "abstract", ps.VECTOR_FIELD])
    r.sampled = len(rows)
    if len(rows) != len(picked):
        r.problems.append(f"get() returned {len(rows)} of {len(picked)} sampled PMIDs")
    import numpy as np

    texts = [f"{row['title']}\n{row['abstract']}".strip() for row in rows]
    fresh = embedder.embed_documents(texts)
    for row, vec in zip(rows, fresh, strict=True):
        stored = np.asarray(row[ps.VECTOR_FIELD], dtype=np.float32)
        cos = float(stored @ vec / (np.linalg.norm(stored) * np.linalg.norm(vec) + 1e-9))
        hits = client.search(collection, data=[stored.tolist()], limit=3, output_fields=["pmid"],
                             search_params=ps.search_params("HNSW", 64, 3), anns_field=ps.VECTOR_FIELD)[0]
        found = [h["id"] if "id" in h else h["entity"]["pmid"] for h in hits]
        if cos < 0.98:
            r.problems.append(f"PMID {row['pmid']}: stored vector differs from a fresh embedding (cosine {cos:.3f})")
        elif row["pmid"] not in found:
            r.problems.append(f"PMID {row['pmid']}: searching with its own vector does not return it")
        else:
            r.round_trips_ok += 1
    return r
