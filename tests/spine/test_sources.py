"""Sources describe themselves: every registered source can be switched by name, and a new
source is one module plus one registry line, picked up by understanding, planning and
grounding without touching the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from application.catalog import SOURCES
from application.engine import Engine
from biorag.contracts.models import Evidence
from biorag.contracts.sources import ENTITY_KINDS, GENE_IDS, AnswerField, Reading
from biorag.loop.agent import Agent
from biorag.loop.rules_planner import admissible
from biorag.loop.state import LoopState
from biorag.retrieval.retriever import Retriever
from biorag.settings import load_settings
from biorag.understanding.analysis import analyse
from biorag.understanding.search_request import SearchRequest
from tests.spine.records import GENES, RecordRetriever

ROOT = Path(__file__).resolve().parents[2]

# ---- a tiny extra source, registered by the test ------------------------------------
# Real records: HGNC's UniProt accessions of two chr16/chr17 genes (hgnc_complete_set).
UNIPROT = {"PSMB10": "P40306", "TP53": "P04637"}
UNIPROT_FIELD = AnswerField("uniprot_id", "UniProt accession of a gene's protein",
                            ("uniprot", "uniprot id", "uniprot accession", "swiss prot"), GENE_IDS)


class TinyProteinSource(Retriever):
    name = "protein"
    manual = "UniProt accessions of human genes' proteins"
    accepts = GENE_IDS
    answers = (UNIPROT_FIELD,)
    queries: list[str] = []

    @classmethod
    def from_settings(cls, settings):
        return cls()

    def search(self, request: SearchRequest) -> list[Evidence]:
        query = request.text
        TinyProteinSource.queries.append(query)
        acc = UNIPROT.get(query.strip().upper())
        return [Evidence(source="protein", id=acc, title=f"{query} protein", metadata={"gene": query})] if acc else []

    @classmethod
    def read(cls, field, evidence, about):
        wanted = {a.upper() for a in about}
        hits = [ev for ev in evidence if ev.metadata["gene"].upper() in wanted]
        return Reading([ev.id for ev in hits], hits, "UniProt accession") if hits else None


@pytest.fixture
def tiny_source():
    SOURCES.register("protein", "static", f"{__name__}:TinyProteinSource")
    TinyProteinSource.queries = []
    yield
    SOURCES.unregister("protein")


def test_a_registered_source_is_switchable_planned_and_read(tiny_source):
    settings = load_settings(sets=["planner=rules"], enable=["protein"],
                             disable=["gene", "dbsnp", "omim", "blast", "pubmed", "hpo", "geneset", "seqtools", "trrust",
                                      "genome", "mentions"],
                             known_sources=SOURCES.names())
    assert settings.enabled_sources() == ["protein"]
    retrievers = Engine(settings).retrievers(settings, degrade=False)
    assert isinstance(retrievers["protein"], TinyProteinSource)
    for q in ("What is the UniProt accession of TP53?", "uniprot id of tp53", "The Swiss-Prot accession of TP53 is"):
        a = analyse(q, retrievers)
        assert a.intent is not None and [h.source for h in a.intent.hops] == ["protein"], q
        ans = Agent(settings, llm=None, retrievers=retrievers).answer(q)
        assert ans.answer == "P04637" and ans.sufficient, (q, ans.answer)
    # a field that the source does not declare does not route to it
    assert analyse("Which chromosome is TP53 on?", retrievers).intent is None


def test_every_registered_source_switches_off_and_on_by_name():
    known = SOURCES.names()
    assert {"gene", "dbsnp", "omim", "blast", "pubmed", "web", "nucleotide"} <= set(known)
    for name in known:
        off = load_settings(disable=[name], known_sources=known)
        assert name not in off.enabled_sources()
        on = load_settings(enable=[name], known_sources=known)
        assert name in on.enabled_sources()


def test_enable_nucleotide_from_the_cli():
    from typer.testing import CliRunner

    from cli.main import app

    r = CliRunner().invoke(app, ["config", "--enable", "nucleotide"])
    assert r.exit_code == 0, r.output
    assert "nucleotide" in r.output


def test_every_source_declares_what_it_accepts_and_answers():
    for name in SOURCES.names():
        for backend in SOURCES.backends(name):
            cls = SOURCES.retriever_class(name, backend)
            assert cls.accepts, f"{name}/{backend} declares no entity kinds"
            assert cls.answers, f"{name}/{backend} declares no answer fields"
            for f in cls.answers:
                assert f.cues and f.about and f.description, (name, f.name)


def test_the_core_names_no_source():
    # "gene" is also an entity kind, which the core does name
    names = set(SOURCES.names()) - set(ENTITY_KINDS)
    understanding = ("analysis", "question_model", "entity_patterns", "lexicon_lookup", "disease_names",
                     "disease_context", "entity_linking", "intent")
    loop = ("plans", "planner", "rules_planner", "llm_planner", "requests", "state", "grounding", "agent", "compose")
    modules = [*(f"understanding/{m}" for m in understanding), *(f"loop/{m}" for m in loop), "contracts/sources"]
    for module in modules:
        tree = ast.parse((ROOT / "biorag" / f"{module}.py").read_text())
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
        assert not names & strings, f"biorag/{module}.py names {names & strings}"


def test_llm_choices_are_the_sources_that_accept_the_question():
    rs = {n: RecordRetriever(n, GENES if n == "gene" else []) for n in ("gene", "dbsnp", "omim", "blast", "pubmed")}
    gene_q = LoopState("Where is BRCA2 located?", analyse("Where is BRCA2 located?", rs), rs)
    assert admissible(gene_q) == ["gene", "pubmed"]
    free = LoopState("How do microglia respond to amyloid plaques?",
                     analyse("How do microglia respond to amyloid plaques?", rs), rs)
    assert admissible(free) == ["pubmed"]
    seq = "Which organism does this come from: ACGTACGTTAGCATGCATCGATCGTAGCTAGC"
    assert admissible(LoopState(seq, analyse(seq, rs), rs)) == ["blast", "pubmed"]
