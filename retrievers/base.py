"""The one interface every source implements.

A retriever turns a (rewritten) query into `Evidence`. When it cannot answer it raises
`ToolError` (or `SourceUnavailable` / `NotRecorded`), never returns invented records:
the agent writes the error into the trace and carries on.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from biorag.models import Evidence, SearchFilters

if TYPE_CHECKING:
    from biorag.settings import Settings


class Retriever(ABC):
    #: switch name, e.g. "gene"; equals the key in `settings.sources`
    name: str = ""
    #: what the selection prompt shows (from biorag.prompts.MANUALS)
    manual: str = ""
    #: one line telling the rewrite step what input this source needs
    query_format: str = "a short search query"
    #: whether the source honours SearchFilters.mesh (only the PubMed index does)
    supports_mesh: bool = False

    @classmethod
    @abstractmethod
    def from_settings(cls, settings: Settings) -> Retriever:
        """Build from the effective settings (URIs, keys, replay store, ...)."""

    @abstractmethod
    def search(self, query: str, k: int, filters: SearchFilters | None = None) -> list[Evidence]:
        """Return at most k evidence records, best first."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release files/connections. Default: nothing to release."""
