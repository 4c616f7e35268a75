"""Protein changes as people write them, read as HGVS p. names.

One-letter ("V600E", "p.V600E", "R1443*", "R1443X") and three-letter ("Val600Glu",
"p.(Val600Glu)", "Arg1443Ter") substitutions and stops all become the three-letter HGVS name
ClinVar gives ("p.Val600Glu", "p.Arg1443Ter"). Lower-case one-letter forms are not read:
"e1" or "s100a" are words or names, not residues.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from biorag.understanding.lexicon_lookup import safe_lookup
from biorag.understanding.question_model import Entity

if TYPE_CHECKING:
    from biorag.contracts.sources import Lexicon

THREE = {"A": "Ala", "R": "Arg", "N": "Asn", "D": "Asp", "C": "Cys", "Q": "Gln", "E": "Glu", "G": "Gly",
         "H": "His", "I": "Ile", "L": "Leu", "K": "Lys", "M": "Met", "F": "Phe", "P": "Pro", "S": "Ser",
         "T": "Thr", "W": "Trp", "Y": "Tyr", "V": "Val", "*": "Ter", "X": "Ter"}
_AMINO3 = "|".join(sorted({*THREE.values()}))
_ONE = "ARNDCQEGHILKMFPSTWYV"
#: a substitution or stop written one- or three-letter, with or without "p." and brackets
PROTEIN_CHANGE = re.compile(
    rf"(?<![\w.])(?:p\.)?\(?(?:(?P<a3>{_AMINO3})(?P<n3>\d{{1,5}})(?P<b3>{_AMINO3})"
    rf"|(?P<a1>[{_ONE}])(?P<n1>\d{{1,5}})(?P<b1>[{_ONE}*X]))\)?(?![\w*])", re.I)


def _hgvs(m: re.Match[str]) -> str | None:
    if m.group("a3"):
        return f"p.{m.group('a3').capitalize()}{m.group('n3')}{m.group('b3').capitalize()}"
    a, b = m.group("a1"), m.group("b1")
    if not a.isupper() or not (b.isupper() or b == "*"):
        return None
    return f"p.{THREE[a]}{m.group('n1')}{THREE[b]}"


def protein_changes(text: str) -> list[tuple[int, int, str]]:
    """(start, end, HGVS p. name) of every protein substitution or stop in `text`."""
    return [(m.start(), m.end(), h) for m in PROTEIN_CHANGE.finditer(text) if (h := _hgvs(m))]


def protein_change(text: str) -> str | None:
    """The first protein substitution in `text` as HGVS three-letter ("p.Val600Glu"), else None."""
    found = protein_changes(text)
    return found[0][2] if found else None


_WORD = re.compile(r"(?<![\w.-])[A-Za-z][A-Za-z0-9-]{1,15}(?![\w-])")


def protein_variants(text: str, lexicon: Lexicon) -> list[Entity]:
    """The variants `text` names by gene and protein change ("BRAF V600E", "V600E in BRAF")
    that the lexicon's ClinVar data hold: kind "rsid", the text "GENE p.Xxx1Yyy", the rsID as
    `ident` when a release gives one. The gene is the nearest word the lexicon ties the change to."""
    out = []
    for start, end, hgvs_p in protein_changes(text):
        words = sorted(((m.group(0), min(abs(m.start() - end), abs(start - m.end())))
                        for m in _WORD.finditer(text) if (m.end() <= start or m.start() >= end)
                        and any(c.isupper() or c.isdigit() for c in m.group(0))), key=lambda w: w[1])
        spans = [f"{w} {hgvs_p}" for w, _ in words[:8]]
        hits = {h.span: h for h in safe_lookup(lexicon, spans, ("variant",))}
        hit = next((hits[s.lower()] for s in spans if s.lower() in hits), None)
        if hit is not None:
            out.append(Entity("rsid", hit.canonical, how="protein change", span=text[start:end], ident=hit.ident))
    return out
