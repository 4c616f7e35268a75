"""Write the lexical side index of a collection (`biorag.ml.lexical_index`) from the rows the
collection holds, after the build verified them and before the alias moves.

Read back from Milvus, not from the build's inputs: the file then holds exactly the rows
the vectors hold (an update's upserts and deletions included, a resumed build's replayed
batches once), whatever path wrote them (row build, bulk import, snapshot restore). It is
written to a temporary file and renamed, and a failure stops the alias switch, so an alias
never serves vectors whose lexical file is missing or stale.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from biorag.ml import lexical_index
from indexing.collection_rows import collection_pages

if TYPE_CHECKING:
    from biorag.settings import Settings

PAGE = 1000


def _rows(client, collection: str):
    for rows in collection_pages(client, collection, ["pmid", "title", "abstract"], PAGE):
        for r in rows:
            yield r["pmid"], r.get("title") or "", r.get("abstract") or ""


def write_lexical_index(settings: Settings, client, collection: str) -> dict[str, Any]:
    """Write `<data_dir>/lexical/<collection>.fts.sqlite`; returns {documents, seconds, path}."""
    t0 = time.perf_counter()
    out = lexical_index.path_for(settings.data_dir, collection)
    n = lexical_index.build(out, _rows(client, collection), {"collection": collection})
    return {"documents": n, "seconds": round(time.perf_counter() - t0, 2), "path": str(out)}


def remove_lexical_index(settings: Settings, collection: str) -> bool:
    """Drop the lexical file of a collection that is gone (`biorag index gc`)."""
    path = lexical_index.path_for(settings.data_dir, collection)
    if path.exists():
        path.unlink()
        return True
    return False
