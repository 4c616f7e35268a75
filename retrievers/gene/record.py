"""The `gene` source's record as a type: one gene, as both backends give it.

Written into `Evidence.metadata` and read back (`GeneRecord.of`) as every source record is
(retrievers/common/source_record.py). A key only one backend writes (the local store's
``hgnc_id`` and ``previous_symbols``, E-utilities' ``partial_response``) is written only when
the record was given it, so each backend's records keep exactly the keys they had.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, field_validator

from retrievers.common.source_record import SourceRecord


class Annotation(BaseModel):
    """A GO BP process (with its evidence codes), a Reactome pathway or a disease linked to
    a gene: its id and name."""

    model_config = ConfigDict(frozen=True)
    id: str
    name: str
    #: GO evidence codes ("EXP,IDA"); processes only
    evidence: str | None = None


class GeneRecord(SourceRecord):
    """One gene: names, organism, location, type, ids, what it does and its diseases (see
    retrievers/gene/evidence.py for what each field holds)."""

    SOURCE: ClassVar[str] = "gene"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"hgnc_id", "previous_symbols", "partial_response", "designations"})
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
    #: the product's other names (NCBI gene_info's other designations, E-utilities'
    #: "otherdesignations"): what they call it states its class ("tumor supressor p53")
    designations: list[str] = []

    @field_validator("aliases", "mim", "ensembl", "previous_symbols", "designations", mode="before")
    @classmethod
    def _as_list(cls, value: Any) -> Any:
        """One name written bare, or nothing written as "" or None: a list all the same."""
        if value in (None, ""):
            return []
        return [value] if isinstance(value, str | int) else value

    @property
    def is_live(self) -> bool:
        return self.status in (None, "", "live")


