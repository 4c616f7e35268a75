"""Sequence computations: translation by the standard code (all 64 codons, case, line
breaks, RNA, frames, stops), reverse complement, GC content and length, checked against
NCBI's own translations of real coding sequences (tests/data/sequences, PROVENANCE there)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from biorag.knowledge.sequence_tools import (
    CODON_TABLE,
    STOP_CODONS,
    SequenceError,
    clean_sequence,
    gc_content,
    length,
    reverse_complement,
    translate,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "sequences"

#: the standard code written out by amino acid (IUPAC one-letter codes), independent of the
#: module's table: each codon must translate to the residue listed here
BY_RESIDUE = {
    "A": "GCT GCC GCA GCG", "R": "CGT CGC CGA CGG AGA AGG", "N": "AAT AAC", "D": "GAT GAC",
    "C": "TGT TGC", "Q": "CAA CAG", "E": "GAA GAG", "G": "GGT GGC GGA GGG", "H": "CAT CAC",
    "I": "ATT ATC ATA", "L": "TTA TTG CTT CTC CTA CTG", "K": "AAA AAG", "M": "ATG", "F": "TTT TTC",
    "P": "CCT CCC CCA CCG", "S": "TCT TCC TCA TCG AGT AGC", "T": "ACT ACC ACA ACG", "W": "TGG",
    "Y": "TAT TAC", "V": "GTT GTC GTA GTG", "*": "TAA TAG TGA",
}


def _fasta(path: Path) -> list[tuple[str, str]]:
    records, head, seq = [], None, []
    for line in path.read_text().splitlines():
        if line.startswith(">"):
            if head is not None:
                records.append((head, "".join(seq)))
            head, seq = line[1:], []
        elif line.strip():
            seq.append(line.strip())
    records.append((head, "".join(seq)))
    return records


PAIRS = list(zip(_fasta(DATA / "NC_005816.ffn"), _fasta(DATA / "NC_005816.faa"), strict=True))


def test_every_codon_of_the_standard_code():
    listed = {c: aa for aa, codons in BY_RESIDUE.items() for c in codons.split()}
    assert len(listed) == 64 == len(CODON_TABLE)
    for codon in map("".join, itertools.product("ACGT", repeat=3)):
        assert CODON_TABLE[codon] == listed[codon], codon
        # as one codon after a start: its residue, or an empty protein ended by that stop
        t = translate("ATG" + codon)
        if codon in STOP_CODONS:
            assert (t.protein, t.stop_codon, t.stop_at) == ("M", codon, 4)
        else:
            assert t.protein == "M" + listed[codon] and not t.complete
    assert STOP_CODONS == {"TAA", "TAG", "TGA"}


@pytest.mark.parametrize(("cds", "protein"), PAIRS, ids=[p[1][0].split("|")[3] for p in PAIRS])
def test_real_coding_sequences_translate_to_ncbi_proteins(cds, protein):
    (_, dna), (_, aa) = cds, protein
    if dna.startswith("ATG"):
        t = translate(dna)
        assert t.protein == aa
        assert t.start == 1 and t.start_codon and t.complete and t.stop_at == len(dna) - 2
    else:  # a bacterial GTG/TTG start, written by NCBI as M: the rest must agree
        assert dna[:3] in ("GTG", "TTG")
        t = translate(dna, frame=1)
        assert t.protein[1:] == aa[1:] and t.complete


@pytest.mark.parametrize("seed", range(5))
def test_case_whitespace_numbers_and_rna_do_not_change_the_protein(seed):
    rnd = random.Random(seed)
    (_, dna), (_, aa) = next(p for p in rnd.sample(PAIRS, len(PAIRS)) if p[0][1].startswith("ATG"))
    mixed = "".join(c.lower() if rnd.random() < 0.5 else c for c in dna)
    width = rnd.choice([10, 60, 70])
    wrapped = "\n".join(mixed[i:i + width] for i in range(0, len(mixed), width))
    blocks = " ".join(f"{i + 1} {dna[i:i + 10]}" for i in range(0, len(dna), 10))  # numbered, GenBank style
    for written in (dna.lower(), mixed, wrapped, f">cds\n{wrapped}\n", blocks, dna.replace("T", "U"),
                    f"  {dna}\r\n", dna.replace("T", "u").lower()):
        assert translate(written).protein == aa


def test_reading_frame_start_and_stop():
    # the first ATG sets the frame, bases before it are skipped
    assert translate("CCATGGCTTAAGG").protein == "MA"
    t = translate("CCATGGCTTAAGG")
    assert (t.start, t.frame, t.stop_codon, t.stop_at) == (3, 3, "TAA", 9)
    assert "stop codon TAA" in t.describe() and "first ATG at base 3" in t.describe()
    # a frame given reads from that base, ATG or not
    assert translate("CCATGGCTTAAGG", frame=1).protein == "PWLK"
    assert translate("CCATGGCTTAAGG", frame=2).protein == "HGLR"
    # no stop: the sequence ends the protein, and the description says so
    t = translate("ATGGCTGCT")
    assert t.protein == "MAA" and not t.complete and "no stop codon" in t.describe()
    # whole frame with stops written
    assert translate("ATGTAAGCT", to_stop=False).protein == "M*A"
    # no ATG anywhere: frame 1
    assert translate("CCCGGG").protein == "PG" and not translate("CCCGGG").start_codon
    # an ambiguous base makes an unknown residue, not a guess
    assert translate("ATGNNNGCT").protein == "MXA"
    with pytest.raises(SequenceError):
        translate("ATG", frame=4)


def test_reverse_complement_gc_and_length():
    (_, dna), _ = PAIRS[0]
    rc = reverse_complement(dna)
    assert reverse_complement(rc) == dna and len(rc) == len(dna)
    assert all({a, b} in ({"A", "T"}, {"C", "G"}) for a, b in zip(dna, reversed(rc), strict=True))
    assert reverse_complement("aTgC\nNr") == "YNGCAT"
    assert reverse_complement("AUGC") == "GCAT"
    assert gc_content("GGCCAATT") == 50.0 and gc_content("gggg") == 100.0
    assert gc_content(dna) == pytest.approx(100 * sum(c in "GC" for c in dna) / len(dna))
    assert length(dna) == len(dna) and length("ACGT ACGT\nAC") == 10


@pytest.mark.parametrize("bad", ["", "   ", "MKTAYIAKQR", "ATG CGT XYZ", "hello world"])
def test_not_a_sequence_is_refused_with_the_reason(bad):
    with pytest.raises(SequenceError) as e:
        clean_sequence(bad)
    assert "no sequence" in str(e.value) or "not a nucleotide sequence" in str(e.value)
