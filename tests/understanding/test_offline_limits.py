"""A record field asked of an identifier that no offline record holds (an rsID outside the
store's ClinVar variants and the recording, a sequence no recorded BLAST search holds) is
answered in one line that says which source was not searched offline, at once; the
literature is never asked in its place. An rsID the store holds is answered from it.

The rsIDs come from the bundled ClinVar subset (indexing/resources/clinvar): those it holds
are answered with their chromosome; the unheld one is an rsID number past any in dbSNP."""

from __future__ import annotations

import gzip
import random
import time

from biorag.loop.rules_planner import RulesPlanner
from biorag.loop.state import LoopState
from biorag.understanding.analysis import analyse
from indexing.gene_annotations import CLINVAR_VCF


def _held(n: int) -> list[tuple[str, str]]:
    out = []
    with gzip.open(CLINVAR_VCF, "rt") as f:
        for line in f:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            rs = next((x[3:] for x in cols[7].split(";") if x.startswith("RS=")), None)
            if rs:
                out.append((f"rs{rs}", f"chr{cols[0]}"))
    return random.Random(4).sample(sorted(set(out)), n)


def test_held_rsids_are_answered_from_the_store(agent):
    for rsid, chrom in _held(5):
        for q in (f"{rsid} is located on which chromosome?", f"Which chromosome does SNP {rsid} locate on?"):
            answer = agent.answer(q)
            assert answer.answer.splitlines()[0] == chrom, (q, answer.answer)


def test_an_rsid_no_offline_record_holds_gets_one_plain_line(agent):
    for q in ("rs99999999991 is located on which chromosome?", "Which chromosome is rs99999999991 on?"):
        t0 = time.perf_counter()
        answer = agent.answer(q)
        assert time.perf_counter() - t0 < 1.0
        assert not answer.sufficient
        assert len(answer.answer.splitlines()) == 1
        assert "dbsnp" in answer.answer and "tool_io.mode" in answer.answer, answer.answer
        assert not answer.citations


class _Literature:
    name = "pubmed"
    accepts = ("free_text",)
    answers = ()


def test_the_literature_is_not_asked_for_an_identifiers_record(agent):
    sources = {**agent.retrievers, "pubmed": _Literature()}
    for q in ("rs99999999991 is located on which chromosome?",
              "Which organism does this DNA sequence come from? ATGGTCACTTTTGAGACAGTTATGGAAATTAAAATCC"):
        state = LoopState(q, analyse(q, sources, agent.lexicon), sources)
        for source in list(agent.retrievers):  # every record source already asked
            for e in state.analysis.entities:
                state.attempts.append(type("A", (), {"retriever": source, "query": e.text})())
        assert RulesPlanner().fallback(state) is None
    open_question = "What causes Alzheimer disease?"
    state = LoopState(open_question, analyse(open_question, sources, agent.lexicon), sources)
    assert RulesPlanner().fallback(state) is not None
