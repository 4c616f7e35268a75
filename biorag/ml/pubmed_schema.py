"""The one Milvus collection layout for the PubMed index, shared by the loader (writes)
and the PubMed retriever (reads): schema, index parameters, search parameters, and the
filter-expression builder.

Fields: `pmid` (INT64 primary key; upserts by PMID are idempotent), `title`, `abstract`,
`journal`, `year` (0 = unknown), MeSH as ARRAY<VARCHAR> (`mesh_ui`, `mesh_name`,
`mesh_major` = UIs of major-topic headings), `mesh_key` (the same UIs as one
`|D000544|D003704|` string, see below), `pub_types`, and `embedding` (FLOAT_VECTOR, cosine).
The embedder's name and dimension are recorded as JSON in a collection property
(`biorag.meta`, see `read_meta`), so the retriever and `index verify` can refuse a mismatched query encoder.

MeSH filter design (performance target: filtered top-k p95 <= 2x unfiltered):
- Milvus Lite (milvus-lite 3.2.x, a local file) evaluates `array_contains*` on ARRAY fields
  row by row in Python (~4-6 s per query at 100k rows) and cannot put a scalar index on
  ARRAY fields. It evaluates `like` on a VARCHAR column vectorised (~54 ms at 100k vs ~45 ms
  unfiltered). So on Lite the filter is `mesh_key like "%|D000544|%"` (one `like` per
  requested descriptor, OR-ed): the `|` delimiters make the match exact (D000544 never
  matches D0005441), so the result set equals `array_contains_any(mesh_ui, [...])`.
- On a Milvus server (`index.uri` = http(s)://...) the same logical filter is sent as
  `array_contains_any(mesh_ui, [...])`, served by an INVERTED index on `mesh_ui`
  (`index_params`), which is the native, bitmap-backed way: filtering cost is then
  proportional to the matched posting lists, not the collection size.
- In both cases the filter is pushed into the vector search (pre-filtering), so a rare
  descriptor still returns its nearest matching records, never an over-fetched and
  post-filtered subset that could come back short.
- Recall under a filter: HNSW's graph walk starves when few rows pass the filter, so
  filtered searches use a wider beam (FILTERED_EF_FACTOR), and a filter that matches few
  rows is scored exactly instead (`retrievers.pubmed.retriever`). Which filters are "few rows" is
  known without asking the store: the build keeps per-descriptor row counts in a
  collection property (MESH_COUNTS_PROPERTY, maintained by `indexing.mesh_counts`), and
  `index.exact_filter_rows` is the threshold. Figures: benchmarks/mesh_filter_latency.py.
Descriptors are resolved against the bundled MeSH vocabulary first (`biorag.knowledge.mesh`); only
vocabulary UIs (which match `^D\\d+$`) are ever written into an expression, so strings like
`"] or pmid > 0 or mesh in ["` are rejected as unknown terms, never pasted.

Vector index: `index.index_type` with BUILD_PARAMS (overridden by `index.index_params`).
HNSW (M=16, efConstruction=200; search ef from settings) by default on both backends;
Lite's AUTOINDEX is also HNSW (faiss), and IVF_PQ breaks loading on Lite. The paper preset
(a Milvus server at PubMed scale) uses IVF_SQ8 with memory-mapped text and raw vectors
(`mmap_raw`): benchmarks/results/2026-11-26 has the figures. FLAT is available for exact
search on small collections.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError, NotBuilt
from biorag.knowledge.mesh import UI_RE, Descriptor, vocabulary
from biorag.ml.vector_store import BUILD_HINT

if TYPE_CHECKING:
    from biorag.contracts.models import SearchFilters

SCHEMA_VERSION = "biorag.pubmed/1"
VECTOR_FIELD = "embedding"
MAX_TITLE = 2048
MAX_ABSTRACT = 16000  # characters; VARCHAR limits are in bytes, texts are cut to fit
MAX_MESH = 96
OUTPUT_FIELDS = ["pmid", "title", "abstract", "journal", "year", "mesh_ui", "mesh_name", "mesh_major"]
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,254}$")


def check_collection_name(name: str) -> str:
    if not _NAME_RE.match(name or ""):
        raise InputError(
            f"invalid collection name {name!r}: use letters, digits and underscores, starting with a letter"
        )
    return name


#: the fields only read back for hits (never filtered on): memory-mapped with `mmap_raw`,
#: with the raw vectors (the vector index itself stays in memory)
TEXT_FIELDS = ("title", "abstract", "journal", "mesh_name")


def build_schema(dim: int, description: str = "", mmap_raw: bool = False):
    """The collection's fields. mmap_raw: the text fields and the raw float32 vectors are
    memory-mapped by the server (Milvus 2.4+ `mmap.enabled`), so a loaded collection keeps
    them in the page cache, not its resident memory: on 2.3.5 they were most of a row's
    bytes next to an IVF_SQ8 index (benchmarks/results/2026-11-26)."""
    from pymilvus import DataType, MilvusClient

    mm = {"mmap_enabled": True} if mmap_raw else {}
    s = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False, description=description)
    s.add_field("pmid", DataType.INT64, is_primary=True)
    s.add_field("title", DataType.VARCHAR, max_length=MAX_TITLE * 4, **mm)
    s.add_field("abstract", DataType.VARCHAR, max_length=65535, **mm)
    s.add_field("journal", DataType.VARCHAR, max_length=1024, **mm)
    s.add_field("year", DataType.INT32)
    s.add_field("mesh_ui", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=MAX_MESH, max_length=16)
    s.add_field("mesh_name", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=MAX_MESH, max_length=256,
                **mm)
    s.add_field("mesh_major", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=MAX_MESH, max_length=16)
    s.add_field("mesh_key", DataType.VARCHAR, max_length=MAX_MESH * 12 + 2)
    s.add_field("pub_types", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=32, max_length=128)
    s.add_field(VECTOR_FIELD, DataType.FLOAT_VECTOR, dim=dim, **mm)
    return s


#: build parameters per vector index type; `index.index_params` overrides them
#: (benchmarks/index_scale.py measured these at 1M rows; figures in benchmarks/results/2026-11-26)
BUILD_PARAMS: dict[str, dict[str, int]] = {
    "HNSW": {"M": 16, "efConstruction": 200},
    "IVF_FLAT": {"nlist": 1024},
    "IVF_SQ8": {"nlist": 1024},
    "IVF_PQ": {"nlist": 1024, "m": 48, "nbits": 8},
}


def index_params(client, backend: str, index_type: str = "HNSW", overrides: dict[str, int] | None = None):
    p = client.prepare_index_params()
    params: dict[str, Any] = {**BUILD_PARAMS.get(index_type, {}), **(overrides or {})}
    p.add_index(field_name=VECTOR_FIELD, index_type=index_type, metric_type="COSINE", params=params)
    if backend == "server":
        p.add_index(field_name="mesh_ui", index_type="INVERTED")
        p.add_index(field_name="year", index_type="STL_SORT")
    return p


# HNSW with a selective pre-filter needs a wider beam to keep recall. Measured on Lite
# (benchmarks/mesh_filter_latency.py, 200 queries, top-4): x16 against x4 lifts filtered
# recall@4 0.72 -> 0.90 at 100k rows (p95 ratio to unfiltered 1.52 -> 1.58) and 0.85 -> 0.98
# at 1M rows (ratio 1.35 -> 1.49), most of it on descriptors carried by under 1% of rows.
FILTERED_EF_FACTOR = 16


def search_params(index_type: str, ef: int, k: int, filtered: bool = False, nprobe: int = 32) -> dict[str, Any]:
    """`ef`: the HNSW beam (DISKANN's search list); `nprobe`: IVF lists probed."""
    if filtered:
        ef = ef * FILTERED_EF_FACTOR
    params: dict[str, Any] = {}
    if index_type in ("HNSW", "AUTOINDEX"):
        params = {"ef": max(ef, k)}
    elif index_type == "DISKANN":
        params = {"search_list": max(ef, k)}
    elif index_type.startswith("IVF"):
        params = {"nprobe": nprobe}
    return {"metric_type": "COSINE", "params": params}


def filtered_nprobe(nprobe: int, probe_rows: int, nlist: int, matching_rows: int | None) -> int:
    """IVF lists a MeSH-filtered search probes (`index.filtered_probe_rows`): enough to hold
    about `probe_rows` matching rows (matching x lists / nlist, the filter's rows spread evenly
    over the lists), at least `nprobe`, at most `nlist`; `nprobe` when the rule is off
    (probe_rows 0) or the match count or nlist is unknown."""
    if not (probe_rows and matching_rows and nlist):
        return nprobe
    return min(nlist, max(nprobe, math.ceil(probe_rows * nlist / matching_rows)))


def make_meta(embedder: str, query_embedder: str | None, dim: int, index_type: str,
              embedder_id: str | None = None, index_overrides: dict[str, int] | None = None) -> str:
    return json.dumps(
        {
            "schema": SCHEMA_VERSION,
            "embedder": embedder,
            "embedder_id": embedder_id or embedder,
            "query_embedder": query_embedder,
            "dim": dim,
            "index_type": index_type,
            # recorded because Milvus Lite's describe_index omits them
            "index_params": {**BUILD_PARAMS.get(index_type, {}), **(index_overrides or {})},
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        }
    )


META_PROPERTY = "biorag.meta"
#: {"rows": N, "counts": {descriptor UI: rows carrying it}} as JSON; absent on indexes
#: built before the counts were kept (the retriever then never takes the exact path)
MESH_COUNTS_PROPERTY = "biorag.mesh_counts"


#: Milvus Lite only: {descriptor UI: [PMIDs]} as JSON for descriptors carried by at most
#: POSTINGS_MAX_ROWS rows. Lite evaluates a scalar query row by row in Python (~230-340 ms at
#: 100k rows whatever the filter), while a primary-key `get` of a few hundred rows takes a
#: few ms, so the exact path reads the matching rows by PMID. A server needs none: its
#: INVERTED index on `mesh_ui` serves the query by filter.
MESH_POSTINGS_PROPERTY = "biorag.mesh_postings"
POSTINGS_MAX_ROWS = 1024


def read_mesh_postings(described: dict[str, Any]) -> dict[str, list[int]]:
    """The PMIDs of rows carrying each rare descriptor (empty when not kept)."""
    raw = (described.get("properties") or {}).get(MESH_POSTINGS_PROPERTY)
    try:
        data = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return {}
    return {str(k): [int(x) for x in v] for k, v in data.items()} if isinstance(data, dict) else {}


def mesh_postings_property(postings: dict[str, Any]) -> dict[str, str]:
    kept = {u: sorted(int(x) for x in ids) for u, ids in sorted(postings.items()) if ids}
    return {MESH_POSTINGS_PROPERTY: json.dumps(kept, separators=(",", ":"))}


def read_mesh_counts(described: dict[str, Any]) -> dict[str, int] | None:
    """Per-descriptor row counts from a `describe_collection` result, or None if absent."""
    raw = (described.get("properties") or {}).get(MESH_COUNTS_PROPERTY)
    try:
        data = json.loads(raw) if raw else None
    except json.JSONDecodeError:
        return None
    counts = data.get("counts") if isinstance(data, dict) else None
    return {str(k): int(v) for k, v in counts.items()} if isinstance(counts, dict) else None


def mesh_counts_property(counts: dict[str, int], rows: int) -> dict[str, str]:
    """The collection property that stores the counts (zero counts are left out)."""
    kept = {u: int(n) for u, n in sorted(counts.items()) if n > 0}
    return {MESH_COUNTS_PROPERTY: json.dumps({"rows": int(rows), "counts": kept}, separators=(",", ":"))}


def read_meta(described: dict[str, Any]) -> dict[str, Any]:
    """The build metadata from a `describe_collection` result (a collection property;
    Milvus Lite does not keep collection descriptions)."""
    raw = (described.get("properties") or {}).get(META_PROPERTY) or described.get("description")
    try:
        meta = json.loads(raw or "")
    except json.JSONDecodeError:
        return {}
    return meta if isinstance(meta, dict) and meta.get("schema") == SCHEMA_VERSION else {}


def mesh_key(uis: list[str]) -> str:
    return "|" + "|".join(uis) + "|" if uis else ""


def record_mesh_uis(rec) -> list[str]:
    """The descriptor UIs a record's row carries (deduplicated, valid, capped)."""
    return [u for u in dict.fromkeys(rec.mesh_uis) if UI_RE.match(u)][:MAX_MESH]


def row_from_record(rec, vector) -> dict[str, Any]:
    """A loader row. `rec` is an indexing PubmedRecord (duck-typed: biorag never imports indexing)."""
    uis = record_mesh_uis(rec)
    names = [n[:256] for n in dict.fromkeys(rec.mesh_names)][:MAX_MESH]
    major = [u for u in dict.fromkeys(rec.major_mesh_uis) if UI_RE.match(u)][:MAX_MESH]
    return {
        "pmid": int(rec.pmid),
        "title": _cut(rec.title, MAX_TITLE),
        "abstract": _cut(rec.abstract, MAX_ABSTRACT),
        "journal": _cut(rec.journal, 250),
        "year": int(rec.year or 0),
        "mesh_ui": uis,
        "mesh_name": names,
        "mesh_major": major,
        "mesh_key": mesh_key(uis),
        "pub_types": [p[:128] for p in rec.publication_types][:32],
        VECTOR_FIELD: [float(x) for x in vector],
    }


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# ---- filters ------------------------------------------------------------------------------


def resolve_mesh(terms: list[str]) -> list[Descriptor]:
    """Validate requested MeSH terms (names or UIs) against the vocabulary; InputError names
    the first bad one."""
    return vocabulary().resolve_all(list(terms))


def mesh_expression(descriptors: list[Descriptor], backend: str) -> str:
    uis = []
    for d in descriptors:
        if not isinstance(d, Descriptor) or not UI_RE.match(d.ui) or vocabulary().by_ui.get(d.ui) != d:
            raise InputError(f"refusing to filter on {d!r}: not a vocabulary descriptor")
        uis.append(d.ui)
    if not uis:
        return ""
    if backend == "server":
        return "array_contains_any(mesh_ui, [" + ", ".join(f'"{u}"' for u in uis) + "])"
    return "(" + " or ".join(f'mesh_key like "%|{u}|%"' for u in uis) + ")"


def build_filter(
    filters: SearchFilters | None, backend: str, descriptors: list[Descriptor] | None = None
) -> str:
    """The Milvus boolean expression for MeSH (any of) and year bounds; '' for none."""
    if filters is None:
        return ""
    parts = []
    if descriptors is None:
        descriptors = resolve_mesh(filters.mesh) if filters.mesh else []
    if descriptors:
        parts.append(mesh_expression(descriptors, backend))
    for bound, op in ((filters.year_from, ">="), (filters.year_to, "<=")):
        if bound is not None:
            if not isinstance(bound, int) or isinstance(bound, bool) or not 1000 <= bound <= 3000:
                raise InputError(f"invalid year bound {bound!r}: give a four-digit year")
            parts.append(f"year {op} {int(bound)}")
    return " and ".join(parts)


# ---- collections and aliases (shared by loader, retriever, verify, stats; the client comes
# from biorag.ml.vector_store.open_store) ----------------------------------------------------


def resolve_collection(client, name: str) -> str | None:
    """The physical collection behind alias-or-collection `name` (None if neither exists)."""
    target = alias_target(client, name)
    if target:
        return target
    return name if client.has_collection(name) else None


def require_collection(client, name: str, uri: str, source: str = "pubmed") -> str:
    """`resolve_collection`, or NotBuilt naming the store and how to build it."""
    target = resolve_collection(client, name)
    if target is None:
        raise NotBuilt(source, f"no collection or alias '{name}' at {uri}; {BUILD_HINT}")
    return target


def alias_target(client, alias: str) -> str | None:
    """The collection `alias` points to, or None (checked via list_aliases first, since
    describe_alias on a missing alias logs an error in pymilvus)."""
    listed = client.list_aliases()
    names = listed.get("aliases", []) if isinstance(listed, dict) else list(listed or [])
    if alias not in names:
        return None
    info = client.describe_alias(alias=alias)
    return info.get("collection_name") if isinstance(info, dict) else None


def vector_dim(client, collection: str) -> int | None:
    desc = client.describe_collection(collection)
    for f in desc.get("fields", []):
        if f.get("name") == VECTOR_FIELD:
            params = f.get("params") or {}
            return int(params.get("dim")) if params.get("dim") is not None else None
    return None


def row_count(client, collection: str) -> int:
    res = client.query(collection, filter="", output_fields=["count(*)"])
    return int(res[0]["count(*)"]) if res else 0
