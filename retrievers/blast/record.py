"""The `blast` source's record as a type: one database hit of a BLAST search, its best HSP
and what its description says (organism, chromosome, assembly).

Built from a parsed report hit (retrievers/blast/retriever.py's parsers give plain dicts, one per hit)
and the search's RID; written into `Evidence.metadata` and read back (`BlastHitRecord.of`)
as every source record is (retrievers/common/source_record.py). Every key is always written (None
when the report does not say), in the order the hit dicts always had.
"""

from __future__ import annotations

from typing import ClassVar

from retrievers.common.source_record import SourceRecord


class BlastHitRecord(SourceRecord):
    """One hit: the subject, where the query aligned on it and how well."""

    SOURCE: ClassVar[str] = "blast"
    #: the subject's accession.version ("CP068263.2")
    accession: str = ""
    #: the subject's description (its title)
    description: str = ""
    #: binomial from the description ("Homo sapiens")
    organism: str | None = None
    #: the chromosome the description names ("15")
    chromosome: str | None = None
    #: the subject is a whole chromosome of an assembly: its coordinates are chromosome coordinates
    chromosome_record: bool = False
    #: the assembly the description names ("GRCh38.p14", "T2T-CHM13", ...)
    assembly: str | None = None
    #: percent identity
    identity: float | None = None
    evalue: float | None = None
    bit_score: float | None = None
    align_length: int | None = None
    query_start: int | None = None
    query_end: int | None = None
    subject_start: int | None = None
    subject_end: int | None = None
    #: "Plus/Plus", "Plus/Minus"
    strand: str | None = None
    #: the BLAST search's request id
    rid: str | None = None

    @property
    def bits(self) -> float:
        """The bit score, 0 when the report gave none."""
        return self.bit_score or 0.0

    @property
    def located(self) -> bool:
        """A chromosome record of a named assembly, with the aligned subject coordinates."""
        return bool(self.chromosome_record and self.assembly and self.chromosome
                    and self.subject_start is not None and self.subject_end is not None)
