"""The gene-set source's records as types: one enriched term of an enrichment run, or one
library term whose genes a question asks for by the term's name.

The source writes it into `Evidence.metadata` (`as_metadata`: the same keys as before, so
the JSON on the wire, /v1/answer, the stream, `--json` and the OpenAPI document, is
unchanged) and its readers take it back typed (`EnrichedTermRecord.of`), instead of reading
dictionary keys by name.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from biorag.contracts.models import Evidence
from retrievers.common.source_record import SourceRecord


class EnrichedTermRecord(BaseModel):
    """One term of a gene set's enrichment: the term, the asked genes it holds, its
    statistics, and how the run ranked it."""

    model_config = ConfigDict(frozen=True)
    kind: Literal["enriched_term"] = "enriched_term"
    library: str
    term: str
    name: str
    #: the asked genes the term holds
    supporting_genes: list[str]
    #: how many of the asked genes were tested (those the term's library knows)
    query_size: int
    #: how many of the asked genes are known human genes (what a term must explain)
    asked: int = 0
    p_adj: float
    p: float
    significant: bool
    #: the first record: the term that names the set
    names_the_set: bool
    #: the consensus name of the set (on the first record only)
    process_name: str | None = None
    #: the GO BP term ranked first by p-value (what a question naming GO asks)
    go_first: bool = False
    #: the Reactome pathway ranked first by p-value (what a question asking for a pathway asks)
    reactome_first: bool = False
    #: why this term does not answer what the set shares ('' when it does: biorag.knowledge.set_rule)
    why_not: str = ""
    #: the asked genes as they were checked: used, renamed, unknown, ambiguous
    genes: dict[str, Any]
    hpo_notice: str | None = None

    @classmethod
    def of(cls, evidence: Evidence) -> EnrichedTermRecord | None:
        """The record an evidence item carries; None when it is another kind of record."""
        if evidence.metadata.get("kind") != "enriched_term":
            return None
        try:
            return cls.model_validate(evidence.metadata)
        except ValidationError:  # a record written by another version: not one to read
            return None

    def as_metadata(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def enriched_terms(evidence: list[Evidence]) -> list[tuple[Evidence, EnrichedTermRecord]]:
    """The evidence items that are enriched terms, each with its typed record, in order."""
    return [(e, r) for e in evidence if (r := EnrichedTermRecord.of(e)) is not None]


class TermMembersRecord(SourceRecord):
    """A library term a pathway, process or gene-group name matched, with every gene the
    library lists under it (biorag.knowledge.pathway_names)."""

    SOURCE: ClassVar[str] = "geneset"
    KIND: ClassVar[str | None] = "term_members"
    kind: Literal["term_members"] = "term_members"
    library: str
    term: str
    name: str
    #: the name as the question wrote it
    asked: str
    #: the name written is the term's whole name (not only its stem: "Wnt pathway")
    whole: bool
    #: the term ranked first for the name: the one that answers (the others are named beside it)
    answers: bool
    genes: list[str]
