"""Index operations a server runs on its own store: `biorag index gc` and `rollback`.

With a Milvus Lite file the server's process owns the file, so the CLI cannot open it
while the server runs; these run the same functions (`indexing.leftovers`) inside the
server. Neither runs beside a rebuild job (the job may be about to move the alias). A
rollback makes the next search resolve the alias again; searches in flight finish on the
collection they started on.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from biorag.ml.vector_store import open_index

if TYPE_CHECKING:
    from application.engine import Engine
    from serving.metrics import Metrics

log = logging.getLogger("biorag.serving")


def run_gc(engine: Engine, keep_previous: bool) -> dict[str, Any]:
    from indexing.leftovers import collect_garbage

    s = engine.settings
    client = open_index(s, source="pubmed-index")
    try:
        report = collect_garbage(client, s, s.index.collection, keep_previous=keep_previous)
    finally:
        client.close()
    if report.removed:
        log.info("index gc for '%s' removed %s", report.alias, ", ".join(c.name for c in report.removed))
    return report.to_dict()


def run_rollback(engine: Engine, metrics: Metrics) -> dict[str, Any]:
    from indexing.leftovers import rollback

    s = engine.settings
    client = open_index(s, source="pubmed-index")
    try:
        report = rollback(client, s, s.index.collection)
    finally:
        client.close()
    engine.forget("pubmed")  # the next search resolves the alias again
    log.info("index alias '%s' rolled back: %s -> %s (%s rows)", report.alias, report.rolled_back_from,
             report.serving, report.rows)
    metrics.observe_index(report.alias, report.serving, report.rows)
    return report.to_dict()


def observe_served(engine: Engine, metrics: Metrics) -> None:
    """Fill the alias target and row count once, on the first scrape, for a server that
    has not run a job yet (jobs and rollbacks update them afterwards)."""
    if metrics.index_seen:
        return
    metrics.index_seen = True
    from biorag.ml import pubmed_schema as ps

    s = engine.settings
    try:
        client = open_index(s, source="pubmed-index")
    except Exception as e:  # noqa: BLE001 - no index yet, or a store that is down: /metrics still answers
        log.debug("index metrics unavailable: %s", e)
        return
    try:
        target = ps.alias_target(client, s.index.collection)
        if target:
            rows = int(client.get_collection_stats(target).get("row_count", 0))
            metrics.observe_index(s.index.collection, target, rows)
    except Exception as e:  # noqa: BLE001
        log.debug("index metrics unavailable: %s", e)
    finally:
        client.close()
