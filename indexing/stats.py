"""`biorag index stats`: what the index holds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag import pubmed_schema as ps
from biorag.errors import SourceUnavailable

if TYPE_CHECKING:
    from biorag.settings import Settings


def open_existing(settings: Settings):
    token = settings.index.token.get_secret_value() if settings.index.token else None
    try:
        return ps.connect(settings.milvus_uri, token, create=False)
    except FileNotFoundError:
        raise SourceUnavailable(
            "pubmed", f"no index at {settings.milvus_uri}: build one with `biorag index build --input FILES` (or --sample)"
        ) from None
    except Exception as e:  # noqa: BLE001
        raise SourceUnavailable("pubmed", f"cannot open {settings.milvus_uri}: {e}") from None


def dir_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def index_stats(settings: Settings, alias: str | None = None) -> dict[str, Any]:
    alias = alias or settings.index.collection
    client = open_existing(settings)
    try:
        target = ps.resolve_collection(client, alias)
        info: dict[str, Any] = {"uri": settings.milvus_uri, "alias": alias, "collection": target}
        if target is None:
            raise SourceUnavailable("pubmed", f"no collection or alias '{alias}' at {settings.milvus_uri}")
        client.load_collection(target)
        meta = ps.read_meta(client.describe_collection(target))
        info.update(
            rows=ps.row_count(client, target),
            embedder=meta.get("embedder"),
            query_embedder=meta.get("query_embedder"),
            dim=ps.vector_dim(client, target),
            index_type=meta.get("index_type"),
            built=meta.get("created"),
            other_collections=[c for c in client.list_collections() if c != target],
        )
        if ps.backend_of(settings.milvus_uri) == "lite":
            info["size_on_disk_mb"] = round(dir_size(Path(settings.milvus_uri)) / 1e6, 2)
        return info
    finally:
        client.close()
