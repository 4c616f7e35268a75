"""What every source's typed record shares: how it is written into `Evidence.metadata` and
read back.

A source writes its record with `as_metadata()`: the same keys, in the same order, as the
dict it wrote before records were typed, so the JSON on the wire (/v1/answer, the stream,
`--json`, the search API, the OpenAPI document) is unchanged. A key only one backend writes
(`OPTIONAL`) is written only when the record was given it, and a nested record keeps only
the keys it was given (a Reactome pathway has no evidence codes, and no key for them).
Readers take the record back with `<Record>.of(evidence)` (None for another source's or
another kind's record), never by reading dictionary keys by name.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from biorag.contracts.models import Evidence

R = TypeVar("R", bound="SourceRecord")


class SourceRecord(BaseModel):
    """A source's record (subclassed per source and kind of record)."""

    model_config = ConfigDict(frozen=True)
    #: the source whose evidence carries this record
    SOURCE: ClassVar[str]
    #: the ``kind`` key that tells this kind of record from the source's others; None: one kind
    KIND: ClassVar[str | None] = None
    #: keys written only when the record was given them (one backend's)
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def of(cls: type[R], evidence: Evidence) -> R | None:
        """The record an evidence item carries; None when it is another kind of record."""
        if evidence.source != cls.SOURCE or (cls.KIND is not None and evidence.metadata.get("kind") != cls.KIND):
            return None
        try:
            return cls.model_validate(evidence.metadata)
        except ValidationError:  # a record written by another version: not one to read
            return None

    @classmethod
    def all_of(cls: type[R], evidence: list[Evidence]) -> list[tuple[Evidence, R]]:
        """The evidence items that are records of this kind, each with its record, in order."""
        return [(e, r) for e in evidence if (r := cls.of(e)) is not None]

    def as_metadata(self) -> dict[str, Any]:
        """The metadata dict (see the module docstring)."""
        full = self.model_dump(mode="json")
        given = self.model_dump(mode="json", exclude_unset=True)
        return {k: given.get(k, v) for k, v in full.items() if k in given or k not in self.OPTIONAL}

    def with_fields(self: R, **changes: Any) -> R:
        """A copy with `changes` (validated), keeping which keys the record was given."""
        return type(self).model_validate({**self.as_metadata(), **changes})
