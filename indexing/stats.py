"""`biorag index stats`: what the index holds."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag import pubmed_schema as ps
from biorag.vector_store import backend_of, open_index
from indexing.leftovers import REMOVABLE, classify

if TYPE_CHECKING:
    from biorag.settings import Settings


def dir_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def index_stats(settings: Settings, alias: str | None = None) -> dict[str, Any]:
    alias = alias or settings.index.collection
    client = open_index(settings)
    try:
        target = ps.require_collection(client, alias, settings.milvus_uri)
        info: dict[str, Any] = {"uri": settings.milvus_uri, "alias": alias, "collection": target}
        client.load_collection(target)
        meta = ps.read_meta(client.describe_collection(target))
        info.update(
            rows=ps.row_count(client, target),
            embedder=meta.get("embedder"),
            query_embedder=meta.get("query_embedder"),
            dim=ps.vector_dim(client, target),
            index_type=meta.get("index_type"),
            built=meta.get("created"),
        )
        # the other collections: left by replaced or failed builds (`biorag index gc` removes
        # those), a running build, or not ours
        others = [c for c in classify(client, settings, alias) if c.name != target]
        info["collections"] = [asdict(c) for c in others]
        info["removable_by_gc"] = [c.name for c in others if c.status in REMOVABLE]
        if backend_of(settings.milvus_uri) == "lite":
            info["size_on_disk_mb"] = round(dir_size(Path(settings.milvus_uri)) / 1e6, 2)
        return info
    finally:
        client.close()
