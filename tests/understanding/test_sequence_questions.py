"""Computation asks on a sequence given in the question (translate, reverse complement, GC
content, length) are recognised by what is asked, answered by the sequence tools, and read
alike in any wording; questions about where a sequence comes from still go to BLAST.

Questions are generated from real coding sequences and NCBI's own proteins for them
(tests/data/sequences, PROVENANCE there)."""

from __future__ import annotations

import random
import time

import pytest

from biorag.knowledge.sequence_tools import gc_content, reverse_complement
from biorag.understanding.analysis import analyse
from tests.tools.test_sequence_tools import PAIRS

#: ATG-start coding sequences and NCBI's proteins for them
CODING = [(dna, aa) for (_h, dna), (_p, aa) in PAIRS if dna.startswith("ATG")]
SHORT = [(dna[:150], None) for dna, _aa in CODING]  # a stretch that BLAST-style questions use

TRANSLATE = [
    "Nucleic acid sequence of a human gene: {s}. Translate the sequence into amino acids.",
    "Translate this DNA sequence into protein: {s}",
    "translate {s}",
    "What is the amino acid sequence encoded by {s}?",
    "What protein sequence does {s} code for?",
    "The protein sequence translated from {s} is",
    "Could you please translate the following sequence into its amino acid sequence: {s}? Thanks!",
    "Write a computer program that answers the following question: translate {s} to protein.",
    "{s}\nTranslate it.",
]


def _first(answer: str) -> str:
    return next((ln.strip() for ln in answer.splitlines() if ln.strip()), "")


def _writings(dna: str, rnd: random.Random) -> list[str]:
    """The same sequence as people paste it: upper, lower, mixed case, RNA."""
    mixed = "".join(c.lower() if rnd.random() < 0.5 else c for c in dna)
    return [dna, dna.lower(), mixed, dna.replace("T", "U"), dna.lower().replace("t", "u")]


@pytest.mark.parametrize("index", range(len(CODING)))
def test_translation_asked_in_any_wording_gives_ncbis_protein(agent, index):
    dna, protein = CODING[index]
    rnd = random.Random(index)
    for template in TRANSLATE:
        for written in rnd.sample(_writings(dna, rnd), 2):
            question = template.format(s=written)
            answer = agent.answer(question)
            assert _first(answer.answer) == protein, (question[:90], answer.answer[:300])
            assert answer.sufficient
            assert "stop codon" in answer.answer  # the stop that ends it is stated


def test_other_computations_are_read_from_the_sequence(agent):
    dna = CODING[0][0][:120]
    asks = {
        f"What is the reverse complement of {dna}?": reverse_complement(dna),
        f"reverse complement {dna.lower()}": reverse_complement(dna),
        f"Give me the reverse-complement of this sequence: {dna}": reverse_complement(dna),
        f"What is the GC content of {dna}?": f"{gc_content(dna):.2f}%",
        f"GC content of this sequence: {dna.lower()}": f"{gc_content(dna):.2f}%",
        f"How long is this sequence: {dna}?": f"{len(dna)} bases",
        f"What is the length of {dna}?": f"{len(dna)} bases",
    }
    for question, expected in asks.items():
        assert _first(agent.answer(question).answer) == expected, question[:80]


def test_a_primer_length_sequence_is_computed_on(agent):
    """12 to 19 bases standing alone (primers, probes) are a sequence too: stretches of the
    real coding sequences, each length once; a run of nucleotide letters inside a protein
    sequence is not one."""
    for n in range(12, 20):
        dna = CODING[n % len(CODING)][0][30:30 + n]
        for question, expected in ((f"reverse complement of {dna} please", reverse_complement(dna)),
                                   (f"What is the GC content of the primer {dna.lower()}?", f"{gc_content(dna):.2f}%")):
            answer = agent.answer(question)
            assert _first(answer.answer) == expected and answer.sufficient, (question, answer.answer[:200])
    protein = "MKT" + "GATNAGTCANGT" + "LLW"  # a protein with a run of A/C/G/T/N residues
    assert "sequence" not in {e.kind for e in analyse(f"What is {protein}?", agent.retrievers, agent.lexicon).entities}


@pytest.mark.parametrize("question", [
    "Which organism does the DNA sequence come from: {s}",
    "Align the DNA sequence to the human genome: {s}",
    "Which chromosome does {s} map to?",
    "Write a computer program that answers: which organism does this DNA sequence come from? {s}",
])
def test_where_a_sequence_comes_from_is_still_a_blast_question(agent, question):
    analysis = analyse(question.format(s=SHORT[0][0]), agent.retrievers, agent.lexicon)
    assert analysis.intent is not None and analysis.intent.hops[0].source == "blast"


def test_a_sequence_with_no_recording_says_so_at_once(agent):
    # a real sequence (a stretch of a plasmid CDS) that no recorded BLAST search holds
    question = f"Which organism does this DNA sequence come from? {SHORT[3][0]}"
    t0 = time.perf_counter()
    answer = agent.answer(question)
    elapsed = time.perf_counter() - t0
    assert not answer.sufficient
    assert "pubmed" not in {c.source for c in answer.citations}
    assert elapsed < 5, elapsed
