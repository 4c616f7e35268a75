"""`biorag index verify` and the check a build runs before switching the alias.

Without expectations (`biorag index verify`): counts, recorded embedder and dimensions,
and round trips on a sample of stored rows (re-embed a stored record's text: it must
match its stored vector; search with that vector: the record must come back).

A build passes an `Expectation` drawn from its own ledger (`indexing.ledger`): the exact
row count a fresh collection must hold (or bounds, for an update of a live one), PMIDs it
wrote that must be readable by id, and deleted PMIDs that must be gone. The round trips
then run on the build's own PMIDs, so a lost write is found, not just a bad vector.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from biorag.ml import pubmed_schema as ps

if TYPE_CHECKING:
    from biorag.ml.embedder import Embedder


@dataclass
class Expectation:
    rows: int | None = None  # exactly this many rows (a collection the build wrote from empty)
    min_rows: int | None = None
    max_rows: int | None = None
    present: list[int] = field(default_factory=list)  # written by the build: must be readable by id
    absent: list[int] = field(default_factory=list)  # deleted by the build: must be gone


@dataclass
class VerifyReport:
    collection: str
    rows: int = 0
    expected_rows: int | None = None
    dim: int | None = None
    meta: dict = field(default_factory=dict)
    sampled: int = 0
    round_trips_ok: int = 0
    absent_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"collection": self.collection, "ok": self.ok, "rows": self.rows, "expected_rows": self.expected_rows,
                "dim": self.dim, "meta": self.meta, "sampled": self.sampled, "round_trips_ok": self.round_trips_ok,
                "absent_checked": self.absent_checked, "problems": self.problems}


def count_rows(client, collection: str) -> int:
    """count(*) with strong consistency: on a Milvus server a bounded-staleness count can
    miss rows flushed a moment ago."""
    res = client.query(collection, filter="", output_fields=["count(*)"], consistency_level="Strong")
    return int(res[0]["count(*)"]) if res else 0


def verify_collection(
    client, collection: str, embedder: Embedder | None, expected_min: int = 1,
    expect: Expectation | None = None, sample: int = 8, seed: int = 0,
) -> VerifyReport:
    r = VerifyReport(collection=collection)
    if not client.has_collection(collection):
        r.problems.append(f"collection {collection} does not exist")
        return r
    client.load_collection(collection)
    r.meta = ps.read_meta(client.describe_collection(collection))
    r.dim = ps.vector_dim(client, collection)
    r.rows = count_rows(client, collection)
    if not r.meta:
        r.problems.append("collection has no BioRAG metadata (embedder/dim): not built by `biorag index build`")
    elif r.meta.get("dim") != r.dim:
        r.problems.append(f"recorded dim {r.meta.get('dim')} != vector field dim {r.dim}")
    if r.rows < expected_min:
        r.problems.append(f"{r.rows} rows, expected at least {expected_min}")
    expect = expect or Expectation()
    _check_counts(r, expect)
    if expect.absent:
        still = client.get(collection, ids=expect.absent, output_fields=["pmid"])
        r.absent_checked = len(expect.absent)
        if still:
            r.problems.append(f"PMIDs deleted by this build are still there: {sorted(x['pmid'] for x in still)[:5]}")
    if embedder is None or r.rows == 0:
        return r
    if embedder.dim != r.dim:
        r.problems.append(f"embedder {embedder.name} makes {embedder.dim}-dim vectors, collection holds {r.dim}-dim")
        return r
    if r.meta.get("embedder") and r.meta["embedder"] != embedder.name:
        r.problems.append(f"collection was embedded with {r.meta['embedder']}, settings say {embedder.name}")
    if expect.present:
        picked = expect.present[:sample]
    else:
        ids = [row["pmid"] for row in client.query(collection, filter="pmid >= 0", output_fields=["pmid"], limit=2000)]
        picked = random.Random(seed).sample(ids, min(sample, len(ids)))
    _round_trips(r, client, collection, embedder, picked)
    return r


def _check_counts(r: VerifyReport, expect: Expectation) -> None:
    if expect.rows is not None:
        r.expected_rows = expect.rows
        if r.rows != expect.rows:
            r.problems.append(f"{r.rows} rows, but this build left {expect.rows} PMIDs in it")
    if expect.min_rows is not None and r.rows < expect.min_rows:
        r.problems.append(f"{r.rows} rows, expected at least {expect.min_rows} after this update")
    if expect.max_rows is not None and r.rows > expect.max_rows:
        r.problems.append(f"{r.rows} rows, expected at most {expect.max_rows} after this update")


def _round_trips(r: VerifyReport, client, collection: str, embedder: Embedder, picked: list[int]) -> None:
    """Read `picked` back by id; each stored vector must match a fresh embedding of its text
    and find its own row when searched with."""
    import numpy as np

    rows = client.get(collection, ids=picked, output_fields=["pmid", "title", "abstract", ps.VECTOR_FIELD])
    r.sampled = len(picked)
    missing = sorted(set(picked) - {int(row["pmid"]) for row in rows})
    if missing:
        r.problems.append(f"{len(missing)} of {len(picked)} sampled PMIDs cannot be read back by id: {missing[:5]}")
    if not rows:
        return
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
