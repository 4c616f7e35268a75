"""BLAST answers read from the real reports in the bundled recording (2023 NCBI BLAST, nt):
alignments are reported on chromosome records of a named assembly, never on a clone's local
coordinates; with no such record, the chromosome that the best hits' titles name, without
coordinates; ties between equal hits go to the organism the question names, else human, else
the organism most tied hits come from; and BLAST never receives a gene name."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from biorag.contracts.errors import InputError, QueryRejected, ToolError
from biorag.understanding.search_request import SearchRequest
from retrievers.blast.reading import ALIGNMENT, SEQUENCE_ORGANISM, read_blast_field
from retrievers.blast.retriever import BlastRetriever, blast_evidence, chromosome_of, parse_report
from retrievers.common.http_store import BUNDLED_CASSETTE
from tests.registered import analyse, structured_answer


def _recorded_reports() -> list[tuple[str, str, list]]:
    """(rid, question, evidence) for every READY report recorded for a dev question."""
    out, seen = [], set()
    with open(BUNDLED_CASSETTE, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["service"] != "blast" or row["params"].get("CMD") != "Get" or not row.get("questions"):
                continue
            rid = row["params"].get("RID")
            hits = parse_report(row["response"])
            if rid in seen or not hits:
                continue
            seen.add(rid)
            out.append((rid, row["questions"][0]["question"], [blast_evidence(h, rid) for h in hits]))
    return out


REPORTS = _recorded_reports()
ALIGN = [(rid, q, ev) for rid, q, ev in REPORTS if q.startswith("Align the DNA sequence to the human genome")]
SPECIES = [(rid, q, ev) for rid, q, ev in REPORTS if q.startswith("Which organism does the DNA sequence")]


def _bits(ev):
    return ev.metadata["bit_score"] or 0


def test_recording_holds_both_kinds_of_report():
    assert len(ALIGN) >= 30 and len(SPECIES) >= 10


@pytest.mark.parametrize(("rid", "question", "evidence"), ALIGN, ids=[r for r, _, _ in ALIGN])
def test_alignment_is_on_a_named_assembly_chromosome_or_the_chromosome_titles_name(rid, question, evidence):
    answer = structured_answer(analyse(question), evidence)
    top = max(map(_bits, evidence))
    best_human = [e for e in evidence if e.metadata["organism"] == "Homo sapiens" and _bits(e) >= top]
    eligible = [e for e in best_human if e.metadata["chromosome_record"] and e.metadata["assembly"]]
    if not eligible:
        named = {e.metadata["chromosome"] for e in best_human if e.metadata["chromosome"]}
        if len(named) != 1:
            assert answer is None, answer.text  # titles name no chromosome, or several: say so, don't guess
            return
        (used,) = answer.used
        first, second = answer.text.splitlines()
        # the chromosome and the record whose title names it; a clone's local coordinates never
        assert first.startswith(f"chr{named.pop()} (named by the title of ") and ":" not in first.split("(")[0]
        assert "no chromosome coordinates in the evidence" in first and used in best_human
        assert second == f"Record: {used.id}: {used.metadata['description']}"
        return
    (used,) = answer.used
    assert used in eligible
    md = used.metadata
    lo, hi = sorted((md["subject_start"], md["subject_end"]))
    first, second = answer.text.splitlines()
    where = f"chr{md['chromosome']}:{lo}-{hi}"
    if md["assembly"].startswith("GRCh38"):
        assert first == where
    else:  # another assembly's coordinates, said to be so
        assert first == f"{where} on {md['assembly']}; no GRCh38 record in the evidence"
    assert md["assembly"] in second and "Homo sapiens" in second


def test_clone_titles_name_the_chromosome_and_nothing_more():
    """The report where the best hit is a human PAC clone ("... clone RP4-744D13 from 7") and
    the next ones are chimpanzee BAC clones: the chromosome the human title names, no
    coordinates, and not the chimpanzee's; the organism is human."""
    rid, question, evidence = next(r for r in ALIGN if {e.metadata["organism"] for e in r[2]} >= {"Homo sapiens", "Pan troglodytes"})
    answer = structured_answer(analyse(question), evidence)
    best = max(evidence, key=_bits)
    assert best.metadata["organism"] == "Homo sapiens" and not best.metadata["chromosome_record"]
    assert answer.text.splitlines()[0] == (f"chr{best.metadata['chromosome']} (named by the title of clone "
                                           f"{best.metadata['description'].split('clone ')[1].split()[0]}, {best.id}; "
                                           "no chromosome coordinates in the evidence)")
    organism_q = "Which organism does the DNA sequence come from:" + question.split(":", 1)[1]
    assert structured_answer(analyse(organism_q), evidence).text == "Homo sapiens"


@pytest.mark.parametrize(("title", "chromosome"), [
    ("Homo sapiens PAC clone RP4-744D13 from 7, complete sequence", "7"),
    ("Human BAC clone CTA-963H5 from 22q12.1-qter, complete sequence", "22"),
    ("homo sapiens BAC clone VMRC66-519N18 from chromosome 8, complete sequence", "8"),
    ("Human DNA sequence from clone RP11-385N23 on chromosome 10, complete sequence", "10"),
    ("Homo sapiens chromosome unknown clone VMRC73-193P10, complete sequence", None),
    ("Homo sapiens chromosome 1 genomic contig, alternate assembly", "1"),
    ("Homo sapiens genomic contig from a BAC library", None),  # a contig that does not say
    ("Human DNA from 17 donors, clone-free assembly", None),
])
def test_chromosome_read_from_a_title(title, chromosome):
    assert chromosome_of(title) == chromosome


def test_tied_titles_naming_different_chromosomes_answer_nothing():
    """Equal best hits on clones of two chromosomes (a repeat): no chromosome is named."""
    rid, question, evidence = next(r for r in ALIGN if any(e.metadata["chromosome"] for e in r[2]))
    top, real = max(map(_bits, evidence)), evidence[0].metadata  # a real hit's alignment figures
    clones = [blast_evidence({**real, "accession": f"AC{n}.1", "bit_score": top, "organism": "Homo sapiens",
                              "chromosome_record": False, "chromosome": c,
                              "description": f"Human DNA sequence from clone X-{n} on chromosome {c}"}, rid)
              for n, c in enumerate(["13", "21"])]
    assert read_blast_field(ALIGNMENT, clones, []) is None
    assert read_blast_field(ALIGNMENT, clones[:1], []).values == ["chr13"]


def test_answered_alignments_name_t2t_chm13_when_no_grch38_record_was_returned():
    answered = [structured_answer(analyse(q), ev) for _, q, ev in ALIGN]
    named = Counter(a.text.splitlines()[1].split()[1] for a in answered if a is not None and "Assembly:" in a.text)
    assert named["T2T-CHM13"] >= 10  # the 2023 nt reports hold CHM13, not GRCh38 primary, records


@pytest.mark.parametrize(("rid", "question", "evidence"), SPECIES, ids=[r for r, _, _ in SPECIES])
def test_organism_ties_prefer_human_then_the_majority(rid, question, evidence):
    answer = structured_answer(analyse(question), evidence)
    with_org = [e for e in evidence if e.metadata["organism"]]
    if not with_org:
        assert answer is None
        return
    top = max(map(_bits, with_org))
    tied = [e.metadata["organism"] for e in with_org if _bits(e) >= top]
    expected = "Homo sapiens" if "Homo sapiens" in tied else Counter(tied).most_common(1)[0][0]
    assert answer.text == expected


def test_a_named_organism_wins_the_tie():
    """A real yeast report whose equal best hits are one S. pastorianus and several S.
    cerevisiae records: unnamed -> the majority; named -> the named one, and its location
    comes from that organism's chromosome record, naming the strain assembly."""
    rid, question, evidence = next(r for r in SPECIES if len({e.metadata["organism"] for e in r[2]}) > 1
                                   and "Saccharomyces pastorianus" in {e.metadata["organism"] for e in r[2]})
    assert structured_answer(analyse(question), evidence).text == "Saccharomyces cerevisiae"
    named = read_blast_field(SEQUENCE_ORGANISM, evidence, [], organism="Saccharomyces pastorianus")
    assert named.answer == "Saccharomyces pastorianus"
    where = read_blast_field(ALIGNMENT, evidence, [], organism="Saccharomyces cerevisiae")
    used = where.used[0].metadata
    assert used["organism"] == "Saccharomyces cerevisiae" and used["assembly"].startswith("strain ")
    assert where.answer.splitlines()[0].startswith("chrXV:") and used["assembly"] in where.answer
    # the human genome is not the yeast's: no location unless the yeast is the one asked about
    assert read_blast_field(ALIGNMENT, evidence, []) is None


GENE_NAMES = ["BRCA2", "TP53", "Where is BRCA2 located?", "CARD15", "what is the sequence of FTO",
              "GATA", "ACGT ACGT", "rs1217074595"]


@pytest.mark.parametrize("query", GENE_NAMES)
def test_blast_never_receives_a_gene_name(query, server, live_settings):
    blast = BlastRetriever.from_settings(live_settings())
    with pytest.raises(QueryRejected) as err:
        blast.search(SearchRequest.of(query, 5))
    assert isinstance(err.value, ToolError) and isinstance(err.value, InputError)
    assert str(err.value).startswith("blast: ") and "sequence" in str(err.value)
    assert server.requests == []  # refused before anything was sent
