"""Writes to the PubMed collection: create, idempotent upserts keyed by PMID, deletes,
alias switches. The layout itself lives in `biorag.ml.pubmed_schema`."""

from __future__ import annotations

import contextlib
import logging

from biorag.contracts.errors import ToolError
from biorag.ml import pubmed_schema as ps


class MilvusLoader:
    def __init__(self, client, collection: str, backend: str):
        self.client = client
        self.collection = ps.check_collection_name(collection)
        self.backend = backend

    def exists(self) -> bool:
        return self.client.has_collection(self.collection)

    def create(self, dim: int, meta: str, index_type: str = "HNSW", params: dict[str, int] | None = None,
               mmap_raw: bool = False) -> None:
        """mmap_raw: memory-map the text and raw vectors (Milvus server 2.4+; Lite keeps its own layout)."""
        schema = ps.build_schema(dim, mmap_raw=mmap_raw and self.backend == "server")
        # Milvus Lite lacks AllocTimestamp, which pymilvus calls while waiting for the index
        # and logs as an ERROR with a traceback although the index is built: silence it
        # (Lite's in-process gRPC server logs it under grpc._server, the client under pymilvus).
        with _quiet("pymilvus", "grpc._server"):
            try:
                self.client.create_collection(
                    collection_name=self.collection,
                    schema=schema,
                    index_params=ps.index_params(self.client, self.backend, index_type, params),
                )
            except Exception as e:  # noqa: BLE001 - only the one known refusal is tolerated
                if self.backend != "server" or "not supported" not in str(e) or not self.exists():
                    raise
                # Milvus before 2.4 cannot index ARRAY fields (the MeSH scalar index): the
                # vector index, created first, stands; MeSH filters then scan
                logging.getLogger(__name__).warning("%s: %s; MeSH filters run without a scalar index",
                                                    self.collection, str(e).splitlines()[0][:200])
                self.client.load_collection(self.collection)
        self.client.alter_collection_properties(self.collection, properties={ps.META_PROPERTY: meta})

    def upsert(self, records, vectors) -> int:
        """Upsert rows; within one call the last version of a PMID wins."""
        rows: dict[int, dict] = {}
        for rec, vec in zip(records, vectors, strict=True):
            rows[int(rec.pmid)] = ps.row_from_record(rec, vec)
        if not rows:
            return 0
        try:
            self.client.upsert(collection_name=self.collection, data=list(rows.values()))
        except Exception as e:  # noqa: BLE001 - surface as a one-line error
            raise ToolError("pubmed-index", f"upsert into {self.collection} failed: {e}") from e
        return len(rows)

    def delete(self, pmids: list[int]) -> None:
        if pmids:
            ids = ", ".join(str(int(p)) for p in pmids)
            self.client.delete(collection_name=self.collection, filter=f"pmid in [{ids}]")

    def flush(self) -> None:
        flush = getattr(self.client, "flush", None)
        if flush is not None:
            flush(self.collection)

    def count(self) -> int:
        return ps.row_count(self.client, self.collection)


def switch_alias(client, alias: str, collection: str) -> str | None:
    """Point `alias` at `collection`; returns the collection it pointed to before (or None)."""
    previous = ps.alias_target(client, alias)
    if previous == collection:
        return previous
    if previous:
        client.alter_alias(collection_name=collection, alias=alias)
    else:
        if client.has_collection(alias):
            raise ToolError(
                "pubmed-index",
                f"a collection named '{alias}' exists, so '{alias}' cannot become an alias; "
                f"rename it or build with --collection OTHER_NAME",
            )
        client.create_alias(collection_name=collection, alias=alias)
    return previous


REPLACED_PROPERTY = "biorag.replaced_by"


def mark_replaced(client, collection: str, by: str) -> None:
    """Record on a collection that the alias moved from it to `by`, so `biorag index stats`
    can tell a replaced build from a failed one (both are left for `biorag index gc`)."""
    try:
        client.alter_collection_properties(collection, properties={REPLACED_PROPERTY: by})
    except Exception as e:  # noqa: BLE001 - a label only; the switch itself succeeded
        logging.getLogger(__name__).warning("could not label %s as replaced: %s", collection, e)


@contextlib.contextmanager
def _quiet(*logger_names: str):
    logs = [logging.getLogger(name) for name in logger_names]
    levels = [log.level for log in logs]
    for log in logs:
        log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for log, level in zip(logs, levels, strict=True):
            log.setLevel(level)
