"""Computations on a nucleotide sequence given in a question: its translation into protein,
reverse complement, GC content and length. Pure functions, no data files, no network.

A sequence is read as people paste it: upper or lower case, wrapped over lines, with
spaces or position numbers between blocks, a FASTA header line, DNA or RNA (U is read as
T). Anything else is refused with a `SequenceError` that names the offending letters.

Translation uses the standard genetic code (NCBI translation table 1). Without a frame the
reading frame starts at the first ATG; with one (1, 2 or 3, counted on the strand given),
it starts at that base. The first stop codon in frame ends the protein; the result says
which stop it was and where, or that none was reached. A codon with an ambiguous base
(N, R, Y, ...) is read as X.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the standard code, codons in TCAG order (TTT, TTC, TTA, TTG, TCT, ...): NCBI table 1
_BASES = "TCAG"
_AMINO_ACIDS = "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"
CODON_TABLE: dict[str, str] = {
    a + b + c: _AMINO_ACIDS[16 * i + 4 * j + k]
    for i, a in enumerate(_BASES) for j, b in enumerate(_BASES) for k, c in enumerate(_BASES)
}
STOP_CODONS = frozenset(c for c, aa in CODON_TABLE.items() if aa == "*")
START_CODON = "ATG"

#: IUPAC nucleotide letters (U read as T) and their complements
_COMPLEMENT = str.maketrans("ACGTNRYKMSWBDHV", "TGCANYRMKSWVHDB")
NUCLEOTIDES = frozenset("ACGTUNRYKMSWBDHV")
_SEPARATORS = re.compile(r"[\s\d]+")


class SequenceError(ValueError):
    """The text is not a nucleotide sequence (what is wrong is in the message)."""


def clean_sequence(text: str) -> str:
    """The sequence in `text`, upper case, DNA letters (U read as T), without FASTA header
    lines, whitespace or position numbers. `SequenceError` when nothing is left or a letter
    is no nucleotide code."""
    lines = [ln for ln in text.strip().splitlines() if not ln.lstrip().startswith(">")]
    seq = _SEPARATORS.sub("", "".join(lines)).upper()
    if not seq:
        raise SequenceError("no sequence given")
    bad = sorted(set(seq) - NUCLEOTIDES)
    if bad:
        raise SequenceError(f"not a nucleotide sequence: it has {''.join(bad[:10])}")
    return seq.replace("U", "T")


def is_rna(text: str) -> bool:
    """Whether the sequence was written as RNA (has U and no T)."""
    letters = set(_SEPARATORS.sub("", text).upper())
    return "U" in letters and "T" not in letters


@dataclass(frozen=True)
class Translation:
    """A translated reading frame.

    `protein` is the amino-acid sequence up to (not including) the stop codon; `start` the
    1-based position of its first base in the cleaned sequence; `frame` 1-3 (`start` mod 3);
    `start_codon` whether it began at an ATG found in the sequence (False when a frame was
    given or no ATG exists); `stop_codon` the stop that ended it ("" when the sequence ended
    first) and `stop_at` that codon's 1-based position."""

    protein: str
    start: int
    frame: int
    start_codon: bool
    stop_codon: str = ""
    stop_at: int = 0
    #: bases after the last whole codon that were not read (0-2)
    left_over: int = 0

    @property
    def complete(self) -> bool:
        """Ended by a stop codon."""
        return bool(self.stop_codon)

    def describe(self) -> str:
        """One line saying how the protein was read: frame, start, stop."""
        how = (f"from the first ATG at base {self.start}" if self.start_codon
               else f"in frame {self.frame} from base {self.start}")
        if self.stop_codon:
            end = f"ends at the stop codon {self.stop_codon} (bases {self.stop_at}-{self.stop_at + 2})"
        else:
            end = "no stop codon before the sequence ends"
        return f"standard genetic code, read {how}; {end}"


def translate(text: str, frame: int | None = None, to_stop: bool = True) -> Translation:
    """The protein the sequence codes for (see the module docstring). `frame` 1-3 reads
    from that base; None from the first ATG, or from base 1 when there is none. With
    `to_stop` False the whole frame is read, stops written as '*'."""
    seq = clean_sequence(text)
    if frame is not None and frame not in (1, 2, 3):
        raise SequenceError(f"frame must be 1, 2 or 3, not {frame}")
    at_atg = frame is None and START_CODON in seq
    begin = seq.find(START_CODON) if at_atg else (frame or 1) - 1
    protein: list[str] = []
    stop, stop_at = "", 0
    end = begin + (len(seq) - begin) // 3 * 3
    for i in range(begin, end, 3):
        codon = seq[i:i + 3]
        aa = CODON_TABLE.get(codon, "X")
        if aa == "*" and to_stop:
            stop, stop_at = codon, i + 1
            break
        protein.append(aa)
    left = 0 if stop else len(seq) - end
    return Translation("".join(protein), begin + 1, begin % 3 + 1, at_atg, stop, stop_at, left)


def reverse_complement(text: str) -> str:
    """The reverse complement (IUPAC codes complemented: R<->Y, K<->M, B<->V, D<->H)."""
    return clean_sequence(text).translate(_COMPLEMENT)[::-1]


def gc_content(text: str) -> float:
    """The share of G and C among the bases, in percent (ambiguous letters count in the
    length, as they do in the sequence shown; S, which is G or C, counts as GC)."""
    seq = clean_sequence(text)
    return 100.0 * sum(seq.count(b) for b in "GCS") / len(seq)


def length(text: str) -> int:
    """The number of bases."""
    return len(clean_sequence(text))
