"""What BLAST hits answer: the organism of a sequence, where it lies in a genome, the genes
it falls in (the `AnswerField`s of the blast source, read from its evidence; the report
parsing and the client are in retrievers/blast/retriever.py).

Where a sequence lies is answered only from what the records hold, and says how much:
- coordinates on a chromosome record of GRCh38 (or another GRC assembly): `chr15:lo-hi`;
- coordinates on a chromosome record of another assembly only (the 2023 nt reports hold
  T2T-CHM13, not the GRCh38 primary records): `chr15:lo-hi on T2T-CHM13; no GRCh38 record
  in the evidence`, never passed off as GRCh38;
- no chromosome record, but the best hits are clones (or contigs) whose titles name one
  chromosome ("... clone RP11-385N23 on chromosome 10", "PAC clone RP4-744D13 from 7"):
  that chromosome, with the record that names it and no coordinates (a clone's are local);
- titles naming different chromosomes, or none: no answer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.understanding.organisms import HUMAN
from retrievers.blast.record import BlastHitRecord

SEQUENCE_TEXT = re.compile(r"[A-Za-z*]{20,}")

SEQUENCE_ORGANISM = AnswerField(
    "organism", "organism a sequence comes from",
    ("organism", "which organism", "what organism", "species", "which species", "what species",
     "come from", "comes from", "derived from", "origin", "source organism", "animal"),
    ("sequence", "organism"))
ALIGNMENT = AnswerField(
    "alignment", "position of a DNA sequence in the human genome",
    ("align", "alignment", "aligns", "map", "maps", "mapped", "coordinates", "coordinate",
     "genome", "genomic position", "genomic location", "chromosome", "which chromosome", "position"),
    ("sequence", "organism"),
    weak_cues=("where", "location", "locate", "located", "find", "found", "lie", "lies"))
SEQUENCE_GENES = AnswerField(
    "sequence_genes", "gene that contains a sequence",
    ("gene", "genes", "which gene", "what gene", "contains", "contain", "containing"),
    ("sequence",), yields="gene")
BLAST_FIELDS = (SEQUENCE_ORGANISM, ALIGNMENT, SEQUENCE_GENES)

_PAREN_SYMBOL = re.compile(r"\(([A-Z][A-Z0-9\-]{1,14})\)")
_ASSEMBLY_TIER = (("GRCh38", 0), ("GRC", 1), ("T2T", 2))
_CLONE = re.compile(r"\bclone ([\w\-.]+)", re.I)


def _hits(evidence: list[Evidence]) -> list[tuple[Evidence, BlastHitRecord]]:
    return BlastHitRecord.all_of(evidence)


def reference_rank(hit: tuple[Evidence, BlastHitRecord]) -> tuple[float, int]:
    """Order chromosome records of one organism for 'where in the genome': the alignment
    score decides first (a worse alignment is never preferred); among equal scores the
    GRCh38 assembly, then other GRC assemblies, then T2T-CHM13, then other named ones."""
    _, rec = hit
    assembly = rec.assembly or ""
    tier = next((t for prefix, t in _ASSEMBLY_TIER if assembly.startswith(prefix)), len(_ASSEMBLY_TIER))
    return (-rec.bits, tier)


def organism_of_hits(hits: list[Evidence], wanted: str | None = None) -> str | None:
    """The organism of the best alignment. Among equal-scoring hits: `wanted` (the organism
    the question names), else Homo sapiens, else the organism most of the tied hits come
    from. BLAST lists ties in no meaningful order, so a close relative (chimpanzee) must
    not win by position."""
    recs = [r for _, r in _hits(hits) if r.organism]
    if not recs:
        return None
    top = max(r.bits for r in recs)
    tied = [str(r.organism) for r in recs if r.bits >= top]
    for preferred in (wanted, HUMAN):
        if preferred in tied:
            return preferred
    return Counter(tied).most_common(1)[0][0]


def _chr(chrom: str) -> str:
    return chrom if chrom.lower().startswith("chr") else "chr" + chrom


def _title(ev: Evidence, rec: BlastHitRecord) -> str:
    return rec.description or ev.title


def genome_location(hits: list[Evidence], wanted: str | None = None) -> Reading | None:
    """Where the sequence lies in the wanted organism's genome (Homo sapiens unless the
    question names another), from alignments as good as the best of all hits: coordinates
    on a chromosome record of a named assembly, else the chromosome the best hits' titles
    name (module docstring). A close relative's genome is not the one asked about."""
    organism = wanted or HUMAN
    recs = _hits(hits)
    best = max((r.bits for _, r in recs), default=0.0)
    own = [(ev, r) for ev, r in recs if r.organism == organism and r.bits >= best]
    if not own:
        return None
    records = [(ev, r) for ev, r in own if r.located]
    if not records:
        return chromosome_by_title(own, organism)
    ev, rec = sorted(records, key=reference_rank)[0]
    lo, hi = sorted((int(rec.subject_start or 0), int(rec.subject_end or 0)))
    where = f"{_chr(str(rec.chromosome))}:{lo}-{hi}"
    assembly = str(rec.assembly)
    first = where
    if organism == HUMAN and not assembly.startswith("GRCh38"):
        first = f"{where} on {assembly}; no GRCh38 record in the evidence"
    return Reading([where], [ev], f"alignment to {ev.id}, a chromosome record of {assembly}",
                   text=f"{first}\nAssembly: {assembly} ({organism}, {ev.id}: {_title(ev, rec)})")


def chromosome_by_title(best: list[tuple[Evidence, BlastHitRecord]], organism: str) -> Reading | None:
    """The chromosome that the titles of the best-scoring records (clones, contigs, genes
    'on chromosome N') name, when they name exactly one; None when they name none or
    several (tied hits on different chromosomes: a repeat, not a location)."""
    named = [(ev, r) for ev, r in best if r.chromosome]
    chroms = {str(r.chromosome).upper() for _, r in named}
    if len(chroms) != 1:
        return None
    chrom = _chr(chroms.pop())
    ev, rec = named[0]
    title = _title(ev, rec)
    clone = _CLONE.search(title)
    what = f"clone {clone.group(1)}, {ev.id}" if clone else ev.id
    first = f"{chrom} (named by the title of {what}; no chromosome coordinates in the evidence)"
    return Reading([chrom], [ev], f"the chromosome named by the title of {ev.id} ({organism}); "
                   "its coordinates are local to that record",
                   text=f"{first}\nRecord: {ev.id}: {title}")


def symbols_of_hit(ev: Evidence, rec: BlastHitRecord) -> list[str]:
    """Gene symbols a hit names: '(SYMBOL)' in its description."""
    return _PAREN_SYMBOL.findall(_title(ev, rec))


def _binomial(organism: str) -> str:
    words = organism.replace("[", "").replace("]", "").split()
    return " ".join(words[:2]) if len(words) >= 2 else organism


def read_blast_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str],
                     organism: str | None = None) -> Reading | None:
    """`organism`: the organism the question names, when the caller knows it (ties and the
    genome to locate in go to it); otherwise Homo sapiens is preferred."""
    recs = _hits(evidence)
    if field.name == "organism":
        found = organism_of_hits(evidence, organism)
        if found is None:
            return None
        ev = next(ev for ev, r in sorted(recs, key=lambda h: -h[1].bits) if r.organism == found)
        return Reading([_binomial(found)], [ev], f"organism of the best BLAST hit {ev.id}")
    if field.name == "alignment":
        return genome_location(evidence, organism)
    if field.name == "sequence_genes":
        human = [(ev, r) for ev, r in recs if r.organism == HUMAN]
        named = [(ev, found) for ev, r in human or recs if (found := symbols_of_hit(ev, r))]
        symbols = list(dict.fromkeys(s for _, found in named for s in found))
        return Reading(symbols, [ev for ev, _ in named], "genes named by the BLAST hits") if symbols else None
    return None
