"""The OpenAI chat wire format, as BioRAG speaks it (`serving.routes.chat`): the models it
lists, the request it takes and the reply it writes.

- A model is a preset this server can run: `biorag-<preset>`, the server's own and every
  other preset a request may pick (one that changes only what a request may change).
- The request is OpenAI's, narrowed to what BioRAG honours, and the schema says so: `n` is 1,
  `logprobs` false, `top_p` 1, the penalties 0; `max_tokens` at most the operator's
  `llm.max_tokens`. Any other parameter (tools, response_format, seed, stop, ...) is an
  unsupported one: 400 naming it. `temperature` and `max_tokens` (or
  `max_completion_tokens`) set the written answer's sampling (`generation.temperature`,
  `generation.max_tokens`); they change nothing in an extractive answer, which no model
  writes.
- Every user message is a question of the conversation (non-blank, at most
  `max_question_chars`); the latest one is answered, the earlier ones resolve a reference
  in it (`biorag.understanding.followup`). System and developer messages are accepted and not used: the
  agent's instructions are its own. Messages after the latest user message are ignored.
- The reply's content is the answer with its citations as Markdown links; the `biorag`
  extension field carries the structured citations, `sufficient`, `rounds`, the trace id
  and how a follow-up was read (`ChatExtension`).
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    create_model,
    field_validator,
)

from biorag.contracts.models import Answer, Citation, TraceEvent
from biorag.knowledge.catalogues import record_url
from biorag.settings import Settings, available_presets
from biorag.understanding.followup import FollowUp
from biorag.understanding.user_text import user_text_schema
from serving.overrides import AnswerRequest, effective_settings

PREFIX = "biorag-"
#: unknown parameters refused; values as the schema types them (no "yes" for true)
_FORBID = ConfigDict(extra="forbid", strict=True)


# ---- models -------------------------------------------------------------------------


def model_names(settings: Settings) -> list[str]:
    """The models this server serves: its own preset first, then every other preset a
    request may pick (`serving.overrides`: one that leaves the operator's configuration is
    not listed)."""
    names = [own_model(settings)]
    for preset in available_presets():
        if PREFIX + preset in names:
            continue
        try:
            effective_settings(settings, AnswerRequest(question="-", preset=preset))
        except Exception:  # noqa: BLE001 - refused (403) or broken: not a model of this server
            continue
        names.append(PREFIX + preset)
    return names


def own_model(settings: Settings) -> str:
    """The server's own model: its preset's name (a preset given as a file: the file's stem)."""
    return PREFIX + Path(settings.preset).stem


def model_settings(settings: Settings, model: str) -> Settings:
    """The settings a request for `model` runs under (a listed model: never refused)."""
    if model == own_model(settings):
        return settings
    return effective_settings(settings, AnswerRequest(question="-", preset=model.removeprefix(PREFIX)))


def model_card(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "biorag"}


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int = Field(0, description="always 0: a preset has no creation time")
    owned_by: str = "biorag"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


# ---- the request --------------------------------------------------------------------


class TextPart(BaseModel):
    model_config = _FORBID
    type: Literal["text"]
    text: str


def chat_request_model(settings: Settings, models: list[str]) -> type[BaseModel]:
    """The request as this server takes it: its models, its question limit, its operator's
    `llm.max_tokens`."""
    rule = user_text_schema(settings)  # stated and checked on the text as sent
    question = Annotated[str, StringConstraints(min_length=rule["minLength"], max_length=rule["maxLength"],
                                                pattern=rule["pattern"])]
    question_part = create_model("QuestionPart", __config__=_FORBID, type=(Literal["text"], ...),
                                 text=(question, ...))
    text = str | Annotated[list[TextPart], Field(min_length=1)]
    user = create_model(
        "UserMessage", __config__=_FORBID, role=(Literal["user"], ...),
        content=(question | Annotated[list[question_part], Field(min_length=1, max_length=1)],
                 Field(description="a question of the conversation: text, or one text part")),
        name=(str | None, None))
    other = create_model(
        "OtherMessage", __config__=_FORBID, role=(Literal["system", "developer"], ...), content=(text, ...),
        name=(str | None, None))
    assistant = create_model(
        "AssistantMessage", __config__=_FORBID, role=(Literal["assistant"], ...),
        content=(text | None, None), name=(str | None, None), refusal=(str | None, None))
    message = Annotated[user | other | assistant, Field(discriminator="role")]
    top = settings.llm.max_tokens
    tokens = Field(None, description=f"the written answer's token limit (llm mode), at most {top}")
    model_enum = Literal[tuple(models)]  # type: ignore[valid-type]

    class Base(BaseModel):
        model_config = _FORBID

        @field_validator("messages", check_fields=False)
        @classmethod
        def _has_a_question(cls, messages: list[Any]) -> list[Any]:
            if not any(m.role == "user" for m in messages):
                raise ValueError("no user message: the latest user message is the question")
            return messages

    return create_model(
        "ChatCompletionRequest",
        __base__=Base,
        model=(model_enum, Field(description="a model of GET /v1/models: a BioRAG preset")),
        messages=(Annotated[list[message], Field(min_length=1, json_schema_extra={
            "contains": {"type": "object", "properties": {"role": {"const": "user"}}, "required": ["role"]}})],
            Field(description="the conversation; the latest user message is the question")),
        stream=(bool, Field(False, description="Server-Sent Events of chat.completion.chunk, then [DONE]")),
        stream_options=(create_model("StreamOptions", __config__=_FORBID, include_usage=(bool, False)) | None,
                        Field(None, description="include_usage: a last chunk with `usage` (null: not counted)")),
        temperature=(float | None, Field(None, ge=0.0, le=2.0, description="the written answer's sampling (llm mode)")),
        max_tokens=(_integer(1, top) | None, tokens),
        max_completion_tokens=(_integer(1, top) | None, tokens),
        n=(_integer(1, 1) | None, Field(None, description="one choice only")),
        top_p=(float | None, Field(None, ge=1, le=1, description="1 only: no nucleus sampling")),
        presence_penalty=(float | None, Field(None, ge=0, le=0, description="0 only")),
        frequency_penalty=(float | None, Field(None, ge=0, le=0, description="0 only")),
        logprobs=(Annotated[bool | None, AfterValidator(_not_true), WithJsonSchema(
            {"anyOf": [{"type": "boolean", "const": False}, {"type": "null"}]})],
            Field(None, description="false only: no log probabilities")),
        user=(str | None, Field(None, description="an end-user id; accepted, not used")),
    )


def _json_integer(value: Any) -> Any:
    """An integer as JSON Schema counts one: 5 or 5.0, never "5" or true (the request model
    is strict otherwise)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _integer(low: int, high: int) -> Any:
    """A JSON Schema integer from `low` to `high` (strict mode alone would refuse 5.0)."""
    return Annotated[int, BeforeValidator(_json_integer), Field(ge=low, le=high),
                     WithJsonSchema({"type": "integer", "minimum": low, "maximum": high})]


def _not_true(value: bool | None) -> bool | None:
    """`logprobs` false (a Literal[False] would take 0 for false: 0 == False)."""
    if value:
        raise ValueError("only false is supported")
    return value


def conversation(req: Any) -> tuple[str, list[str]]:
    """The question (the latest user message) and the earlier user messages, oldest first."""
    asked = [_text(m.content) for m in req.messages if m.role == "user"]
    return asked[-1], asked[:-1]


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "\n".join(p.text for p in content)


def request_settings(settings: Settings, req: Any) -> Settings:
    """The model's settings with the request's sampling parameters for the written answer."""
    s = model_settings(settings, req.model)
    gen: dict[str, Any] = {}
    if req.temperature is not None:
        gen["temperature"] = req.temperature
    tokens = req.max_completion_tokens or req.max_tokens
    if tokens is not None:
        gen["max_tokens"] = tokens
    if not gen:
        return s
    return s.model_copy(update={"generation": s.generation.model_copy(update=gen)})


# ---- the reply ----------------------------------------------------------------------


def new_trace_id() -> str:
    return uuid.uuid4().hex


def _link(c: Citation) -> str:
    url = c.url or record_url(c.source, c.id)
    label = f"{c.source}:{c.id}" + (f" {c.title}" if c.title else "")
    return f"[{label}]({url})" if url else label


#: a record cited in an answer's text: [gene:5699]
_CITED = re.compile(r"\[([a-z][\w-]*):([^\]\s]+)\](?!\()")


def _linked(text: str) -> str:
    """The answer's [catalogue:id] markers as Markdown links to the records."""
    def link(m: re.Match) -> str:
        url = record_url(m[1], m[2])
        return f"[{m[1]}:{m[2]}]({url})" if url else m[0]
    return _CITED.sub(link, text)


def reply_text(answer: Answer) -> str:
    """The answer, its [catalogue:id] markers as links, then its sources as Markdown links
    (numbered, as chat clients render them)."""
    text = _linked(answer.answer.strip()) or "I don't know: the evidence found does not answer this."
    if not answer.citations:
        return text
    return text + "\n\nSources:\n" + "\n".join(f"{i}. {_link(c)}" for i, c in enumerate(answer.citations, 1))


class ChatExtension(BaseModel):
    """The `biorag` field of a reply (and of the stream's last chunk)."""

    trace_id: str = Field(description="this request's id, also in the completion id (chatcmpl-<trace_id>)")
    question: str = Field(description="the question answered: the latest user message, a reference resolved")
    followup: dict[str, Any] = Field(description="how the question was read: `resolved`, `subject`, `reason`")
    citations: list[Citation] = Field(default_factory=list)
    sufficient: bool = False
    best_attempt: bool = False
    rounds: int = 0
    unsupported_claims: list[str] = Field(default_factory=list)
    unmatched_features: list[str] = Field(
        default_factory=list, description="listed features no HPO term matched: not used by the phenotype ranking")
    timed_out: bool = Field(False, description="the agent was stopped at the chat deadline (serve.chat_timeout_s) "
                            "and the reply is a refusal saying so")


class ChatChoice(BaseModel):
    index: int
    message: dict[str, Any] = Field(description="role assistant; content: the answer and its sources as links")
    finish_reason: str
    logprobs: None = None


class ChatCompletion(BaseModel):
    """A chat.completion, with the `biorag` extension."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatChoice]
    usage: None = Field(None, description="null: BioRAG does not count tokens across its agent's steps")
    biorag: ChatExtension


def extension(answer: Answer, follow: FollowUp, trace_id: str) -> dict[str, Any]:
    return ChatExtension(
        trace_id=trace_id, question=follow.question,
        followup={"resolved": follow.resolved, "subject": follow.subject, "reason": follow.reason},
        citations=answer.citations, sufficient=answer.sufficient, best_attempt=answer.best_attempt,
        rounds=answer.rounds, unsupported_claims=answer.unsupported_claims,
        unmatched_features=answer.unmatched_features,
    ).model_dump(mode="json")


def completion(answer: Answer, follow: FollowUp, trace_id: str, model: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{trace_id}", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply_text(answer)},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": None, "biorag": extension(answer, follow, trace_id)}


def deadline_text(deadline_s: float) -> str:
    """The refusal sent when the agent found no answer before the chat deadline."""
    return (f"I could not answer within this chat API's {deadline_s:.0f} s deadline (serve.chat_timeout_s), so I "
            "stopped. Ask a narrower question (one gene, one disease, one relation), or use POST "
            "/v1/answer/stream, which streams each step under the longer serve.request_timeout_s.")


def timed_out_extension(follow: FollowUp, trace_id: str) -> dict[str, Any]:
    return ChatExtension(
        trace_id=trace_id, question=follow.question,
        followup={"resolved": follow.resolved, "subject": follow.subject, "reason": follow.reason},
        timed_out=True).model_dump(mode="json")


def timed_out(follow: FollowUp, trace_id: str, model: str, deadline_s: float) -> dict[str, Any]:
    """A chat.completion that refuses, in OpenAI's refusal field and as the content that
    chat clients show: no answer within the deadline."""
    text = deadline_text(deadline_s)
    return {"id": f"chatcmpl-{trace_id}", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": text},
                         "finish_reason": "stop", "logprobs": None}],
            "usage": None, "biorag": timed_out_extension(follow, trace_id)}


def chunk(trace_id: str, model: str, delta: dict[str, Any], finish: str | None = None,
          **extra: Any) -> dict[str, Any]:
    return {"id": f"chatcmpl-{trace_id}", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
            **extra}


def step_line(ev: TraceEvent) -> str:
    """One agent step as a line of reasoning text (what chat clients show as thinking)."""
    parts = [f"round {ev.round}: {ev.step}"]
    if ev.retriever:
        parts.append(ev.retriever)
    if ev.query:
        parts.append(f"query {ev.query!r}")
    if ev.hits:
        parts.append(f"{len(ev.hits)} hits ({', '.join(ev.hits[:3])}{', ...' if len(ev.hits) > 3 else ''})")
    if ev.decision:
        parts.append(f"-> {ev.decision}")
    if not ev.ok:
        parts.append(f"failed: {ev.error}")
    return " · ".join(parts) + "\n"


# ---- errors -------------------------------------------------------------------------

_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "not_found_error", 409: "conflict_error", 413: "invalid_request_error", 429: "rate_limit_error"}


class OpenAIErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIError(BaseModel):
    """Every error of the chat routes' own (OpenAI's shape). The guards in front of every
    route (Host 400, API key 401, body size 413) answer in the API's ErrorBody."""

    error: OpenAIErrorDetail


def openai_error(status: int, message: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def from_error_body(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """An ErrorBody (a failed run, a BioragError) in OpenAI's shape."""
    fields = body.get("fields") or []
    param = fields[0]["field"].removeprefix("body.") if fields else None
    return openai_error(status, body.get("detail", ""), param, body.get("error"))

