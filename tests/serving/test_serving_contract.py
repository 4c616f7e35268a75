"""The contract beyond the schema: what the OpenAPI document states about schema-valid
requests a route still refuses (`serving.contract`), the rules the schema does state being
enforced, and the chat API's deadline. The fuzz test (test_serving_fuzz.py) runs
Schemathesis with exactly the refusals read here; these tests keep the statements and
the deadline honest without it."""

from __future__ import annotations

import json
import time

import pytest
from live_server import ScriptedAgent, serve, settings_with
from st_contract import ACCEPTED, REJECTED, config_for

from serving import create_app
from serving.contract import HEADING, refusals_in, refused_although_valid, stated_refusals


def test_a_stated_refusal_reads_back_as_written():
    text = refused_although_valid((422, "names no known gene"), (404, "no such record"), intro="Does things.")
    assert text.startswith("Does things.") and HEADING in text
    assert refusals_in(text) == {422: "names no known gene", 404: "no such record"}
    # prose after the list is not read as a refusal
    assert refusals_in(text + "\n\nMore prose.\n- `500`: not a refusal") == {422: "names no known gene",
                                                                                404: "no such record"}
    assert refusals_in("Does things.") == {}


@pytest.mark.parametrize("rules", [(), ((422, "a"), (422, "b")), ((42, "short status"),), ((422, "two\nlines"),)])
def test_a_refusal_is_one_line_per_three_digit_status(rules):
    with pytest.raises(ValueError):
        refused_although_valid(*rules)


@pytest.fixture(scope="module")
def document():
    return create_app(settings_with()).openapi()


def test_the_routes_that_check_against_stored_data_state_it_and_declare_the_status(document):
    stated = stated_refusals(document)
    for op in [("POST", "/v1/geneset"), ("POST", "/v1/prioritise"), ("GET", "/v1/search/geneset")]:
        assert 422 in stated.get(op, {}), f"{op} checks names against a store and must say so"
    for path in ["/v1/geneset", "/v1/prioritise", "/v1/chat/completions"]:  # every route with a JSON body
        assert 413 in stated.get(("POST", path), {}), f"{path} must state the body limit"
    assert "serve.chat_timeout_s (55 s on this server)" in document["paths"]["/v1/chat/completions"]["post"][
        "description"]
    for (method, path), refusals in stated.items():
        declared = document["paths"][path][method.lower()]["responses"]
        for status, why in refusals.items():
            assert str(status) in declared, f"{method} {path} states {status} but does not declare it"
            assert len(why) > 40, f"{method} {path}: say why no schema can state the {status}"


def test_the_fuzz_configuration_allows_exactly_the_stated_refusals(document):
    """Read by Schemathesis itself: each operation gets its own stated refusals on top of
    the defaults, and no other operation gets them."""
    import schemathesis
    from schemathesis.config import SchemathesisConfig

    stated = stated_refusals(document)
    schema = schemathesis.openapi.from_dict(document, config=SchemathesisConfig.from_str(config_for(document)))
    seen = 0
    for result in schema.get_all_operations():
        op = result.ok()
        checks = schema.config.operations.get_for_operation(op).checks
        refusals = [str(s) for s in sorted(stated.get((op.method.upper(), op.path), {}))]
        assert checks.positive_data_acceptance.expected_statuses == [*ACCEPTED, *refusals], op.label
        assert set(checks.negative_data_rejection.expected_statuses) == {*REJECTED, *refusals}, op.label
        seen += bool(refusals)
    assert seen == len(stated) >= 4


def test_what_the_schema_states_the_server_enforces(scripted_server):
    """Rules the schema now states (no duplicate names, at least one observed feature, the
    forms of an onset and an age) are refused with 422 naming the field, not passed on."""
    cases = [
        ("/v1/geneset", {"genes": ["TP53", "TP53"]}, "body.genes"),
        ("/v1/prioritise", {"terms": ["-HP:0001250", "!HP:0001251"]}, "body.terms"),
        ("/v1/prioritise", {"phenopacket": {"phenotypicFeatures": [
            {"type": {"id": "HP:0001250"}, "excluded": True}]}}, "body.phenopacket"),
        ("/v1/prioritise", {"phenopacket": {"phenotypicFeatures": [
            {"type": {"id": "HP:0001250"}, "onset": {"age": {"iso8601duration": "P"}}}]}}, "body.phenopacket"),
        ("/v1/prioritise", {"phenopacket": {"phenotypicFeatures": [{"type": {"id": "HP:0001250"}}],
                                            "subject": {"timeAtLastEncounter": {"age": {}}}}}, "body.phenopacket"),
    ]
    with scripted_server.client() as c:
        for path, body, field in cases:
            r = c.post(path, json=body)
            assert r.status_code == 422, (body, r.text)
            assert r.json()["fields"][0]["field"].startswith(field), r.text


def _chat(stream: bool) -> dict:
    return {"model": "biorag-embedded", "stream": stream,
            "messages": [{"role": "user", "content": "What is the official gene symbol of LMP10?"}]}


def test_the_chat_api_refuses_at_its_deadline_and_rest_keeps_its_own():
    # a run of five 0.4 s steps against a 1 s chat deadline (the REST deadline stays 300 s)
    s = settings_with("serve.chat_timeout_s=1")
    with serve(s, lambda st: ScriptedAgent(st, delay=0.4)) as srv, srv.client() as c:
        t = time.monotonic()
        r = c.post("/v1/chat/completions", json=_chat(False))
        took = time.monotonic() - t
        assert r.status_code == 200 and took < 1.9, (r.status_code, took)
        body = r.json()
        message = body["choices"][0]["message"]
        assert body["biorag"]["timed_out"] is True and message["refusal"] == message["content"]
        assert "1 s deadline" in message["content"] and "serve.chat_timeout_s" in message["content"]
        time.sleep(0.5)  # the stopped run notices at its next step and frees its slot

        r = c.post("/v1/chat/completions", json=_chat(True))
        events = [line[6:] for line in r.text.split("\n\n") if line.startswith("data: ")]
        assert events[-1] == "[DONE]"
        last, content = json.loads(events[-2]), json.loads(events[-3])
        assert last["choices"][0]["finish_reason"] == "stop" and last["biorag"]["timed_out"] is True
        assert "deadline" in content["choices"][0]["delta"]["refusal"]
        time.sleep(0.5)

        r = c.post("/v1/answer", json={"question": "What is the official gene symbol of LMP10?"})
        assert r.status_code == 200 and r.json()["answer"].startswith("PSMB10")


def test_a_chat_run_within_the_deadline_is_answered_as_before():
    with serve(settings_with("serve.chat_timeout_s=5"), ScriptedAgent) as srv, srv.client() as c:
        r = c.post("/v1/chat/completions", json=_chat(False))
    assert r.status_code == 200 and r.json()["biorag"]["timed_out"] is False
    assert r.json()["choices"][0]["message"]["content"].startswith("PSMB10")
