"""The `pubmed` source's record as a type: one abstract of the local index, its MeSH
descriptors and how it stands to the search's MeSH filter.

Written into `Evidence.metadata` and read back (`PubMedRecord.of`) as every source record is
(retrievers/common/source_record.py). ``similarity`` (the cosine before a MeSH boost re-ranked the
hit) is written only by a boosted search (`OPTIONAL`); every other key always, in the order
the metadata dicts always had.
"""

from __future__ import annotations

from typing import ClassVar

from retrievers.common.source_record import SourceRecord


class PubMedRecord(SourceRecord):
    """An abstract's citation data and MeSH descriptors, and its place in a filtered search."""

    SOURCE: ClassVar[str] = "pubmed"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"similarity"})
    pmid: str
    year: int | None = None
    journal: str = ""
    #: descriptor names, and their UIs in the same order
    mesh: list[str] = []
    mesh_ui: list[str] = []
    #: the UIs of the major-topic descriptors
    mesh_major: list[str] = []
    #: the descriptor UIs the search asked for (sorted; empty: no MeSH condition)
    mesh_filter: list[str] = []
    #: the record carries one of them (None: none was asked)
    mesh_match: bool | None = None
    #: a fill-in hit from the unfiltered search, outside an active MeSH filter
    widened: bool = False
    #: a boosted search's: the cosine before the boost
    similarity: float | None = None
