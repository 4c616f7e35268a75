"""The sequence-tools source: computations on a nucleotide sequence the question gives
(translation into protein, reverse complement, GC content, length), worked out here by
`biorag.knowledge.sequence_tools`, offline and at once.

The question names the sequence (entity kind ``sequence``) and asks for one of the fields
below by its cue words; the request's asked field picks the computation (all four when a
request asks none). Evidence: ``source="seqtools"``, ``id`` = ``<computation>:<digest of
the sequence>``, no URL (nothing was looked up); ``metadata`` a `SequenceResult`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from biorag.contracts.errors import QueryRejected
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.knowledge.sequence_tools import (
    NUCLEOTIDES,
    SequenceError,
    clean_sequence,
    gc_content,
    is_rna,
    reverse_complement,
    translate,
)
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.common.source_record import SourceRecord

if TYPE_CHECKING:
    from biorag.settings import Settings

Computation = Literal["translation", "reverse_complement", "gc_content", "length"]

TRANSLATION = AnswerField(
    "translation", "the protein a nucleotide sequence codes for (standard genetic code)",
    ("translate", "translated", "translating", "translation", "amino acid sequence", "amino acids",
     "protein sequence", "peptide sequence", "polypeptide", "encoded protein sequence", "amino acid"),
    ("sequence",))
REVERSE_COMPLEMENT = AnswerField(
    "reverse_complement", "the reverse complement of a nucleotide sequence",
    ("reverse complement", "reverse complementary", "reverse complemented", "revcomp",
     "complementary strand", "opposite strand", "complement"),
    ("sequence",))
GC_CONTENT = AnswerField(
    "gc_content", "the GC content of a nucleotide sequence, in percent",
    ("gc content", "gc percentage", "gc ratio", "gc fraction", "percent gc", "gc", "g c content", "g c",
     "guanine cytosine content"),
    ("sequence",))
LENGTH = AnswerField(
    "sequence_length", "the length of a nucleotide sequence, in bases",
    ("length", "how long", "how many bases", "how many nucleotides", "number of bases",
     "number of nucleotides", "how many base pairs", "how many bp"),
    ("sequence",))
FIELDS: dict[str, Computation] = {
    TRANSLATION.name: "translation", REVERSE_COMPLEMENT.name: "reverse_complement",
    GC_CONTENT.name: "gc_content", LENGTH.name: "length",
}

MANUAL = (
    "Sequence tools: computations on a DNA or RNA sequence written in the question: its "
    "translation into protein (standard genetic code, from the first ATG to the first stop "
    "codon), reverse complement, GC content and length. Offline and exact; it looks nothing "
    "up. Query: the bare sequence.")


class SequenceResult(SourceRecord):
    """One computation on one sequence: what was computed, on how many bases, the result,
    and how it was read (the frame and stop of a translation)."""

    SOURCE: ClassVar[str] = "seqtools"
    computation: Computation
    bases: int
    rna: bool
    result: str
    how: str = ""
    #: a translation's stop codon ("" when the sequence ended first; None for the others)
    stop_codon: str | None = None


def compute(sequence: str, computation: Computation) -> SequenceResult:
    """The result of `computation` on `sequence` (`SequenceError` when it is no sequence)."""
    seq = clean_sequence(sequence)
    rna = is_rna(sequence)
    note = "read as DNA from RNA (U as T); " if rna else ""
    if computation == "translation":
        t = translate(seq)
        return SequenceResult(computation=computation, bases=len(seq), rna=rna, result=t.protein,
                              how=note + t.describe(), stop_codon=t.stop_codon)
    if computation == "reverse_complement":
        rc = reverse_complement(seq)
        return SequenceResult(computation=computation, bases=len(seq), rna=rna,
                              result=rc.replace("T", "U") if rna else rc, how=note.rstrip("; "))
    if computation == "gc_content":
        gc = gc_content(seq)
        return SequenceResult(computation=computation, bases=len(seq), rna=rna, result=f"{gc:.2f}%",
                              how=f"{round(gc * len(seq) / 100)} of {len(seq)} bases are G or C")
    return SequenceResult(computation=computation, bases=len(seq), rna=rna, result=f"{len(seq)} bases")


def _evidence(rec: SequenceResult, seq: str) -> Evidence:
    digest = hashlib.sha1(seq.encode()).hexdigest()[:12]
    label = rec.computation.replace("_", " ")
    text = f"{label} of the {rec.bases}-base sequence: {rec.result}" + (f"\n{rec.how}" if rec.how else "")
    return Evidence(source="seqtools", id=f"{rec.computation}:{digest}", title=f"{label} (computed)",
                    text=text, metadata=rec.as_metadata())


class SequenceToolsRetriever(Retriever):
    name = "seqtools"
    manual = MANUAL
    query_format = "the bare DNA or RNA sequence"
    accepts = ("sequence",)
    answers = (TRANSLATION, REVERSE_COMPLEMENT, GC_CONTENT, LENGTH)

    @classmethod
    def query_schema(cls, settings: Settings) -> dict[str, Any]:
        """The bare sequence: IUPAC nucleotide codes in either case, with the spaces, line
        breaks and position numbers `clean_sequence` strips, and at least one code."""
        codes = "".join(sorted(NUCLEOTIDES))
        letters = codes + codes.lower()
        return {"pattern": f"^[{letters} \\t\\r\\n0-9]*[{letters}][{letters} \\t\\r\\n0-9]*$"}

    @classmethod
    def from_settings(cls, settings: Settings) -> SequenceToolsRetriever:
        return cls()

    def search(self, request: SearchRequest) -> list[Evidence]:
        try:
            seq = clean_sequence(request.text)
        except SequenceError as e:
            raise QueryRejected("seqtools", f"{request.text.strip()[:60]!r}: {e}; give the bare sequence") from None
        wanted = [FIELDS[request.asks]] if request.asks in FIELDS else list(FIELDS.values())
        return [_evidence(compute(seq, c), seq) for c in wanted][: request.k]

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        computation = FIELDS.get(field.name)
        for e, rec in SequenceResult.all_of(evidence):
            if rec.computation == computation:
                if computation == "translation" and not rec.result:
                    return Reading([], [e], rec.how, refused="the reading frame codes for no amino acid")
                how = rec.how or f"computed from the {rec.bases}-base sequence"
                # the value on the first line; how it was read (frame, stop codon) below it
                return Reading([rec.result], [e], how, text=f"{rec.result}\n({how})")
        return None
