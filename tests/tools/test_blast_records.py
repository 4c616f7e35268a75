"""BLAST answers read from the real reports in the bundled recording (2023 NCBI BLAST, nt):
alignments are reported on chromosome records of a named assembly, never on a clone's local
coordinates; ties between equal hits go to the organism the question names, else human, else
the organism most tied hits come from; and BLAST never receives a gene name."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from biorag.errors import InputError, QueryRejected, ToolError
from retrievers.blast import (
    ALIGNMENT,
    SEQUENCE_ORGANISM,
    BlastRetriever,
    blast_evidence,
    parse_report,
    read_blast_field,
)
from retrievers.http_store import BUNDLED_CASSETTE
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
def test_alignment_is_on_a_named_assembly_chromosome_or_insufficient(rid, question, evidence):
    answer = structured_answer(analyse(question), evidence)
    top = max(map(_bits, evidence))
    eligible = [e for e in evidence if e.metadata["organism"] == "Homo sapiens" and e.metadata["chromosome_record"]
                and e.metadata["assembly"] and _bits(e) >= top]
    if not eligible:
        assert answer is None, answer.text  # clones/contigs/feature records only: say so, don't guess
        return
    (used,) = answer.used
    assert used in eligible
    md = used.metadata
    lo, hi = sorted((md["subject_start"], md["subject_end"]))
    first, second = answer.text.splitlines()
    assert first == f"chr{md['chromosome']}:{lo}-{hi}"
    assert md["assembly"] in second and "Homo sapiens" in second


def test_clone_coordinates_and_a_close_relative_never_answer_where():
    """The report where the best hit is a human PAC clone and the next ones are chimpanzee
    BAC clones: no human chromosome record, so no location; the organism is human."""
    rid, question, evidence = next(r for r in ALIGN if {e.metadata["organism"] for e in r[2]} >= {"Homo sapiens", "Pan troglodytes"})
    assert structured_answer(analyse(question), evidence) is None
    organism_q = "Which organism does the DNA sequence come from:" + question.split(":", 1)[1]
    assert structured_answer(analyse(organism_q), evidence).text == "Homo sapiens"


def test_answered_alignments_name_t2t_chm13_when_no_grch38_record_was_returned():
    answered = [structured_answer(analyse(q), ev) for _, q, ev in ALIGN]
    named = Counter(a.text.splitlines()[1].split()[1] for a in answered if a is not None)
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
        blast.search(query, 5)
    assert isinstance(err.value, ToolError) and isinstance(err.value, InputError)
    assert str(err.value).startswith("blast: ") and "sequence" in str(err.value)
    assert server.requests == []  # refused before anything was sent
