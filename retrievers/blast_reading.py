"""What BLAST hits answer: the organism of a sequence, where it lies in a genome, the genes
it falls in (the `AnswerField`s of the blast source, read from its evidence; the report
parsing and the client are in retrievers/blast.py).

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
from typing import Any

from biorag.models import Evidence
from biorag.organisms import HUMAN
from biorag.sources import AnswerField, Reading

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


def _meta(ev: Evidence, key: str, default: Any = None) -> Any:
    value = ev.metadata.get(key, default)
    return default if value in (None, "", []) else value


def _bits(ev: Evidence) -> float:
    try:
        return float(_meta(ev, "bit_score", 0) or 0)
    except (TypeError, ValueError):
        return 0.0


def reference_rank(ev: Evidence) -> tuple[float, int]:
    """Order chromosome records of one organism for 'where in the genome': the alignment
    score decides first (a worse alignment is never preferred); among equal scores the
    GRCh38 assembly, then other GRC assemblies, then T2T-CHM13, then other named ones."""
    assembly = str(_meta(ev, "assembly", ""))
    tier = next((t for prefix, t in _ASSEMBLY_TIER if assembly.startswith(prefix)), len(_ASSEMBLY_TIER))
    return (-_bits(ev), tier)


def organism_of_hits(hits: list[Evidence], wanted: str | None = None) -> str | None:
    """The organism of the best alignment. Among equal-scoring hits: `wanted` (the organism
    the question names), else Homo sapiens, else the organism most of the tied hits come
    from. BLAST lists ties in no meaningful order, so a close relative (chimpanzee) must
    not win by position."""
    hits = [h for h in hits if _meta(h, "organism")]
    if not hits:
        return None
    top = max(_bits(h) for h in hits)
    tied = [str(h.metadata["organism"]) for h in hits if _bits(h) >= top]
    for preferred in (wanted, HUMAN):
        if preferred in tied:
            return preferred
    return Counter(tied).most_common(1)[0][0]


def _chr(chrom: str) -> str:
    return chrom if chrom.lower().startswith("chr") else "chr" + chrom


def genome_location(hits: list[Evidence], wanted: str | None = None) -> Reading | None:
    """Where the sequence lies in the wanted organism's genome (Homo sapiens unless the
    question names another), from alignments as good as the best of all hits: coordinates
    on a chromosome record of a named assembly, else the chromosome the best hits' titles
    name (module docstring). A close relative's genome is not the one asked about."""
    organism = wanted or HUMAN
    best = max((_bits(h) for h in hits), default=0.0)
    own = [h for h in hits if _meta(h, "organism") == organism and _bits(h) >= best]
    if not own:
        return None
    records = [h for h in own if _meta(h, "chromosome_record") and _meta(h, "assembly") and _meta(h, "chromosome")
               and _meta(h, "subject_start") is not None and _meta(h, "subject_end") is not None]
    if not records:
        return chromosome_by_title(own, organism)
    ev = sorted(records, key=reference_rank)[0]
    lo, hi = sorted((int(ev.metadata["subject_start"]), int(ev.metadata["subject_end"])))
    where = f"{_chr(str(ev.metadata['chromosome']))}:{lo}-{hi}"
    assembly = str(ev.metadata["assembly"])
    first = where
    if organism == HUMAN and not assembly.startswith("GRCh38"):
        first = f"{where} on {assembly}; no GRCh38 record in the evidence"
    return Reading([where], [ev], f"alignment to {ev.id}, a chromosome record of {assembly}",
                   text=f"{first}\nAssembly: {assembly} ({organism}, {ev.id}: {_meta(ev, 'description', ev.title)})")


def chromosome_by_title(best: list[Evidence], organism: str) -> Reading | None:
    """The chromosome that the titles of the best-scoring records (clones, contigs, genes
    'on chromosome N') name, when they name exactly one; None when they name none or
    several (tied hits on different chromosomes: a repeat, not a location)."""
    named = [h for h in best if _meta(h, "chromosome")]
    chroms = {str(h.metadata["chromosome"]).upper() for h in named}
    if len(chroms) != 1:
        return None
    chrom = _chr(chroms.pop())
    ev = named[0]
    title = str(_meta(ev, "description", ev.title))
    clone = _CLONE.search(title)
    what = f"clone {clone.group(1)}, {ev.id}" if clone else ev.id
    first = f"{chrom} (named by the title of {what}; no chromosome coordinates in the evidence)"
    return Reading([chrom], [ev], f"the chromosome named by the title of {ev.id} ({organism}); "
                   "its coordinates are local to that record",
                   text=f"{first}\nRecord: {ev.id}: {title}")


def symbols_of_hit(ev: Evidence) -> list[str]:
    """Gene symbols a hit names: its `symbol`, else '(SYMBOL)' in the description."""
    if _meta(ev, "symbol"):
        return [str(_meta(ev, "symbol"))]
    return _PAREN_SYMBOL.findall(str(_meta(ev, "description", ev.title)))


def _binomial(organism: str) -> str:
    words = organism.replace("[", "").replace("]", "").split()
    return " ".join(words[:2]) if len(words) >= 2 else organism


def read_blast_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str],
                     organism: str | None = None) -> Reading | None:
    """`organism`: the organism the question names, when the caller knows it (ties and the
    genome to locate in go to it); otherwise Homo sapiens is preferred."""
    if field.name == "organism":
        found = organism_of_hits(evidence, organism)
        if found is None:
            return None
        ev = next(h for h in sorted(evidence, key=lambda h: -_bits(h)) if _meta(h, "organism") == found)
        return Reading([_binomial(found)], [ev], f"organism of the best BLAST hit {ev.id}")
    if field.name == "alignment":
        return genome_location(evidence, organism)
    if field.name == "sequence_genes":
        human = [e for e in evidence if _meta(e, "organism") == HUMAN]
        used = [ev for ev in human or evidence if symbols_of_hit(ev)]
        symbols = list(dict.fromkeys(s for ev in used for s in symbols_of_hit(ev)))
        return Reading(symbols, used, "genes named by the BLAST hits") if symbols else None
    return None
