"""`biorag index stats`: what the index holds."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.ml import pubmed_schema as ps
from biorag.ml.vector_store import backend_of, open_index
from indexing.leftovers import REMOVABLE, classify

if TYPE_CHECKING:
    from biorag.settings import Settings


def dir_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


_NOT_PARAMS = {"field_name", "index_name", "index_type", "metric_type", "total_rows", "indexed_rows",
               "pending_index_rows", "state", "params"}


def vector_index(client, target: str) -> dict[str, Any]:
    """The vector field's index as the store describes it: type, metric, build parameters."""
    try:
        names = client.list_indexes(target, field_name=ps.VECTOR_FIELD)
        d = client.describe_index(target, names[0]) if names else {}
    except Exception as e:  # noqa: BLE001 - stats show what they can
        return {"vector_index": f"not described: {str(e).splitlines()[0][:200]}"}
    params = dict(d.get("params") or {}) if isinstance(d.get("params"), dict) else {}
    params.update({k: v for k, v in d.items() if k not in _NOT_PARAMS})
    params.pop("metric_type", None)
    params.pop("index_type", None)
    return {"vector_index_type": d.get("index_type") or (d.get("params") or {}).get("index_type"),
            "vector_index_metric": d.get("metric_type") or (d.get("params") or {}).get("metric_type"),
            "vector_index_params": params}


def server_memory(settings: Settings, target: str) -> dict[str, Any]:
    """What the Milvus server reports of its memory: the loaded segments' size for this
    collection (query segment info) and the server process's resident memory (its Prometheus
    metrics, `index.metrics_url`, when reachable)."""
    import re
    import urllib.request
    from urllib.parse import urlparse

    from pymilvus import connections, utility

    from biorag.ml.vector_store import index_token

    out: dict[str, Any] = {}
    alias = f"biorag-stats-{id(out)}"
    try:
        connections.connect(alias=alias, uri=settings.milvus_uri, token=index_token(settings) or "")
        segs = utility.get_query_segment_info(target, using=alias)
        out["loaded_segments_mb"] = round(sum(int(s.mem_size) for s in segs) / 1e6, 1)
    except Exception as e:  # noqa: BLE001
        out["loaded_segments_mb"] = f"not reported: {str(e).splitlines()[0][:200]}"
    finally:
        connections.disconnect(alias)
    url = settings.index.metrics_url or f"http://{urlparse(settings.milvus_uri).hostname}:9091/metrics"
    try:
        with urllib.request.urlopen(url, timeout=3) as r:
            text = r.read().decode(errors="replace")
        m = re.search(r"^process_resident_memory_bytes\s+([0-9.e+]+)", text, re.M)
        out["server_rss_mb"] = round(float(m.group(1)) / 1e6, 1) if m else f"{url} has no process_resident_memory_bytes"
    except OSError as e:
        out["server_rss_mb"] = f"not reachable at {url} ({e}); set index.metrics_url"
    return out


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
        info.update(vector_index(client, target))
        if not info.get("vector_index_params") and meta.get("index_params"):
            info["vector_index_params"] = meta["index_params"]  # Lite describes no parameters: the build's
        if backend_of(settings.milvus_uri) == "lite":
            info["size_on_disk_mb"] = round(dir_size(Path(settings.milvus_uri)) / 1e6, 2)
            info["server_memory"] = "Milvus Lite runs inside this process (no server to ask)"
        else:
            info.update(server_memory(settings, target))
        return info
    finally:
        client.close()
