"""The `gene` source's record as a type: one gene, as both backends give it.

The source writes it into `Evidence.metadata` (`as_metadata`: the same keys, in the same
order, as before, so the JSON on the wire, /v1/answer, the stream, `--json`, the search
API and the OpenAPI document, is unchanged) and its readers take it back typed
(`GeneRecord.of`), instead of reading dictionary keys by name.

A key only one backend writes (the local store's ``hgnc_id`` and ``previous_symbols``,
E-utilities' ``partial_response``) is written only when the record was given it, so each
backend's records keep exactly the keys they had.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from biorag.models import Evidence

SOURCE = "gene"


class Annotation(BaseModel):
    """A GO BP process (with its evidence codes), a Reactome pathway or a disease linked to
    a gene: its id and name."""

    model_config = ConfigDict(frozen=True)
    id: str
    name: str
    #: GO evidence codes ("EXP,IDA"); processes only
    evidence: str | None = None


class GeneRecord(BaseModel):
    """One gene: names, organism, location, type, ids, what it does and its diseases (see
    retrievers/gene_evidence.py for what each field holds)."""

    model_config = ConfigDict(frozen=True)
    symbol: str | None = None
    name: str | None = None
    aliases: list[str] = []
    organism: str | None = None
    tax_id: int | None = None
    chromosome: str | None = None
    map_location: str | None = None
    gene_type: str | None = None
    gene_type_source: str | None = None
    summary: str | None = None
    mim: list[str] = []
    ensembl: list[str] = []
    #: how the query matched: "symbol", "alias", "previous", "ensembl", "gene_id", "search"
    matched: str | None = None
    status: str | None = "live"
    #: which backend answered: "local" or "eutils"
    backend: str | None = None
    summary_source: str | None = None
    processes: list[Annotation] = []
    pathways: list[Annotation] = []
    diseases: list[Annotation] = []
    # written by one backend only (see the module docstring)
    hgnc_id: str | None = None
    previous_symbols: list[str] = []
    partial_response: bool = False

    @field_validator("aliases", "mim", "ensembl", "previous_symbols", mode="before")
    @classmethod
    def _as_list(cls, value: Any) -> Any:
        """One name written bare, or nothing written as "" or None: a list all the same."""
        if value in (None, ""):
            return []
        return [value] if isinstance(value, str | int) else value

    @classmethod
    def of(cls, evidence: Evidence) -> GeneRecord | None:
        """The record an evidence item carries; None when it is not a gene record."""
        if evidence.source != SOURCE:
            return None
        try:
            return cls.model_validate(evidence.metadata)
        except ValidationError:  # a record written by another version: not one to read
            return None

    def as_metadata(self) -> dict[str, Any]:
        """The metadata dict: every shared key, and the one-backend keys it was given."""
        full = self.model_dump(mode="json")
        # what was given, as given (a pathway keeps having no "evidence" key)
        given = self.model_dump(mode="json", exclude_unset=True)
        return {k: given.get(k, v) for k, v in full.items() if k in given or k not in _ONE_BACKEND}

    def with_fields(self, **changes: Any) -> GeneRecord:
        """A copy with `changes` (validated), keeping which keys the record was given."""
        return type(self).model_validate({**self.as_metadata(), **changes})

    @property
    def is_live(self) -> bool:
        return self.status in (None, "", "live")


_ONE_BACKEND = frozenset({"hgnc_id", "previous_symbols", "partial_response"})


def gene_records(evidence: list[Evidence]) -> list[tuple[Evidence, GeneRecord]]:
    """The evidence items that are gene records, each with its typed record, in order."""
    return [(e, r) for e in evidence if (r := GeneRecord.of(e)) is not None]
