"""The `genome` source (backend `fasta`): the DNA sequence at a genomic region
("chr7:5530601-5530700") read from a reference genome FASTA on this machine
(``--set genome.fasta=/path/GRCh38.fa``).

Coordinates are 1-based and inclusive, as genome browsers show them. The FASTA is read
through its samtools-style ``.fai`` index (name, length, offset, bases per line, bytes per
line) when one lies beside it; otherwise the index is built by one pass over the file at
the first question and kept in memory. A chromosome is found under its name as asked
("chr7"), without "chr" ("7"), and "chrM"/"MT" under either name.

Without a FASTA set, the search raises `NotBuilt` naming the setting that enables it, at
once (the API answers 404, "not available on this server"): no other source is asked for a
genome it does not have. A chromosome the FASTA lacks is `NoRecord`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from biorag.contracts.errors import NoRecord, NotBuilt, QueryRejected, ToolError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.common.source_record import SourceRecord

if TYPE_CHECKING:
    from biorag.settings import Settings

REGION_SEQUENCE = AnswerField(
    "region_sequence", "the DNA sequence of a genomic region (reference genome)",
    ("sequence", "dna sequence", "nucleotide sequence", "nucleotides", "bases", "extract", "retrieve",
     "reference sequence", "genomic sequence", "what is at", "fetch"),
    ("region",), default_for=("region",))
MAX_BASES = 100_000
_REGION = re.compile(r"^chr([0-9]{1,2}|X|Y|M):(\d+)-(\d+)$")
ENABLE_HINT = "set a reference genome FASTA with --set genome.fasta=/path/GRCh38.fa (BIORAG_GENOME__FASTA)"


class RegionSequence(SourceRecord):
    """The reference sequence of one region."""

    SOURCE: ClassVar[str] = "genome"
    region: str
    chromosome: str
    start: int
    end: int
    assembly: str
    sequence: str


class FastaIndex:
    """Random access to a FASTA file by its .fai-style index (see the module docstring)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise NotBuilt("genome", f"genome FASTA {self.path} not found; {ENABLE_HINT}")
        fai = Path(str(self.path) + ".fai")
        self.entries = self._read_fai(fai) if fai.is_file() else self._scan()

    @staticmethod
    def _read_fai(fai: Path) -> dict[str, tuple[int, int, int, int]]:
        entries = {}
        for line in fai.read_text().splitlines():
            cols = line.split("\t")
            if len(cols) >= 5:
                entries[cols[0]] = (int(cols[1]), int(cols[2]), int(cols[3]), int(cols[4]))
        if not entries:
            raise ToolError("genome", f"{fai} is not a FASTA index (name, length, offset, bases, bytes per line)")
        return entries

    def _scan(self) -> dict[str, tuple[int, int, int, int]]:
        entries: dict[str, tuple[int, int, int, int]] = {}
        name, length, offset, bases, width, short_seen = None, 0, 0, 0, 0, False
        pos = 0
        with open(self.path, "rb") as f:
            for raw in f:
                if raw.startswith(b">"):
                    if name is not None:
                        entries[name] = (length, offset, bases, width)
                    name = raw[1:].split()[0].decode() if raw[1:].split() else ""
                    length, offset, bases, width, short_seen = 0, pos + len(raw), 0, 0, False
                elif name is not None:
                    n = len(raw.rstrip(b"\r\n"))
                    if bases == 0:
                        bases, width = n, len(raw)
                    elif short_seen and n:
                        raise ToolError("genome", f"{self.path}: lines of {name} differ in length; "
                                        "re-wrap it (samtools faidx needs even lines)")
                    if n < bases:
                        short_seen = True
                    length += n
                pos += len(raw)
        if name is not None:
            entries[name] = (length, offset, bases, width)
        if not entries:
            raise ToolError("genome", f"{self.path} holds no FASTA record")
        return entries

    def name_of(self, chromosome: str) -> str | None:
        bare = chromosome.removeprefix("chr")
        for candidate in (chromosome, bare, f"chr{bare}", *(("chrM", "MT", "M") if bare in ("M", "MT") else ())):
            if candidate in self.entries:
                return candidate
        return None

    def fetch(self, name: str, start: int, end: int) -> str:
        """Bases start..end (1-based, inclusive) of record `name`."""
        length, offset, bases, width = self.entries[name]
        if start < 1 or end < start:
            raise QueryRejected("genome", f"{name}:{start}-{end}: start must be at least 1 and not after the end")
        if end > length:
            raise QueryRejected("genome", f"{name}:{start}-{end} runs past the end of {name} ({length:,} bases)")
        def at(i: int) -> int:  # byte offset of base i (0-based)
            return offset + (i // bases) * width + i % bases
        with open(self.path, "rb") as f:
            f.seek(at(start - 1))
            raw = f.read(at(end - 1) - at(start - 1) + 1)
        return re.sub(rb"\s", b"", raw).decode().upper()


class GenomeRetriever(Retriever):
    name = "genome"
    manual = ("Reference genome: the DNA sequence at a genomic region (chrN:start-end, 1-based) read "
              "from the genome FASTA set as genome.fasta. Query: the region.")
    query_format = "a region, e.g. chr7:5530601-5530700"
    accepts = ("region",)
    answers = (REGION_SEQUENCE,)
    _lock = threading.Lock()

    def __init__(self, fasta: str | None, assembly: str = "GRCh38"):
        self.fasta = fasta
        self.assembly = assembly
        self._index: FastaIndex | None = None

    @classmethod
    def query_schema(cls, settings: Settings) -> dict[str, Any]:
        """A region as `search` reads it: chrN:start-end, digits grouped by commas or not.
        What hangs on the genome (a span over MAX_BASES, start after end, past the
        chromosome's end) is a refusal its search path states."""
        return {"pattern": r"^\s*chr([0-9]{1,2}|X|Y|M):[0-9][0-9,]*-[0-9][0-9,]*\s*$"}

    @classmethod
    def from_settings(cls, settings: Settings) -> GenomeRetriever:
        return cls(settings.genome.fasta, settings.genome.assembly)

    def _open(self) -> FastaIndex:
        if not self.fasta:
            raise NotBuilt("genome", f"no reference genome on this machine; {ENABLE_HINT}")
        with self._lock:
            if self._index is None:
                self._index = FastaIndex(Path(self.fasta).expanduser())
        return self._index

    def search(self, request: SearchRequest) -> list[Evidence]:
        m = _REGION.match(request.text.strip().replace(",", ""))
        if not m:
            raise QueryRejected("genome", f"{request.text.strip()[:60]!r} is not a region; give chrN:start-end")
        chrom, start, end = f"chr{m.group(1)}", int(m.group(2)), int(m.group(3))
        if start < 1 or end < start:  # said before the genome is opened: it is the query's fault
            raise QueryRejected("genome", f"{chrom}:{start}-{end}: start must be at least 1 and not after the end")
        if end - start + 1 > MAX_BASES:
            raise QueryRejected("genome", f"{request.text.strip()} spans {end - start + 1:,} bases; "
                                f"at most {MAX_BASES:,} are returned")
        index = self._open()
        name = index.name_of(chrom)
        if name is None:
            raise NoRecord("genome", f"{chrom} is not in {self.fasta} (it holds {', '.join(list(index.entries)[:5])}...)")
        seq = index.fetch(name, start, end)
        region = f"{chrom}:{start}-{end}"
        rec = RegionSequence(region=region, chromosome=chrom, start=start, end=end, assembly=self.assembly, sequence=seq)
        return [Evidence(source="genome", id=f"{self.assembly}:{region}", title=f"{region} ({self.assembly})",
                         text=f"{region} ({self.assembly}, 1-based, {len(seq)} bases): {seq}",
                         metadata=rec.as_metadata())]

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        for e, rec in RegionSequence.all_of(evidence):
            return Reading([rec.sequence], [e], f"{rec.region} of {rec.assembly}, 1-based and inclusive")
        return None
