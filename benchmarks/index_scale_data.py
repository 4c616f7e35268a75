"""Data for the index scale benchmark (`benchmarks/index_scale.py`): real base vectors,
synthetic rows streamed into Parquet shards, and exact ground truth computed on the way.

Method (stated in the results README):
- **Base.** The real records of a PubMed JSONL(.gz) (title + abstract, the default
  embedder's documents); queries are real titles of random records, embedded as queries.
- **Synthetic rows.** Each row picks a real parent uniformly and is
  `normalise(parent + s_p * z)`, z ~ N(0, I): a Gaussian mixture with one component per
  real vector. The spread `s_p = h * sqrt((1/c_p^2 - 1) / d)` makes a child's expected
  cosine to its parent equal the parent's nearest-real-neighbour cosine c_p (when h = 1),
  so dense regions stay dense. h is calibrated: a synthetic set of the real set's size must
  show the real set's nearest-neighbour cosine quantiles; the chosen h and both
  distributions are recorded.
- A row inherits its parent's MeSH terms, year, journal and text (real length).
- **Truth.** Exact top-10 (cosine) per query, unfiltered and with the query's MeSH filter,
  merged shard by shard while the shards are written; memory is one shard, never the set.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

K = 10


def read_records(path: str) -> list[dict]:
    out = []
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        for line in f:
            r = json.loads(line)
            if (r.get("abstract") or "").strip():
                out.append(r)
    return out


def _mesh_uis(r: dict) -> list[str]:
    from biorag.ml import pubmed_schema as ps

    return [u for u in dict.fromkeys(m.get("ui") or "" for m in r.get("mesh") or []) if ps.UI_RE.match(u)][: ps.MAX_MESH]


def nn_cosines(v: np.ndarray, block: int = 2048) -> np.ndarray:
    """Each row's highest cosine to another row (rows are unit vectors)."""
    out = np.empty(len(v), dtype=np.float32)
    for s in range(0, len(v), block):
        sims = v[s:s + block] @ v.T
        sims[np.arange(len(sims)), np.arange(s, s + len(sims))] = -2.0
        out[s:s + block] = sims.max(axis=1)
    return out


def quantiles(x: np.ndarray) -> dict[str, float]:
    return {f"q{q}": round(float(np.percentile(x, q)), 4) for q in (5, 25, 50, 75, 95)}


def children(base: np.ndarray, spread: np.ndarray, parents: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    v = base[parents] + spread[parents, None] * rng.standard_normal((len(parents), base.shape[1]), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v.astype(np.float32)


def embed_prefix(emb, recs: list[dict], out: Path, budget_s: float, chunk: int = 250) -> np.ndarray:
    """Embed the records chunk by chunk (each chunk saved, so a rerun resumes) until all are
    done or `budget_s` seconds have passed; the embedded prefix."""
    import time

    t0, parts = time.monotonic(), []
    for i, s in enumerate(range(0, len(recs), chunk)):
        p = out / f"documents-{i:03d}.npy"
        if not p.exists():
            if time.monotonic() - t0 > budget_s:
                break
            texts = [f"{r.get('title') or ''}\n{r['abstract']}".strip() for r in recs[s:s + chunk]]
            np.save(p, emb.embed_documents(texts).astype(np.float32))
            print(f"embedded {s + len(texts)}/{len(recs)} records", flush=True)
        parts.append(np.load(p))
    return np.vstack(parts)


def make_base(records_path: str, out: Path, queries: int, seed: int, budget_s: float = 1e9) -> None:
    """Embed the real records and the query titles; calibrate the spread; write base.npz."""
    from biorag.ml import pubmed_schema as ps
    from biorag.ml.embedder import Embedder

    recs = read_records(records_path)
    n_file = len(recs)
    np.random.default_rng(seed).shuffle(recs)  # any prefix is a random sample of the records
    emb = Embedder()
    out.mkdir(parents=True, exist_ok=True)
    vecs = embed_prefix(emb, recs, out, budget_s)
    recs = recs[: len(vecs)]
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    q_rec = rng.choice(len(recs), size=queries, replace=False)
    qv = emb.embed_queries([recs[i].get("title") or recs[i]["abstract"][:200] for i in q_rec]).astype(np.float32)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    # each filtered query asks for one descriptor drawn from the real heading distribution
    vocab = ps.vocabulary()
    heads = [u for r in recs for u in _mesh_uis(r) if u in vocab.by_ui]
    q_ui = [heads[i] for i in rng.integers(0, len(heads), queries)]
    nn = nn_cosines(vecs)
    c = np.clip(nn, 0.05, 0.999)
    unit_spread = np.sqrt((1.0 / c**2 - 1.0) / vecs.shape[1]).astype(np.float32)
    calib = {}
    for h in (0.5, 0.7, 0.85, 1.0):
        syn = children(vecs, h * unit_spread, rng.integers(0, len(vecs), len(vecs)), np.random.default_rng(seed + 1))
        calib[h] = quantiles(nn_cosines(syn))
    real_q = quantiles(nn)
    h = min(calib, key=lambda k: sum(abs(calib[k][q] - real_q[q]) for q in ("q25", "q50", "q75")))
    meta = {"records": len(recs), "records_in_file": n_file, "dim": int(vecs.shape[1]), "embedder": emb.name, "queries": queries,
            "real_nn_cosine": real_q, "synthetic_nn_cosine_by_h": {str(k): v for k, v in calib.items()},
            "chosen_h": h, "seed": seed}
    np.savez(out / "base.npz", vecs=vecs, spread=(h * unit_spread).astype(np.float32), qv=qv, q_rec=q_rec)
    (out / "base.json").write_text(json.dumps({**meta, "q_ui": q_ui}, indent=1))
    _base_table(recs).to_pandas().to_parquet(out / "base_rows.parquet")


def _base_table(recs: list[dict]):
    import pyarrow as pa

    from biorag.ml import pubmed_schema as ps

    def year(r):
        try:
            return int(str(r.get("year") or 0)[:4])
        except ValueError:
            return 0

    cols = {
        "title": [ps._cut(r.get("title") or "", ps.MAX_TITLE) for r in recs],
        "abstract": [ps._cut(r["abstract"], ps.MAX_ABSTRACT) for r in recs],
        "journal": [(r.get("journal") or "")[:250] for r in recs],
        "year": pa.array([year(r) for r in recs], pa.int32()),
        "mesh_ui": [_mesh_uis(r) for r in recs],
        "mesh_name": [[(m.get("name") or "")[:256] for m in (r.get("mesh") or [])][: ps.MAX_MESH] for r in recs],
        "mesh_major": [[m["ui"] for m in (r.get("mesh") or []) if m.get("major") and ps.UI_RE.match(m.get("ui") or "")]
                       [: ps.MAX_MESH] for r in recs],
        "pub_types": [[p[:128] for p in (r.get("publication_types") or [])][:32] for r in recs],
    }
    cols["mesh_key"] = [ps.mesh_key(u) for u in cols["mesh_ui"]]
    return pa.table(cols)


class Base:
    """base.npz + base.json + base_rows.parquet, as the generator reads them."""

    def __init__(self, d: Path):
        import pyarrow.parquet as pq

        z = np.load(d / "base.npz")
        self.vecs, self.spread, self.qv = z["vecs"], z["spread"], z["qv"]
        self.meta = json.loads((d / "base.json").read_text())
        self.rows = pq.read_table(d / "base_rows.parquet")
        uis = self.rows.column("mesh_ui").to_pylist()
        # parent x query: does the parent carry the query's descriptor (the filtered truth's mask)
        self.carries = np.array([[q in set(u) for q in self.meta["q_ui"]] for u in uis], dtype=bool)


def shard_table(base: Base, start: int, parents: np.ndarray, vecs: np.ndarray, text: bool = True):
    """A shard in the collection's layout (`indexing.shards.arrow_schema`); text=False
    leaves title, abstract, journal and MeSH names empty (the text-in-RAM measurement)."""
    import pyarrow as pa

    from biorag.ml import pubmed_schema as ps
    from indexing.shards import arrow_schema

    t = base.rows.take(pa.array(parents))
    flat = pa.array(vecs.reshape(-1), pa.float32())
    offsets = pa.array(np.arange(0, vecs.size + 1, vecs.shape[1], dtype=np.int32))
    cols = {"pmid": pa.array(np.arange(start, start + len(parents), dtype=np.int64) + 1)}
    for name in ("title", "abstract", "journal", "year", "mesh_ui", "mesh_name", "mesh_major", "mesh_key", "pub_types"):
        cols[name] = t.column(name)
    if not text:
        n = len(parents)
        for name in ("title", "abstract", "journal"):
            cols[name] = pa.array([""] * n, pa.string())
        cols["mesh_name"] = pa.array([[]] * n, pa.list_(pa.string()))
    cols[ps.VECTOR_FIELD] = pa.ListArray.from_arrays(offsets, flat)
    return pa.table(cols, schema=arrow_schema())


def _topk(scores: np.ndarray, ids: np.ndarray, k: int = K) -> tuple[np.ndarray, np.ndarray]:
    """Per column of `scores` (rows x queries): the k best (scores, ids), best first."""
    k = min(k, len(scores))
    if ids.ndim == 1:
        ids = np.broadcast_to(ids[:, None], scores.shape)
    part = np.argpartition(-scores, k - 1, axis=0)[:k]
    s = np.take_along_axis(scores, part, axis=0)
    order = np.argsort(-s, axis=0)
    best = np.take_along_axis(part, order, axis=0)
    return np.take_along_axis(scores, best, axis=0), np.take_along_axis(ids, best, axis=0)


def generate_shard(base: Base, out: Path, index: int, rows: int, start: int, seed: int, text: bool = True) -> None:
    """Write shard `index` (rows start..start+rows) and its partial truth, atomically."""
    import pyarrow.parquet as pq

    rng = np.random.default_rng([seed, index])
    parents = rng.integers(0, len(base.vecs), rows)
    vecs = children(base.vecs, base.spread, parents, rng)
    tmp = out / f"shard-{index:05d}.parquet.tmp"
    pq.write_table(shard_table(base, start, parents, vecs, text), tmp, row_group_size=10_000, compression="zstd")
    ids = np.arange(start, start + rows, dtype=np.int64) + 1
    scores = vecs @ base.qv.T
    su, iu = _topk(scores, ids)
    filt = np.where(base.carries[parents], scores, -np.inf).astype(np.float32)
    sf, ifl = _topk(filt, ids)
    np.savez(out / f"shard-{index:05d}.truth.npz", su=su, iu=iu, sf=sf, ifl=ifl)
    tmp.rename(out / f"shard-{index:05d}.parquet")


def ensure_shards(base: Base, out: Path, rows: int, shard_rows: int, seed: int, log=print, text: bool = True
                  ) -> list[Path]:
    """The shards of a `rows`-row set (resumable: finished shards are kept)."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, start in enumerate(range(0, rows, shard_rows)):
        p = out / f"shard-{i:05d}.parquet"
        if not (p.exists() and (out / f"shard-{i:05d}.truth.npz").exists()):
            generate_shard(base, out, i, min(shard_rows, rows - start), start, seed, text)
            log(f"  shard {i} written ({min(shard_rows, rows - start)} rows)")
        paths.append(p)
    return paths


def merged_truth(paths: list[Path]) -> dict[str, np.ndarray]:
    """Exact top-K over all shards: ids (queries x K) unfiltered and filtered, and scores.
    Filtered ids are -1 where fewer than K rows carry the descriptor."""
    acc = None
    for p in paths:
        z = np.load(p.with_name(p.name.replace(".parquet", ".truth.npz")))
        if acc is None:
            acc = {k: z[k] for k in ("su", "iu", "sf", "ifl")}
            continue
        for s, i in (("su", "iu"), ("sf", "ifl")):
            acc[s], acc[i] = _topk(np.vstack([acc[s], z[s]]), np.vstack([acc[i], z[i]]))
    assert acc is not None
    acc["ifl"] = np.where(np.isfinite(acc["sf"]), acc["ifl"], -1)
    return {"unfiltered": acc["iu"].T, "filtered": acc["ifl"].T, "top1_cosine": acc["su"][0]}


if __name__ == "__main__":  # the base stage, run by index_scale in a child process
    import sys

    make_base(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
              float(sys.argv[5]) if len(sys.argv) > 5 else 1e9)
