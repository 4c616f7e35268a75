"""BLAST tool: a DNA/protein sequence -> best database hits (NCBI BLAST URL API).

Put submits the search and returns a RID and an estimated time (RTOE); Get is polled
after RTOE and then every ``ncbi.blast_poll_s`` seconds while the status is WAITING,
until READY, an UNKNOWN/FAILED status (an error), or ``ncbi.blast_deadline_s``.
Reports are parsed from BLAST XML or the plain-text report (what the dev recording holds).

Evidence: ``source="blast"``, ``id`` = subject accession ("CP068263.2"), ``title`` = the
subject description, ``url`` = https://www.ncbi.nlm.nih.gov/nuccore/<accession>.
``metadata``: a `BlastHitRecord` (retrievers/blast/record.py; read it back with
`BlastHitRecord.of`), keys always present, None when the report does not say:
``accession``, ``description``, ``organism`` (binomial from the description, e.g.
"Homo sapiens"), ``identity`` (percent, float), ``evalue`` (float), ``bit_score``,
``align_length``, ``query_start``, ``query_end``, ``subject_start``, ``subject_end``,
``strand`` ("Plus/Plus"...), ``chromosome`` ("15" when the description names a chromosome),
``chromosome_record`` (True when the subject is a whole chromosome of an assembly, so its
coordinates are chromosome coordinates; False for clones, contigs, genes, regions),
``assembly`` (the named assembly: "GRCh38.p14", "T2T-CHM13", "strain Bristol N2", ...; None
when the description names none), ``rid``.

A query that is not a sequence (a gene name, a sentence) is refused with `QueryRejected`
before anything is sent: BLAST would align its letters as if they were bases.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import QueryRejected, ToolError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.loop.prompts import MANUALS
from biorag.retrieval.retriever import Retriever
from biorag.understanding.organisms import binomial_of, organism_named_in
from biorag.understanding.search_request import SearchRequest
from retrievers.blast.reading import BLAST_FIELDS, SEQUENCE_TEXT, read_blast_field
from retrievers.blast.record import BlastHitRecord
from retrievers.common.http_store import HttpStore, store_for

if TYPE_CHECKING:
    from biorag.settings import NCBISettings, Settings

MANUAL = MANUALS["blast"]  # the text lives with every other prompt

DNA = set("ACGTNRYKMSWBDHV")
PROTEIN = set("ACDEFGHIKLMNPQRSTVWYBZXUO*")


def extract_sequence(query: str) -> str:
    """The sequence in a query: the whole text when it is all sequence letters (wrapped or
    numbered FASTA), else its longest word (e.g. after 'Align ... genome:')."""
    lines = [ln for ln in query.strip().splitlines() if not ln.startswith(">")]
    text = "\n".join(lines)
    compact = re.sub(r"[\s\d]", "", text).upper()
    if compact and set(compact) <= DNA | PROTEIN:
        return compact
    words = re.findall(r"[A-Za-z*]+", text)
    return max(words, key=len, default="").upper()


_DNA_BASES = set("ACGTUN")


def validate_sequence(seq: str, program: str, min_len: int, max_len: int, query: str | None = None) -> str:
    """`seq` when BLAST can take it; otherwise `QueryRejected` naming what is wrong with
    the query (shown as given) and what to send instead."""
    shown = repr((query if query is not None else seq).strip()[:60])
    if not seq:
        raise QueryRejected("blast", f"no sequence in {shown}; give the bare DNA sequence (A/C/G/T)")
    alphabet = PROTEIN if program in ("blastp", "tblastn") else DNA
    kind = "protein" if alphabet is PROTEIN else "DNA"
    bad = sorted(set(seq) - alphabet)
    if bad:
        raise QueryRejected(
            "blast", f"{shown} has letters that are not {kind} ({''.join(bad[:10])}); give only the sequence")
    if len(seq) < min_len:
        raise QueryRejected(
            "blast", f"{shown} is not a {kind} sequence of at least {min_len} letters (a gene name or words?); "
            f"BLAST needs the bare sequence")
    if alphabet is DNA and sum(c in _DNA_BASES for c in seq) < 0.9 * len(seq):
        raise QueryRejected(
            "blast", f"{shown} is mostly not A/C/G/T, so it is words or a protein, not DNA; give the bare DNA sequence")
    if len(seq) > max_len:
        raise QueryRejected("blast", f"sequence is {len(seq)} letters; at most {max_len} are accepted")
    return seq


# ---- report parsing -----------------------------------------------------------------

_CHROM = re.compile(r"\bchromosome[:\s]+([0-9]{1,2}|X|Y|MT|[IVX]{1,5})\b", re.I)
# a clone title that names its chromosome without the word: "PAC clone RP4-744D13 from 7",
# "BAC clone CTA-963H5 from 22q12.1-qter" (the chromosome, then an optional band)
_CLONE_FROM = re.compile(r"\bclone [\w\-.]+ from ([0-9]{1,2}|X|Y)(?=[pq][\d.\-a-z]*\b|[,\s]|$)", re.I)
# records that carry a chromosome's name without being the chromosome: their coordinates
# are local (a clone, contig or scaffold; a gene, region or feature "on chromosome N")
_NOT_CHROMOSOME_RECORD = re.compile(
    r"\b(?:clone|contig|scaffold|on chromosome|region|RefSeqGene|mRNA|transcript|gene|enhancer|"
    r"unlocalized|unplaced|alternate locus|patch|haplotype)\b", re.I)
_ASSEMBLY = [  # (pattern, name): the first that matches names the assembly
    (re.compile(r"\b(GRCh3[78](?:\.p\d+)?|GRCm3[89](?:\.p\d+)?|GRCz1[01]|GRCg\w+)\b"), None),
    (re.compile(r"\b(?:T2T-)?CHM13(?:v?\d[\d.]*)?\b"), "T2T-CHM13"),
    (re.compile(r"\bgenome assembly,? (?!chromosome)([A-Za-z][\w.\-]+[A-Za-z0-9])"), None),
    (re.compile(r"\b((?:strain|isolate|cultivar|breed) [\w.\-]+(?: [A-Z0-9][\w.\-]*)?) chromosome\b"), None),
]


def organism_of(description: str) -> str | None:
    return binomial_of(description)


def chromosome_of(description: str) -> str | None:
    m = _CHROM.search(description) or _CLONE_FROM.search(description)
    return m.group(1).upper() if m else None


def is_chromosome_record(description: str) -> bool:
    """True when the subject is a whole chromosome (its coordinates are chromosome
    coordinates): the description names a chromosome and nothing smaller."""
    return chromosome_of(description) is not None and not _NOT_CHROMOSOME_RECORD.search(description)


def assembly_of(description: str) -> str | None:
    """The assembly a chromosome record belongs to, when its description names one."""
    for pattern, name in _ASSEMBLY:
        m = pattern.search(description)
        if m:
            return name or m.group(1)
    return None


def _hit(acc: str, desc: str, **hsp: Any) -> dict[str, Any]:
    desc = " ".join(desc.split())
    return {
        "accession": acc, "description": desc, "organism": organism_of(desc),
        "chromosome": chromosome_of(desc), "chromosome_record": is_chromosome_record(desc),
        "assembly": assembly_of(desc), "identity": None, "evalue": None, "bit_score": None,
        "align_length": None, "query_start": None, "query_end": None,
        "subject_start": None, "subject_end": None, "strand": None, **hsp,
    }


def parse_status(body: str) -> tuple[str | None, str | None, int | None]:
    """(status, rid, rtoe) from a QBlastInfo block."""
    status = re.search(r"Status=(\w+)", body)
    rid = re.search(r"RID\s*=\s*(\S+)", body)
    rtoe = re.search(r"RTOE\s*=\s*(\d+)", body)
    return (
        status.group(1).upper() if status else None,
        rid.group(1) if rid else None,
        int(rtoe.group(1)) if rtoe else None,
    )


def parse_xml_report(body: str) -> list[dict[str, Any]]:
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return _salvage_xml_hits(body)
    return [_xml_hit(h) for h in root.iter("Hit")]


def _xml_hit(h: ET.Element) -> dict[str, Any]:
    def f(el: ET.Element | None, tag: str) -> str | None:
        x = el.find(tag) if el is not None else None
        return x.text if x is not None else None

    hsp = h.find("Hit_hsps/Hsp")
    ident, length = f(hsp, "Hsp_identity"), f(hsp, "Hsp_align-len")
    num = lambda v, t=float: t(v) if v not in (None, "") else None  # noqa: E731
    return _hit(
        f(h, "Hit_accession") or "", f(h, "Hit_def") or "",
        identity=round(100.0 * int(ident) / int(length), 2) if ident and length else None,
        evalue=num(f(hsp, "Hsp_evalue")), bit_score=num(f(hsp, "Hsp_bit-score")),
        align_length=num(length, int), query_start=num(f(hsp, "Hsp_query-from"), int),
        query_end=num(f(hsp, "Hsp_query-to"), int), subject_start=num(f(hsp, "Hsp_hit-from"), int),
        subject_end=num(f(hsp, "Hsp_hit-to"), int),
    )


def _salvage_xml_hits(body: str) -> list[dict[str, Any]]:
    """A truncated XML report: keep every complete <Hit> element."""
    out = []
    for m in re.finditer(r"<Hit>.*?</Hit>", body, re.S):
        try:
            out.append(_xml_hit(ET.fromstring(m.group(0))))
        except ET.ParseError:
            continue
    return out


def parse_text_report(body: str) -> list[dict[str, Any]]:
    """Plain-text BLAST report: one hit per '>' alignment block (first HSP), falling back to
    the summary table when the alignments were cut off."""
    hits: list[dict[str, Any]] = []
    blocks = re.split(r"\n>", body)
    for block in blocks[1:]:
        head, _, rest = block.partition("\nLength=")
        first = head.split("\n")[0]  # further lines are other ids of identical sequences
        cont = [ln.strip() for ln in head.split("\n")[1:] if ln and not ln.startswith(" ")]
        acc, _, desc = first.partition(" ")
        desc = " ".join([desc, *cont])
        hsp: dict[str, Any] = {}
        if m := re.search(r"Score\s*=\s*([\d.]+)\s*bits.*?Expect\S*\s*=\s*([\w.\-+]+)", rest, re.S):
            hsp["bit_score"] = float(m.group(1))
            hsp["evalue"] = _float(m.group(2))
        if m := re.search(r"Identities\s*=\s*(\d+)/(\d+)\s*\((\d+)%\)", rest):
            hsp["identity"] = float(m.group(3))
            hsp["align_length"] = int(m.group(2))
        if m := re.search(r"Strand\s*=\s*(\w+/\w+)", rest):
            hsp["strand"] = m.group(1)
        q = re.findall(r"^Query\s+(\d+)\s+\S+\s+(\d+)", rest, re.M)
        s = re.findall(r"^Sbjct\s+(\d+)\s+\S+\s+(\d+)", rest, re.M)
        if q:
            hsp["query_start"], hsp["query_end"] = int(q[0][0]), int(q[-1][1])
        if s:
            # stop at the next HSP of the same subject: a new 'Score =' line
            first_hsp = rest.split(" Score =")[1] if rest.count(" Score =") > 1 else rest
            s = re.findall(r"^Sbjct\s+(\d+)\s+\S+\s+(\d+)", first_hsp, re.M) or s
            hsp["subject_start"], hsp["subject_end"] = int(s[0][0]), int(s[-1][1])
        if "evalue" not in hsp:  # cut inside this block before its scores: skip it
            continue
        hits.append(_hit(acc.strip(), desc, **hsp))
    if hits:
        return hits
    table = body.split("Sequences producing significant alignments:", 1)
    if len(table) == 2:
        for line in table[1].splitlines():
            m = re.match(r"^(\S+\.\d+)\s+(.*?)\s+([\d.]+)\s+([\w.\-+]+)\s+(\d+)%", line)
            if m:
                hits.append(_hit(m.group(1), m.group(2).rstrip("."), bit_score=float(m.group(3)),
                                 evalue=_float(m.group(4)), identity=float(m.group(5))))
            elif line.startswith("ALIGNMENTS"):
                break
    return hits


def _float(v: str) -> float | None:
    v = v.strip().rstrip(",")
    if v.startswith("e"):
        v = "1" + v
    try:
        return float(v)
    except ValueError:
        return None


def parse_report(body: str) -> list[dict[str, Any]]:
    s = body.lstrip()
    if s.startswith("<?xml") or "<BlastOutput" in s[:500]:
        return parse_xml_report(body)
    return parse_text_report(body)


def blast_evidence(h: dict[str, Any], rid: str | None) -> Evidence:
    """A parsed hit (`parse_report`) of search `rid` as evidence carrying its `BlastHitRecord`."""
    rec = BlastHitRecord.model_validate({**h, "rid": rid})
    where = ""
    if rec.subject_start is not None:
        where = f"; subject {rec.subject_start}-{rec.subject_end}"
        if rec.chromosome_record:
            where += f" (chromosome {rec.chromosome}, assembly {rec.assembly or 'not named'})"
        elif rec.chromosome:
            where += f" (from chromosome {rec.chromosome}; local coordinates of a clone or feature record)"
    text = (
        f"{rec.accession} {rec.description}\n"
        f"Organism: {rec.organism or 'not stated'}; identity {rec.identity}%; "
        f"E-value {rec.evalue}{where}"
    )
    return Evidence(source="blast", id=rec.accession, title=rec.description, text=text,
                    url=f"https://www.ncbi.nlm.nih.gov/nuccore/{rec.accession}", metadata=rec.as_metadata())


# ---- client -------------------------------------------------------------------------


class BlastClient:
    """BLAST URL API: submit (Put), poll (Get), parse."""

    def __init__(self, store: HttpStore, ncbi: NCBISettings, source: str = "blast",
                 sleep=time.sleep, clock=time.monotonic):
        self.store = store
        self.ncbi = ncbi
        self.source = source
        self.sleep = sleep
        self.clock = clock

    def _fetch(self, params: dict[str, Any]):
        ex = self.store.fetch(self.ncbi.blast_url, params, source=self.source,
                              retries=self.ncbi.retries, backoff_s=self.ncbi.backoff_s,
                              timeout=self.ncbi.timeout_s)
        if not ex.ok:
            raise ToolError(self.source, f"BLAST {params['CMD']}: HTTP {ex.status}")
        return ex

    def submit(self, sequence: str) -> tuple[str, int]:
        params = {
            "CMD": "Put", "PROGRAM": self.ncbi.blast_program,
            "MEGABLAST": "on" if self.ncbi.blast_megablast else "off",
            "DATABASE": self.ncbi.blast_database, "FORMAT_TYPE": "XML",
            "HITLIST_SIZE": str(self.ncbi.blast_hitlist_size), "QUERY": sequence,
        }
        ex = self._fetch(params)
        _, rid, rtoe = parse_status(ex.body)
        if not rid:
            raise ToolError(self.source, "BLAST Put returned no RID (the query was not accepted as a sequence)")
        return rid, rtoe or 0

    def wait(self, rid: str, rtoe: int) -> str:
        """Poll Get until READY; returns the report body."""
        deadline = self.clock() + self.ncbi.blast_deadline_s
        if self.store.mode not in ("replay",) and rtoe:
            self.sleep(min(rtoe, max(0.0, deadline - self.clock())))
        while True:
            ex = self._fetch({"CMD": "Get", "FORMAT_TYPE": "Text", "RID": rid})
            status, _, _ = parse_status(ex.body)
            if status in (None, "READY"):
                if not ex.body.strip():
                    raise ToolError(self.source, f"BLAST Get RID={rid}: empty report")
                return ex.body
            if status == "WAITING":
                if ex.recorded:
                    raise ToolError(self.source, f"BLAST RID={rid}: the recording holds only a WAITING page")
                if self.clock() + self.ncbi.blast_poll_s > deadline:
                    raise ToolError(self.source, f"BLAST RID={rid} not ready after {self.ncbi.blast_deadline_s:g}s (deadline)")
                self.sleep(self.ncbi.blast_poll_s)
                continue
            raise ToolError(self.source, f"BLAST RID={rid}: status {status} (search failed or expired)")

    def search(self, sequence: str) -> tuple[str, list[dict[str, Any]]]:
        rid, rtoe = self.submit(sequence)
        report = self.wait(rid, rtoe)
        return rid, parse_report(report)


class BlastRetriever(Retriever):
    name = "blast"
    manual = MANUAL
    query_format = "the bare DNA sequence (letters ACGTN only)"
    accepts = ("sequence",)
    answers = BLAST_FIELDS

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        # `about` holds the sequence and, for fields about an organism, the organism the
        # question names ("... in the mouse genome")
        named = next((o for a in about if not SEQUENCE_TEXT.fullmatch(a) and (o := organism_named_in(a))), None)
        return read_blast_field(field, evidence, about, named)

    def __init__(self, client: BlastClient):
        self.client = client

    @classmethod
    def query_schema(cls, settings: Settings) -> dict[str, Any]:
        """The bare sequence in the configured program's alphabet (DNA: ACGTN, which also
        keeps it mostly A/C/G/T), `blast_min_length`..`blast_max_length` letters: what
        `validate_sequence` passes, stated without the spaces and digits it also strips."""
        n = settings.ncbi
        letters = "".join(sorted(PROTEIN)) if n.blast_program in ("blastp", "tblastn") else "ACGTN"
        alphabet = re.escape(letters + letters.lower())
        return {"pattern": f"^[{alphabet}]+$", "minLength": n.blast_min_length,
                "maxLength": min(n.blast_max_length, settings.max_question_chars)}

    @classmethod
    def from_settings(cls, settings: Settings) -> BlastRetriever:
        return cls(BlastClient(store_for(settings), settings.ncbi))

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        n = self.client.ncbi
        seq = validate_sequence(extract_sequence(query), n.blast_program, n.blast_min_length,
                                n.blast_max_length, query)
        rid, hits = self.client.search(seq)
        return [blast_evidence(h, rid) for h in hits[:k]]
