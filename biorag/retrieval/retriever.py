"""The one interface every source implements.

A retriever turns a search request (biorag.understanding.search_request.SearchRequest: the query's text,
`k`, filters, the asked field and the typed entities) into `Evidence`. When it cannot answer it raises
`ToolError` (or `SourceUnavailable` / `NotRecorded`), never returns invented records:
the agent writes the error into the trace and carries on.

A retriever also describes itself (the contract of `biorag.contracts.sources`): which entity kinds
its query accepts (`accepts`), which answer fields it serves (`answers`), and how to read
one of those fields from its own evidence (`read`). The planner, question understanding and
grounding loop over these declarations; none of them names a source.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, EntityKind, Reading
from biorag.understanding.search_request import SearchRequest

if TYPE_CHECKING:
    from biorag.settings import Settings


class Retriever(ABC):
    #: switch name, e.g. "gene"; equals the key in `settings.sources`
    name: str = ""
    #: what the selection prompt shows (from biorag.loop.prompts.MANUALS)
    manual: str = ""
    #: one line telling the rewrite step what input this source needs
    query_format: str = "a short search query"
    #: whether the source honours the request's MeSH filter (only the PubMed index does)
    supports_mesh: bool = False
    #: entity kinds a query to this source can be (biorag.contracts.sources.EntityKind)
    accepts: tuple[EntityKind, ...] = ()
    #: the answer fields this source serves (read back by `read`)
    answers: tuple[AnswerField, ...] = ()

    @classmethod
    def query_schema(cls, settings: Settings) -> dict[str, Any]:
        """JSON Schema keywords that narrow the user-text rule (`biorag.understanding.user_text`) to what
        this source takes as a query, where a schema can say it (a sequence alphabet, a
        number of names); the API states them and checks them before searching. Each
        `pattern` given must also rule out blank text."""
        return {}

    @classmethod
    @abstractmethod
    def from_settings(cls, settings: Settings) -> Retriever:
        """Build from the effective settings (URIs, keys, replay store, ...)."""

    @abstractmethod
    def search(self, request: SearchRequest) -> list[Evidence]:
        """Return at most `request.k` evidence records, best first. Read the request's typed
        entities and asked field where given; its text only where they are not."""

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        """Field `field` (one of `answers`) read from `evidence` (this source's records only),
        for the entities named `about` (the question's, or a previous hop's values); None
        when the records do not hold it. Default: the source has no readable fields."""
        return None

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release files/connections. Default: nothing to release."""
