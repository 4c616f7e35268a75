"""Every branch of the loop, driven by a scripted model (tests/scripted_llm.py) through the
LLM planner over real gene records: fast and deterministic. The real model's tests stay in
test_llm_embedded.py and the serving tests."""

from __future__ import annotations

import pytest

from biorag.contracts.errors import LLMError, SourceUnavailable, ToolError
from biorag.loop.agent import MAX_CONSECUTIVE_FAILURES, Agent
from biorag.settings import load_settings
from tests.scripted_llm import ScriptedLLM, ScriptError, unreachable
from tests.spine.records import GENES, SNP, RecordRetriever

Q = "What is the official gene symbol of LMP10?"


def select(name="gene"):
    return {"retriever": name, "reason": "the question names a gene"}


def rewrite(query):
    return {"query": query, "mesh_terms": []}


def verdict(yes, missing=""):
    return {"verdict": "YES" if yes else "NO", "missing": missing}


class FailingOnce(RecordRetriever):
    """The gene source whose first search fails with `error`."""

    def __init__(self, error: Exception):
        super().__init__("gene", GENES)
        self.error = error

    def search(self, request):
        query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
        if self.error is not None:
            self.queries.append(query)
            err, self.error = self.error, None
            raise err
        return super().search(request)


def run(script, question=Q, *, disable=(), sets=(), gene=None):
    llm = ScriptedLLM(script)
    settings = load_settings(sets=["planner=llm", *sets], disable=list(disable))
    retrievers = {"gene": gene or RecordRetriever("gene", GENES), "dbsnp": RecordRetriever("dbsnp", [SNP])}
    ans = Agent(settings, llm=llm, retrievers=retrievers).answer(question)
    assert llm.left == 0, f"{llm.left} scripted replies were never asked for"
    return ans, llm, retrievers


def steps(ans):
    return [(e.round, e.step, e.ok) for e in ans.trace]


def test_select_rewrite_retrieve_evaluate_yes():
    ans, llm, rs = run([select(), rewrite("LMP10"), verdict(True)])
    assert ans.answer == "PSMB10" and ans.sufficient and ans.rounds == 1
    assert steps(ans) == [(1, "select", True), (1, "rewrite", True), (1, "retrieve", True),
                          (1, "evaluate", True), (1, "generate", True)]
    assert [c.schema_title for c in llm.calls] == ["RetrieverChoice", "_RewriteOut", "_VerdictOut"]
    assert rs["gene"].queries == ["LMP10"] and ans.trace[2].hits == ["gene:5699"]
    assert all(e.details.get("by") == "llm" for e in ans.trace if e.step in ("select", "rewrite", "evaluate"))


def test_a_no_sends_the_loop_round_again_with_what_is_missing():
    ans, llm, rs = run([select(), rewrite("LMP10"), verdict(False, "the approved symbol"),
                        select(), rewrite("PSMB10"), verdict(True)])
    assert [e.decision for e in ans.trace if e.step == "evaluate"] == ["NO", "YES"]
    assert ans.rounds == 2 and ans.sufficient and rs["gene"].queries == ["LMP10", "PSMB10"]
    assert "still missing: the approved symbol" in llm.calls[3].prompt  # the second select sees it


def test_no_evidence_is_a_no_without_asking_the_model():
    ans, llm, rs = run([select(), rewrite("LMP10 gene"), select(), rewrite("LMP10"), verdict(True)])
    first = next(e for e in ans.trace if e.step == "evaluate")
    assert first.decision == "NO" and first.details["by"] == "evidence_guard"
    assert [c.schema_title for c in llm.calls].count("_VerdictOut") == 1 and ans.sufficient


def test_unparseable_output_is_retried_then_a_failed_step():
    bad = ["not json at all", '{"retriever": "web"}', "```json\n{\"reason\": \"no retriever\"}\n```"]
    ans, llm, rs = run([*bad, select(), rewrite("LMP10"), verdict(True)])
    failed = ans.trace[0]
    assert (failed.step, failed.ok, failed.round) == ("select", False, 1)
    assert "did not match RetrieverChoice after 3 attempts" in failed.error and failed.details["raw"] == bad
    assert "That was not valid" in llm.calls[1].prompt  # the retry shows the model its error
    assert ans.sufficient and ans.rounds == 2  # the next round tried again


def test_a_retry_that_validates_is_the_step():
    ans, llm, _ = run(["{oops", select(), rewrite("LMP10"), verdict(True)])
    assert ans.trace[0].ok and ans.trace[0].details["raw"][0] == "{oops" and ans.rounds == 1


def test_consecutive_failed_steps_end_the_loop():
    ans, llm, rs = run(["nonsense"] * 3 * MAX_CONSECUTIVE_FAILURES, sets=["max_rounds=10"])
    assert [(e.step, e.ok) for e in ans.trace] == [("select", False)] * MAX_CONSECUTIVE_FAILURES + [("generate", True)]
    assert not ans.sufficient and ans.answer.startswith("Insufficient evidence after 2 round(s)")
    assert rs["gene"].queries == []


def test_a_repeated_query_is_not_run_again():
    ans, llm, rs = run([select(), rewrite("LMP10 gene"), select(), rewrite("lmp10 gene "),
                        select(), rewrite("LMP10"), verdict(True)])
    repeat = [e for e in ans.trace if e.step == "rewrite"][1]
    assert not repeat.ok and "repeats an earlier gene query" in repeat.error
    assert rs["gene"].queries == ["LMP10 gene", "LMP10"] and ans.sufficient and ans.rounds == 3


def test_max_rounds_end_the_loop():
    ans, llm, rs = run([select(), rewrite("LMP10 gene"), select(), rewrite("LMP10 protein")], sets=["max_rounds=2"])
    assert ans.rounds == 2 and not ans.sufficient and ans.best_attempt
    assert ans.answer.startswith("Insufficient evidence after 2 round(s)")
    assert len([e for e in ans.trace if e.step == "select"]) == 2


def test_a_tool_error_is_an_event_and_the_loop_goes_on():
    gene = FailingOnce(ToolError("gene", "HTTP 503 from E-utilities"))
    ans, llm, rs = run([select(), rewrite("LMP10"), select(), rewrite("PSMB10"), verdict(True)], gene=gene)
    failed = next(e for e in ans.trace if e.step == "retrieve")
    assert not failed.ok and failed.error == "gene: HTTP 503 from E-utilities"
    assert failed.details["error_type"] == "ToolError" and "gene('LMP10') failed: gene: HTTP 503" in llm.calls[2].prompt
    assert ans.sufficient and ans.answer == "PSMB10"


def test_an_unavailable_source_is_named_in_an_insufficient_answer():
    gene = FailingOnce(SourceUnavailable("gene", "the gene store is held by another process"))
    ans, llm, rs = run([select(), rewrite("LMP10")], gene=gene, sets=["max_rounds=1"])
    assert not ans.sufficient and "Could not search gene: the gene store is held by another process" in ans.answer


def test_self_eval_off_answers_after_one_round_without_a_verdict():
    ans, llm, rs = run([select(), rewrite("LMP10")], disable=["self_eval"])
    assert [e.step for e in ans.trace] == ["select", "rewrite", "retrieve", "generate"]
    assert ans.answer == "PSMB10" and ans.sufficient  # the evidence guard alone decided
    assert "_VerdictOut" not in [c.schema_title for c in llm.calls]


def test_query_rewrite_off_sends_the_question_and_asks_no_rewrite():
    ans, llm, rs = run([select(), select()], disable=["query_rewrite"], sets=["max_rounds=2"])
    assert [c.schema_title for c in llm.calls] == ["RetrieverChoice", "RetrieverChoice"]
    assert rs["gene"].queries == [Q]  # round 2 repeats the verbatim question: not run again
    rewrites = [e for e in ans.trace if e.step == "rewrite"]
    assert rewrites[0].details == {"by": "none", "rewrite": "off"} and not rewrites[1].ok


def test_a_model_that_goes_down_mid_run_ends_it_with_its_error():
    with pytest.raises(LLMError, match="unreachable"):
        run([select(), unreachable()])


def test_a_script_that_no_model_could_produce_is_a_test_error():
    with pytest.raises(ScriptError, match="cannot come from a model decoding under RetrieverChoice"):
        run([{"retriever": "omim"}])


# ---- each step's typed outcome, which alone decides what the loop does next -------------
def outcomes(ans):
    return [(e.step, e.outcome) for e in ans.trace]


def test_outcomes_of_a_no_then_a_yes():
    ans, _, _ = run([select(), rewrite("LMP10"), verdict(False, "the approved symbol"),
                     select(), rewrite("PSMB10"), verdict(True)])
    round_ = [("select", "done"), ("rewrite", "done"), ("retrieve", "done")]
    assert outcomes(ans) == [*round_, ("evaluate", "not_enough"), *round_, ("evaluate", "enough"),
                             ("generate", "answered")]


def test_outcomes_of_failed_steps_and_of_an_insufficient_answer():
    gene = FailingOnce(ToolError("gene", "HTTP 503 from E-utilities"))
    ans, _, _ = run(["nonsense"] * 3 + [select(), rewrite("LMP10"), select(), rewrite("LMP10")], gene=gene,
                    sets=["max_rounds=3"])
    assert outcomes(ans) == [("select", "failed"),
                             ("select", "done"), ("rewrite", "done"), ("retrieve", "failed"),
                             ("evaluate", "not_enough"),
                             ("select", "done"), ("rewrite", "failed"),
                             ("generate", "insufficient")]
    assert not ans.sufficient


def test_a_planner_with_nothing_left_stops_the_loop():
    settings = load_settings(sets=["planner=rules"])
    gene = RecordRetriever("gene", GENES)
    ans = Agent(settings, retrievers={"gene": gene}).answer(Q)
    assert ("generate", "answered") == outcomes(ans)[-1]
    ans = Agent(settings, retrievers={"gene": RecordRetriever("gene", [])}).answer(Q)
    assert ("select", "stop") in outcomes(ans) and outcomes(ans)[-1] == ("generate", "insufficient")


def test_the_loop_subpackage_reads_no_decision_back_from_dicts():
    """Control flow travels in typed outcomes, never through an event's details or an
    evidence's metadata (which are for people and stored runs)."""
    from pathlib import Path

    loop = Path(__file__).resolve().parents[2] / "biorag" / "loop"
    offenders = [f"{p.name}:{i}" for p in sorted(loop.glob("*.py"))
                 for i, line in enumerate(p.read_text().splitlines(), 1)
                 if ".details.get(" in line or ".metadata.get(" in line]
    assert offenders == []
