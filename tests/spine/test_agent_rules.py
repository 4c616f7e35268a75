"""The loop with the rules planner over real records (no LLM needed for these paths)."""

import pytest

from biorag.contracts.errors import ConfigError, InputError
from biorag.loop.agent import Agent
from biorag.loop.plans import Rewrite, Selection, Verdict
from biorag.loop.rules_planner import RulesPlanner
from biorag.settings import load_settings
from tests.spine.records import GENES, SNP, RecordRetriever


def _agent(*, disable=(), sets=(), records=None):
    settings = load_settings(sets=["planner=rules", *sets], disable=list(disable))
    retrievers = {
        "gene": RecordRetriever("gene", GENES),
        "dbsnp": RecordRetriever("dbsnp", [SNP]),
    }
    retrievers = {k: v for k, v in retrievers.items() if settings.sources[k].enabled}
    return Agent(settings, llm=None, retrievers=retrievers), retrievers


def test_single_hop_answer_is_read_from_the_record():
    agent, rs = _agent()
    events = []
    ans = agent.answer("What is the official gene symbol of LMP10?", on_event=events.append)
    assert ans.answer == "PSMB10" and ans.sufficient and ans.rounds == 1
    assert [c.id for c in ans.citations] == ["5699"]
    assert [e.step for e in ans.trace] == ["select", "rewrite", "retrieve", "evaluate", "generate"]
    assert events == ans.trace  # streamed as they happened, same order
    assert ans.trace[2].query == "LMP10" and ans.trace[2].hits == ["gene:5699"]
    assert ans.config["planner"] == "rules" and ans.timings.total_ms > 0


def test_multi_hop_snp_then_gene():
    agent, rs = _agent()
    ans = agent.answer("What is the function of the gene associated with SNP rs1217074595?")
    retrieved = [(e.retriever, e.query) for e in ans.trace if e.step == "retrieve"]
    assert retrieved == [("dbsnp", "rs1217074595"), ("gene", "LINC01270")]
    # LINC01270's record holds no summary and no GO/Reactome terms: its name line is no
    # function, so nothing answers and the loop says so
    assert [e.decision for e in ans.trace if e.step == "evaluate"] == ["NO", "NO"]
    assert not ans.sufficient and "long intergenic" not in ans.answer


def test_multi_hop_answers_the_function_when_the_gene_record_holds_one():
    processes = [{"id": "GO:0006096", "name": "glycolytic process", "evidence": "IDA,IEA"}]  # PFKL, NCBI gene2go
    genes = [g.model_copy(update={"metadata": {**g.metadata, "processes": processes}}) if g.id == "5211" else g
             for g in GENES]
    snp = SNP.model_copy(update={"metadata": {**SNP.metadata, "genes": ["PFKL"]}})
    agent = Agent(load_settings(sets=["planner=rules"]), llm=None,
                  retrievers={"gene": RecordRetriever("gene", genes), "dbsnp": RecordRetriever("dbsnp", [snp])})
    ans = agent.answer("What is the function of the gene associated with SNP rs1217074595?")
    assert [e.decision for e in ans.trace if e.step == "evaluate"] == ["NO", "YES"]
    assert ans.sufficient and ans.answer.startswith("PFKL: ") and "glycolytic process (GO:0006096" in ans.answer


def test_self_eval_off_means_one_round():
    agent, _ = _agent(disable=["self_eval"])
    ans = agent.answer("What is the function of the gene associated with SNP rs1217074595?")
    assert ans.rounds == 1
    assert [e.step for e in ans.trace] == ["select", "rewrite", "retrieve", "generate"]
    # the gene hop never ran, so the function is not known: no structured answer
    assert not ans.answer.startswith("LINC01270:")


def test_query_rewrite_off_sends_the_question_verbatim():
    agent, rs = _agent(disable=["query_rewrite"])
    q = "What is the official gene symbol of LMP10?"
    ans = agent.answer(q)
    rewrite = [e for e in ans.trace if e.step == "rewrite"][0]
    assert rewrite.details["rewrite"] == "off" and rewrite.query == q
    assert rs["gene"].queries[0] == q


def test_disabled_source_is_never_called():
    agent, rs = _agent(disable=["gene"])
    ans = agent.answer("What is the official gene symbol of LMP10?")
    assert "gene" not in rs
    assert all(e.retriever != "gene" for e in ans.trace)
    assert "gene" not in [r for r in ans.config["sources"] if ans.config["sources"][r]["enabled"]]


def test_round_cap_and_best_attempt():
    # a gene the records do not hold: every round fails, the cap ends the loop
    agent, rs = _agent(sets=["max_rounds=1"])
    ans = agent.answer("Which chromosome does SNP rs999 locate on human genome?")
    assert ans.rounds == 1 and not ans.sufficient and ans.best_attempt
    assert ans.answer.startswith("Insufficient evidence after 1 round(s)")


def test_bad_questions():
    agent, _ = _agent()
    with pytest.raises(InputError, match="empty"):
        agent.answer("   ")
    with pytest.raises(InputError, match="limit"):
        agent.answer("x" * 5000)


def test_no_source_enabled_is_a_config_error():
    settings = load_settings(sets=["planner=rules"])
    with pytest.raises(ConfigError, match="every source is disabled"):
        Agent(settings, retrievers={}).answer("What is TP53?")


class _StuckPlanner(RulesPlanner):
    """Always proposes the same lookup, as a confused LLM planner does."""

    def select(self, state):
        return Selection("gene", "try again", "llm")

    def rewrite(self, state, selection, with_mesh):
        return Rewrite("NOSUCHGENE1", [], "llm")

    def evaluate(self, state):
        return Verdict(False, "nothing found", "llm")


def test_repeated_query_is_not_rerun_and_the_loop_gives_up():
    settings = load_settings(sets=["max_rounds=10"])
    gene = RecordRetriever("gene", GENES)
    agent = Agent(settings, retrievers={"gene": gene}, planner=_StuckPlanner())
    ans = agent.answer("Where do immunoproteasome genes sit?")
    assert gene.queries == ["NOSUCHGENE1"]  # run once, never again
    repeats = [e for e in ans.trace if e.step == "rewrite" and not e.ok]
    assert len(repeats) == 2 and "repeats an earlier gene query" in repeats[0].error
    assert ans.rounds == 3 and not ans.sufficient and ans.answer.startswith("Insufficient evidence")
    assert "no source returned evidence" in ans.answer


class _MeshAware(RecordRetriever):
    """A literature-like source that honours MeSH filters; records what it was given."""

    supports_mesh = True

    def __init__(self):
        super().__init__("pubmed", GENES)
        self.filters = []

    def search(self, request):
        query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
        self.filters.append(filters)
        return GENES[:1]


@pytest.mark.parametrize("mesh_on", [True, False])
def test_mesh_filter_switch(mesh_on):
    settings = load_settings(sets=["planner=rules"], disable=[] if mesh_on else ["mesh_filter"])
    src = _MeshAware()
    ans = Agent(settings, retrievers={"pubmed": src}).answer("Is tau protein phosphorylation increased in Alzheimer Disease?")
    rewrite = next(e for e in ans.trace if e.step == "rewrite")
    retrieve = next(e for e in ans.trace if e.step == "retrieve")
    if mesh_on:
        # descriptors named in the question, validated against the MeSH vocabulary
        assert "Alzheimer Disease" in rewrite.mesh and retrieve.mesh == rewrite.mesh
        assert "Alzheimer Disease" in src.filters[0].mesh
    else:
        assert rewrite.mesh == [] and retrieve.mesh == [] and [f.mesh for f in src.filters] == [[]]


class _ProposingPlanner(RulesPlanner):
    def rewrite(self, state, selection, with_mesh):
        return Rewrite("tau phosphorylation", ["Alzheimer Disease", "Tauopathy Of Made-Up Things"], "llm")


def test_planner_mesh_proposals_are_validated_and_rejections_reported():
    settings = load_settings(disable=["self_eval"])
    src = _MeshAware()
    ans = Agent(settings, retrievers={"pubmed": src}, planner=_ProposingPlanner()).answer("What about tau?")
    rewrite = next(e for e in ans.trace if e.step == "rewrite")
    assert rewrite.mesh == ["Alzheimer Disease"]
    assert rewrite.details["mesh_source"] == "planner"
    assert rewrite.details["mesh_rejected"] == ["Tauopathy Of Made-Up Things"]
    assert src.filters[0].mesh == ["Alzheimer Disease"]
