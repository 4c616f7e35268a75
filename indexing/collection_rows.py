"""Every row of a Milvus collection, page by page: what the build's read-backs (MeSH
counts, gene-MeSH counts, the lexical side index) and snapshot exports scan.

pymilvus's query iterator asks the server for a consistent timestamp and, on Milvus Lite,
which has none to give, logs "failed to get mvccTs from milvus server, use client-side ts
instead" on every scan: two warnings in every `biorag index build`, and, through the
handler pymilvus binds to the stderr of its first use, a "--- Logging error ---" traceback
when that stream has since closed (a second build in one process). The client-side
timestamp it falls back to is the right one here, as each scan reads a collection this
process has finished writing, so that one message is dropped; every other pymilvus
warning still shows.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

_ITERATOR_LOG = "pymilvus.client.iterator.query_iterator"


class _NoClientTimestampWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "failed to get mvccTs" not in record.getMessage()


def _quiet_iterator_log() -> None:
    logger = logging.getLogger(_ITERATOR_LOG)
    if not any(isinstance(f, _NoClientTimestampWarning) for f in logger.filters):
        logger.addFilter(_NoClientTimestampWarning())


def collection_pages(client, collection: str, fields: Sequence[str], batch_size: int = 1000,
                     filter: str = "pmid >= 0") -> Iterator[list[dict[str, Any]]]:
    """The rows of `collection` matching `filter`, `batch_size` at a time, with only `fields`
    (never the vectors unless named); the iterator is closed however the caller stops."""
    _quiet_iterator_log()
    it = client.query_iterator(collection, batch_size=batch_size, filter=filter, output_fields=list(fields))
    try:
        while page := it.next():
            yield page
    finally:
        it.close()
