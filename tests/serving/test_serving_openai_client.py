"""The OpenAI chat API as the official `openai` package speaks it, against a live server on
127.0.0.1: the real agent (embedded preset, NCBI replayed from the bundled recording) for
plain, streamed and follow-up questions, whose answers must equal what /v1/answer gives for
the same question; a scripted agent for the mechanics (steps streamed while the run is still
going, API keys). `max_retries=0`: the client would otherwise retry 429 and 5xx by itself."""

from __future__ import annotations

import threading

import httpx
import openai
import pytest
from live_server import STEPS, ScriptedAgent, serve, settings_with

QUESTION = "What is the official gene symbol of LMP10?"
MODEL = "biorag-embedded"
KEY = "chat-Key-5e6f7a8b9c"


def _client(url: str, key: str = "none") -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=120)


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    data = tmp_path_factory.mktemp("chat-data")
    with serve(settings_with(f"data_dir={data}")) as srv:
        yield srv


def _rest(srv, question: str) -> dict:
    with srv.client() as c:
        r = c.post("/v1/answer", json={"question": question})
    assert r.status_code == 200, r.text
    return r.json()


def test_models_name_the_servers_preset(real_server):
    client = _client(real_server.url)
    assert [m.id for m in client.models.list()] == [MODEL]
    assert client.models.retrieve(MODEL).owned_by == "biorag"
    with pytest.raises(openai.NotFoundError) as err:
        client.models.retrieve("gpt-4o")
    assert MODEL in err.value.message


def test_a_plain_answer_carries_the_rest_answer_with_links_and_the_extension(real_server):
    rest = _rest(real_server, QUESTION)
    done = _client(real_server.url).chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": QUESTION}])
    assert done.object == "chat.completion" and done.model == MODEL
    content = done.choices[0].message.content
    ext = done.model_extra["biorag"]
    assert content.startswith(rest["answer"].split(" [")[0]) and done.choices[0].finish_reason == "stop"
    for c in rest["citations"]:  # each source a readable link
        assert f"({c['url']})" in content
    assert ext["citations"] == rest["citations"] and ext["sufficient"] is rest["sufficient"] is True
    assert ext["rounds"] == rest["rounds"] and done.id == f"chatcmpl-{ext['trace_id']}"
    assert ext["question"] == QUESTION and not ext["followup"]["resolved"]


def test_streamed_steps_then_the_same_answer(real_server):
    client = _client(real_server.url)
    plain = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": QUESTION}])
    order, reasoning, content, steps, last = [], [], [], [], None
    for chunk in client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": QUESTION}],
                                                stream=True):
        assert chunk.object == "chat.completion.chunk" and chunk.id.startswith("chatcmpl-")
        delta = chunk.choices[0].delta
        said = (delta.model_extra or {}).get("reasoning_content")
        if said:
            reasoning.append(said)
            order.append("reasoning")
            steps.append(chunk.model_extra["biorag"]["trace"]["step"])
        if delta.content:
            content.append(delta.content)
            order.append("content")
        if chunk.choices[0].finish_reason:
            last = chunk
    assert steps == [e["step"] for e in _rest(real_server, QUESTION)["trace"]]
    assert all(line.startswith("round 1: ") for line in reasoning)  # one readable line per step
    assert order == ["reasoning"] * len(steps) + ["content"]
    assert "".join(content) == plain.choices[0].message.content
    assert last.choices[0].finish_reason == "stop"
    assert last.model_extra["biorag"]["citations"] == plain.model_extra["biorag"]["citations"]


def test_a_follow_up_question_is_answered_about_the_earlier_gene(real_server):
    client = _client(real_server.url)
    first = client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": QUESTION}])
    history = [{"role": "system", "content": "You are a helpful assistant."},
               {"role": "user", "content": QUESTION},
               {"role": "assistant", "content": first.choices[0].message.content}]
    follow = client.chat.completions.create(
        model=MODEL, messages=[*history, {"role": "user", "content": "And which chromosome is it on?"}])
    ext = follow.model_extra["biorag"]
    assert ext["followup"]["resolved"] and ext["followup"]["subject"] == "LMP10"
    assert ext["question"] == "And which chromosome is LMP10 on?"
    rest = _rest(real_server, ext["question"])
    assert follow.choices[0].message.content.startswith(rest["answer"].split(" [")[0])
    assert ext["citations"] == rest["citations"]
    # two genes named before: "it" is left as asked, never guessed
    unsure = client.chat.completions.create(model=MODEL, messages=[
        {"role": "user", "content": "How do TP53 and MDM2 interact?"},
        {"role": "assistant", "content": "..."},
        {"role": "user", "content": "And which chromosome is it on?"}])
    ext = unsure.model_extra["biorag"]
    assert not ext["followup"]["resolved"] and ext["question"] == "And which chromosome is it on?"
    assert "2 possible subjects" in ext["followup"]["reason"]


@pytest.mark.parametrize("params, param", [
    ({"tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}, "tools"),
    ({"n": 2}, "n"),
    ({"logprobs": True}, "logprobs"),
    ({"response_format": {"type": "json_object"}}, "response_format"),
    ({"seed": 7}, "seed"),
    ({"max_tokens": 100_000}, "max_tokens"),
    ({"temperature": 3}, "temperature"),
    ({"model": "gpt-4o"}, "model"),
    ({"messages": [{"role": "user", "content": " "}]}, "messages.0.content"),
    ({"messages": [{"role": "user", "content": "x" * 2001}]}, "messages.0.content"),
    ({"messages": [{"role": "tool", "content": "42", "tool_call_id": "c1"}]}, "messages.0.role"),
    ({"messages": [{"role": "system", "content": "only a system prompt"}]}, "messages"),
])
def test_unsupported_or_bad_parameters_are_a_400_naming_the_parameter(real_server, params, param):
    body = {"model": MODEL, "messages": [{"role": "user", "content": QUESTION}], **params}
    with pytest.raises(openai.BadRequestError) as err:
        _client(real_server.url).chat.completions.create(**body)
    assert err.value.status_code == 400
    assert err.value.body["param"] == param and err.value.body["type"] == "invalid_request_error"
    assert param.split(".")[0] in err.value.message


def test_steps_reach_the_client_while_the_run_is_still_going():
    gate = threading.Event()
    with serve(settings_with(), lambda s: ScriptedAgent(s, gate=gate)) as srv:
        stream = _client(srv.url).chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "LMP10?"}], stream=True)
        steps = []
        for chunk in stream:
            trace = (chunk.model_extra or {}).get("biorag", {}).get("trace")
            if trace:
                steps.append(trace["step"])
                if len(steps) == 1:
                    assert not gate.is_set()  # the agent is blocked after its first step
                    gate.set()
    assert steps == STEPS


def test_api_keys_on_and_off():
    with serve(settings_with(f'serve.api_keys=["{KEY}"]'), ScriptedAgent) as srv:
        ask = {"model": MODEL, "messages": [{"role": "user", "content": QUESTION}]}
        for key in ("none", "wrong-key"):
            with pytest.raises(openai.AuthenticationError):
                _client(srv.url, key).chat.completions.create(**ask)
            with pytest.raises(openai.AuthenticationError):
                _client(srv.url, key).models.list()
        done = _client(srv.url, KEY).chat.completions.create(**ask)
        assert done.choices[0].message.content.startswith("PSMB10")
        assert [m.id for m in _client(srv.url, KEY).models.list()] == [MODEL]
        # the same key works with X-API-Key, as on every /v1 route
        r = httpx.post(f"{srv.url}/v1/chat/completions", json=ask, headers={"X-API-Key": KEY}, timeout=60)
        assert r.status_code == 200
    with serve(settings_with(), ScriptedAgent) as srv:  # no keys configured: any key (or none) is fine
        assert _client(srv.url, "anything").chat.completions.create(**ask).choices[0].message.content


def test_a_body_over_the_limit_is_413_for_chat_too():
    with serve(settings_with("serve.max_body_bytes=2048"), ScriptedAgent) as srv:
        long = [{"role": "assistant", "content": "x" * 3000}, {"role": "user", "content": QUESTION}]
        with pytest.raises(openai.APIStatusError) as err:
            _client(srv.url).chat.completions.create(model=MODEL, messages=long)
    assert err.value.status_code == 413


def test_temperature_and_max_tokens_set_the_written_answers_sampling():
    seen: list = []

    def agent(st):
        seen.append(st)
        return ScriptedAgent(st)

    ask = {"model": MODEL, "messages": [{"role": "user", "content": QUESTION}]}
    with serve(settings_with("llm.max_tokens=300"), agent) as srv:
        client = _client(srv.url)
        client.chat.completions.create(**ask, temperature=0.4, max_tokens=120)
        client.chat.completions.create(**ask, max_completion_tokens=77)
        client.chat.completions.create(**ask)
        with pytest.raises(openai.BadRequestError) as err:  # the operator's limit stands
            client.chat.completions.create(**ask, max_tokens=301)
    assert err.value.body["param"] == "max_tokens" and "300" in err.value.message
    assert (seen[0].generation.temperature, seen[0].generation.max_tokens) == (0.4, 120)
    assert seen[1].generation.max_tokens == 77 and seen[1].generation.temperature is None
    assert seen[2].generation == settings_with().generation and len(seen) == 3
