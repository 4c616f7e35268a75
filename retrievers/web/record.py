"""The `web` source's record as a type: one web search result, from any of its backends.

Written into `Evidence.metadata` and read back (`WebRecord.of`) as every source record is
(retrievers/common/source_record.py). Every key is always written, in the order the result dicts
always had; ``authors`` and ``doi`` stay empty where the backend gives none (DuckDuckGo,
Wikipedia).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from retrievers.common.source_record import SourceRecord


class WebRecord(SourceRecord):
    """A result: where it is, the snippet the engine gave, and its date and authors."""

    SOURCE: ClassVar[str] = "web"
    #: the backend that found it: "ddgs", "wikipedia", "arxiv", "crossref"
    engine: str
    url: str
    #: plain text, HTML stripped
    snippet: str = ""
    #: ISO date ("2024-01-02", "2020-05") when the engine gives one
    date: str | None = None
    #: arXiv's and Crossref's
    authors: list[str] = []
    doi: str | None = None
    #: always: web text is data, never instructions (prompts quote it as such)
    untrusted: Literal[True] = True
