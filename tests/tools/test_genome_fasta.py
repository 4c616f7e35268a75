"""The `genome` source: the sequence at a region of a reference FASTA given with
`genome.fasta`, read through a .fai index or one built on first use; without a FASTA the
answer names the setting at once.

The reference is a real one: the Yersinia pestis pPCP1 plasmid (tests/data/sequences,
PROVENANCE there), named chr1 here; the regions the CDS file's headers give must read back
as those CDSs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from application.catalog import registered_sources
from application.engine import build_agent
from biorag.contracts.errors import NoRecord, NotBuilt, QueryRejected
from biorag.knowledge.sequence_tools import reverse_complement
from biorag.settings import load_settings
from biorag.understanding.search_request import SearchRequest
from retrievers.genome.retriever import FastaIndex, GenomeRetriever
from tests.tools.test_sequence_tools import DATA, _fasta

PLASMID = "".join(line.strip() for line in (DATA / "NC_005816.fna").read_text().splitlines() if not line.startswith(">"))
CDS = [(re.search(r":(c?)(\d+)-(\d+) ", head).groups(), seq) for head, seq in _fasta(DATA / "NC_005816.ffn")]


def _write(path: Path, name: str, width: int, fai: bool) -> Path:
    lines = [f">{name} Yersinia pestis plasmid pPCP1 (NC_005816.1)"]
    lines += [PLASMID[i:i + width] for i in range(0, len(PLASMID), width)]
    path.write_text("\n".join(lines) + "\n")
    if fai:  # what `samtools faidx` writes: name, length, offset, bases per line, bytes per line
        offset = len(lines[0]) + 1
        Path(str(path) + ".fai").write_text(f"{name}\t{len(PLASMID)}\t{offset}\t{width}\t{width + 1}\n")
    return path


@pytest.fixture(params=[("chr1", 70, False), ("1", 60, True), ("chr1", 13, True)], ids=["scan", "fai", "narrow"])
def fasta(request, tmp_path):
    name, width, fai = request.param
    return _write(tmp_path / "genome.fa", name, width, fai)


def test_regions_read_back_as_the_cdss_they_hold(fasta):
    index = FastaIndex(fasta)
    name = index.name_of("chr1")
    assert name is not None
    for (minus, a, b), seq in CDS:
        lo, hi = sorted((int(a), int(b)))
        got = index.fetch(name, lo, hi)
        assert (reverse_complement(got) if minus else got) == seq
    assert index.fetch(name, 1, 10) == PLASMID[:10]
    assert index.fetch(name, len(PLASMID) - 4, len(PLASMID)) == PLASMID[-5:]


def test_the_source_answers_a_region_and_refuses_bad_ones(fasta):
    source = GenomeRetriever(str(fasta))
    (ev,) = source.search(SearchRequest.of("chr1:87-1109"))
    assert ev.metadata["sequence"] == CDS[0][1] and ev.id == "GRCh38:chr1:87-1109"
    with pytest.raises(QueryRejected, match="runs past the end"):
        source.search(SearchRequest.of(f"chr1:9000-{len(PLASMID) + 5}"))
    with pytest.raises(QueryRejected, match="not a region"):
        source.search(SearchRequest.of("TP53"))


def test_without_a_fasta_the_source_names_the_setting(tmp_path):
    """Not set up on this machine (NotBuilt: the API's 404 "not available on this server"),
    with the setting that sets it up; a chromosome the FASTA lacks holds no record."""
    with pytest.raises(NotBuilt, match="genome.fasta"):
        GenomeRetriever(None).search(SearchRequest.of("chr1:100-200"))
    with pytest.raises(NotBuilt, match="genome.fasta"):
        GenomeRetriever(str(tmp_path / "missing.fa")).search(SearchRequest.of("chr1:100-200"))
    fasta = _write(tmp_path / "one.fa", "chr1", 70, False)
    with pytest.raises(NoRecord, match="chr2 is not in"):
        GenomeRetriever(str(fasta)).search(SearchRequest.of("chr2:100-200"))
    with pytest.raises(QueryRejected, match="not after the end"):  # the query's fault, said first
        GenomeRetriever(None).search(SearchRequest.of("chr1:200-100"))


def _agent(store_path: Path, *sets: str):
    return build_agent(load_settings(
        sets=["planner=rules", f"gene_store={store_path}", "sources.gene.backend=local", "tool_io.mode=replay",
              "max_rounds=4", *sets],
        disable=["pubmed", "web"], known_sources=registered_sources()))


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    from cli.commands.data import build_store
    from indexing.gene_store_build import snapshot_paths

    path = tmp_path_factory.mktemp("genome-store") / "gene_store.sqlite"
    build_store(path, dict(snapshot_paths()), diseases=False)
    return path


QUESTIONS = [
    "What is the DNA sequence at chr1:87-1109?",
    "DNA sequence of chr1:87-1,109",
    "Give me the sequence of chromosome 1: 87 - 1109, please.",
    "chr1:87-1109 sequence?",
    "Write a computer program that answers: what is the sequence at chr1:87-1109?",
]


def test_region_questions_with_and_without_a_genome(store_path, tmp_path):
    fasta = _write(tmp_path / "genome.fa", "chr1", 70, False)
    agent = _agent(store_path, f"genome.fasta={fasta}")
    try:
        for q in QUESTIONS:
            answer = agent.answer(q)
            assert answer.answer.splitlines()[0] == CDS[0][1], (q, answer.answer[:200])
            assert answer.sufficient
    finally:
        for r in agent.retrievers.values():
            r.close()
    bare = _agent(store_path)
    try:
        for q in QUESTIONS:
            answer = bare.answer(q)
            assert answer.rounds == 1, answer.trace  # refused at once, not after trying other sources
            assert not answer.sufficient and "genome.fasta" in answer.answer, answer.answer
            assert not any(c.source == "pubmed" for c in answer.citations)
    finally:
        for r in bare.retrievers.values():
            r.close()
