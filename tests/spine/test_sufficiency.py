"""Sufficiency follows the evidence: one guard in the agent loop, whatever the planner or
the self_eval switch says (biorag/loop/sufficiency.py). Real NCBI records (tests/spine/records),
the real BLAST retriever's input check, the real embedded model for the llm/hybrid planners."""

from __future__ import annotations

import logging

import pytest

from biorag.contracts.errors import InputError, NotRecorded
from biorag.contracts.models import Evidence
from biorag.loop.agent import Agent
from biorag.loop.grounding import supported, verify_claims
from biorag.loop.plans import Rewrite, Selection, Verdict
from biorag.loop.rules_planner import RulesPlanner
from biorag.loop.sufficiency import missing_entities
from biorag.settings import load_settings
from biorag.understanding.analysis import Analysis, Entity
from biorag.understanding.search_request import SearchRequest
from tests.spine.records import GENES, SNP, RecordRetriever


class YesPlanner(RulesPlanner):
    """Routes like the rules but always judges the evidence sufficient: the guard must
    overrule it."""

    def evaluate(self, state):
        return Verdict(True, "", "rules")


class Unrecorded(RecordRetriever):
    """A tool whose every call fails the way a replay miss does."""

    def search(self, request):
        query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
        self.queries.append(query)
        raise NotRecorded(self.name, f"no recorded response for '{query}'")


def _records():
    return {"gene": RecordRetriever("gene", GENES), "dbsnp": RecordRetriever("dbsnp", [SNP])}


NO_EVIDENCE_QUESTIONS = [
    "What is the function of ZQX99?",  # a gene that does not exist
    "What is the official gene symbol of ZQX99?",
    "Which gene is SNP rs999999999 associated with?",  # an rsID the records lack
]


@pytest.mark.parametrize("question", NO_EVIDENCE_QUESTIONS)
@pytest.mark.parametrize("self_eval", [True, False])
@pytest.mark.parametrize("failing", [False, True], ids=["empty", "every-call-fails"])
def test_a_yes_without_evidence_is_overruled(question, self_eval, failing):
    settings = load_settings(sets=["max_rounds=3"], disable=[] if self_eval else ["self_eval"])
    retrievers = {"gene": Unrecorded("gene", GENES), "dbsnp": Unrecorded("dbsnp", [SNP])} if failing else _records()
    agent = Agent(settings, retrievers=retrievers, planner=YesPlanner())
    ans = agent.answer(question)
    assert not ans.sufficient and ans.citations == []
    assert ans.answer.lower().startswith("insufficient evidence") and "ZQX99" not in ans.answer.split(":", 1)[1]
    gen = ans.trace[-1]
    assert gen.step == "generate" and gen.decision == "no_evidence"
    for ev in ans.trace:
        if ev.step == "evaluate":  # the planner was never asked: nothing to judge
            assert ev.decision == "NO" and ev.details["by"] == "evidence_guard"
    if failing:
        assert all(not e.ok for e in ans.trace if e.step == "retrieve")


@pytest.mark.parametrize("self_eval", [True, False])
def test_rules_planner_without_evidence(self_eval):
    settings = load_settings(sets=["planner=rules", "max_rounds=3"], disable=[] if self_eval else ["self_eval"])
    ans = Agent(settings, retrievers=_records()).answer("What is the official gene symbol of ZQX99?")
    assert not ans.sufficient and ans.answer.startswith("Insufficient evidence")


@pytest.mark.llm
@pytest.mark.parametrize("planner", ["llm", "hybrid"])
@pytest.mark.parametrize("self_eval", [True, False])
def test_model_planners_without_evidence(planner, self_eval):
    from biorag.llm import make_llm

    settings = load_settings(sets=[f"planner={planner}", "max_rounds=2", "llm.max_tokens=96"],
                             disable=[] if self_eval else ["self_eval"])
    agent = Agent(settings, llm=make_llm(settings), retrievers=_records())
    ans = agent.answer("What is the function of ZQX99?")  # a gene that does not exist
    assert not ans.sufficient, ans.answer
    assert ans.answer.startswith("Insufficient evidence") and ans.citations == []
    assert all(e.decision != "YES" for e in ans.trace if e.step == "evaluate")


def test_evidence_that_never_names_the_asked_gene_is_not_sufficient():
    """The YES planner finds TP53's record for a question about ZQX99 (a gene that does not
    exist): the guard sees the question's gene nowhere in the evidence."""
    tp53 = [g for g in GENES if g.metadata["symbol"] == "TP53"]

    class Always(RecordRetriever):
        def search(self, request):
            query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
            self.queries.append(query)
            return tp53

    for sets in (["max_rounds=2"], ["max_rounds=2", "generation.mode=llm"]):
        retrievers = {name: Always(name, tp53) for name in ("gene", "pubmed")}  # whichever is routed to
        agent = Agent(load_settings(sets=sets), retrievers=retrievers, planner=YesPlanner())
        ans = agent.answer("What is the function of ZQX99?")
        assert not ans.sufficient and "no evidence mentions ZQX99" in ans.answer
        evaluate = [e for e in ans.trace if e.step == "evaluate"]
        assert evaluate and all(e.decision == "NO" and e.details["overruled"] == "rules said YES" for e in evaluate)
        assert ans.trace[-1].decision == "insufficient"


@pytest.mark.parametrize("question, entity", [
    ("What does IL6 do in microglia?", "IL6"),
    ("Is APOE4 a risk factor?", "APOE4"),
    ("what is tp53", "tp53"),
    ("Is the p-53 protein mutated?", "p-53"),
])
def test_entity_mentions_allow_case_hyphen_and_spacing_variants(question, entity):
    ev = [Evidence(source="pubmed", id="1", text="Interleukin IL-6 and the APOE ε4 allele; TP53 and p53 mutations.")]
    a = Analysis(question=question, core=question, entities=[Entity("gene", entity, confident=False)])
    assert missing_entities(a, ev) == []
    assert missing_entities(a, [Evidence(source="pubmed", id="2", text="Unrelated text about kinases.")]) == [entity]


def test_a_claim_found_only_in_the_question_is_removed():
    psmb10 = [g for g in GENES if g.metadata["symbol"] == "PSMB10"]
    draft = "PSMB10 is an immunoproteasome subunit [gene:5699]. ZQX99 binds PSMB10 on 7q11.2."
    kept, bad = verify_claims(draft, psmb10)
    assert kept == "PSMB10 is an immunoproteasome subunit [gene:5699]."
    assert set(bad) == {"ZQX99", "7q11.2"}
    assert not supported("ZQX99", psmb10) and supported("PSMB10", psmb10)
    with pytest.raises(TypeError):  # the question is no longer an argument: it cannot vouch
        verify_claims(draft, psmb10, "Does ZQX99 bind PSMB10 on 7q11.2?")


def test_a_source_rejecting_its_input_is_a_trace_event_not_a_traceback(caplog):
    """The real BLAST retriever refuses a gene name (no HTTP is made)."""
    from retrievers.blast.retriever import BlastRetriever

    class ToBlast(RulesPlanner):
        def select(self, state):
            if state.attempts:
                from biorag.loop.plans import PlanExhausted

                raise PlanExhausted("done")
            return Selection("blast", "test", "rules")

        def rewrite(self, state, selection, with_mesh):
            return Rewrite("BRCA2", [], "rules")

    settings = load_settings(sets=["tool_io.mode=replay"])
    blast = BlastRetriever.from_settings(settings)
    with pytest.raises(InputError) as refused:  # what the source itself says
        blast.search(SearchRequest.of("BRCA2", 5))
    reason = str(refused.value).removeprefix("blast: ")
    agent = Agent(settings, retrievers={"blast": blast}, planner=ToBlast())
    with caplog.at_level(logging.DEBUG):
        ans = agent.answer("Where is BRCA2 located?")
    retrieve = [e for e in ans.trace if e.step == "retrieve"][0]
    assert not retrieve.ok and retrieve.details["error_type"] == type(refused.value).__name__
    assert retrieve.error == f"blast rejected the query: {reason}" and reason
    assert not [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]
    assert not ans.sufficient and ans.answer.startswith("Insufficient evidence")


def test_an_unexpected_crash_is_one_warning_line_and_a_debug_traceback(caplog):
    class Broken(RecordRetriever):
        def search(self, request):
            query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
            return {}["missing key"]  # a real bug in a tool

    agent = Agent(load_settings(sets=["planner=rules", "max_rounds=1"]), retrievers={"gene": Broken("gene", GENES)})
    with caplog.at_level(logging.DEBUG, logger="biorag.loop.agent"):
        ans = agent.answer("What is the official gene symbol of LMP10?")
    retrieve = [e for e in ans.trace if e.step == "retrieve"][0]
    assert not retrieve.ok and retrieve.error == "gene: unexpected KeyError: 'missing key'"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and warnings[0].exc_info is None and "\n" not in warnings[0].getMessage()
    assert [r for r in caplog.records if r.levelno == logging.DEBUG and r.exc_info]
    assert not ans.sufficient


def test_a_low_confidence_token_beside_a_confident_entity_is_not_required():
    ev = [g for g in GENES if g.metadata["symbol"] == "TP53"]
    q = "what's the ENSG for TP53"
    both = Analysis(question=q, core=q, entities=[Entity("gene", "TP53"), Entity("gene", "ENSG", confident=False)])
    assert missing_entities(both, ev) == []
    alone = Analysis(question=q, core=q, entities=[Entity("gene", "ENSG", confident=False)])
    assert missing_entities(alone, ev) == ["ENSG"]
    confident_missing = Analysis(question=q, core=q, entities=[Entity("gene", "ZQX99"), Entity("gene", "TP53")])
    assert missing_entities(confident_missing, ev) == ["ZQX99"]


def test_an_initialism_asked_in_the_plural_is_mentioned_in_the_singular():
    """A question writes "SSRIs"; the abstract (PubMed 21873225, a sentence of it) writes
    "SSRI": the evidence mentions it (it was "no evidence mentions SSRIs")."""
    text = ("In mice, brain interstitial fluid (ISF) Aβ levels were decreased by 25% following administration of "
            "several selective serotonin reuptake inhibitor (SSRI) antidepressant drugs.")
    q = "Do SSRIs lower amyloid-beta levels?"
    a = Analysis(question=q, core=q, entities=[Entity("gene", "SSRIs", confident=False)])
    assert missing_entities(a, [Evidence(source="pubmed", id="1", text=text)]) == []
    assert missing_entities(a, [Evidence(source="pubmed", id="2", text="Unrelated text about kinases.")]) == ["SSRIs"]
    lower = Analysis(question=q, core=q, entities=[Entity("gene", "kinases", confident=False)])
    assert missing_entities(lower, [Evidence(source="pubmed", id="3", text="A kinase was found.")]) == ["kinases"]


def test_a_versioned_id_matches_the_record_without_its_version():
    ev = [g for g in GENES if g.metadata["symbol"] == "TP53"]
    q = "Which gene is ENSG00000141510.17?"
    a = Analysis(question=q, core=q, entities=[Entity("ensembl", "ENSG00000141510.17")])
    assert missing_entities(a, ev) == []


def test_genes_named_one_by_one_are_not_named_again_as_their_list():
    """"Which is the target of teplizumab: CD3, CD20 or PD-1?" read three genes and their list;
    evidence naming none of them is missing each gene once, not also "CD20 CD3 PD-1"."""
    from biorag.understanding.typed_entities import Member

    genes = [Entity("gene", name) for name in ("CD3", "CD20", "PD-1")]
    listed = Entity("gene_list", "CD20 CD3 PD-1", members=tuple(Member(g.text) for g in genes))
    q = "Which is the target of teplizumab: CD3, CD20 or PD-1?"
    a = Analysis(question=q, core=q, entities=[*genes, listed])
    ev = [Evidence(source="pubmed", id="2", text="Unrelated text about kinases.")]
    assert missing_entities(a, ev) == ["CD3", "CD20", "PD-1"]
    only_list = Analysis(question=q, core=q, entities=[listed])
    assert missing_entities(only_list, ev) == ["CD20 CD3 PD-1"]  # a list alone is still named
