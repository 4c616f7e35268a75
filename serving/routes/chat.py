"""POST /v1/chat/completions, GET /v1/models and GET /v1/models/{model}: the OpenAI chat API
on the same engine, runner (one concurrency limit: 429 with Retry-After), auth and body limit
as the REST routes. Wire format and what each parameter means: `serving.chat_api`.

Streaming (`stream: true`): `chat.completion.chunk` events, `data: [DONE]` last. Each agent
step arrives as it happens, twice over: as `delta.reasoning_content` (a line of text; Open
WebUI, LM Studio and the DeepSeek-style clients show it as the model's thinking) and as the
chunk's `biorag.trace` (the TraceEvent). Then the answer as `delta.content`, and a last chunk
with `finish_reason: "stop"` and the `biorag` extension. A failure after the stream began is
a `data: {"error": {...}}` event (the openai package raises it as an APIError).
"""

# No `from __future__ import annotations`: the request model is built per server.
import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import StreamingResponse
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from application.engine import Engine
from biorag.contracts.errors import BioragError
from biorag.contracts.redaction import scrub_obj
from biorag.settings import Settings
from biorag.understanding.followup import FollowUp, resolve
from serving import chat_api as api
from serving.contract import body_limit, refused_although_valid
from serving.errors import FieldError, ScrubbedJSONResponse, ServiceBusy, error_body, status_for
from serving.overrides import check_question
from serving.routes.openapi import Guard, errors
from serving.routes.state import EngineDep, RunnerDep
from serving.run_events import finished, outcomes
from serving.runner import Run

log = logging.getLogger("biorag.serving")

#: what a client may send, for the "unsupported parameter" message
_TAKES = ("model, messages, stream, stream_options, temperature, max_tokens, max_completion_tokens, "
          "n (1), top_p (1), presence_penalty (0), frequency_penalty (0), logprobs (false), user")

#: parameters BioRAG takes only at their neutral value
_ONLY = {"n": "1", "top_p": "1", "presence_penalty": "0", "frequency_penalty": "0", "logprobs": "false"}
#: a chat.completion.chunk event (OpenAPI 3.1: the schema describes each event)
CHUNK_EVENT = {
    "type": "object",
    "required": ["data"],
    "properties": {"data": {"type": "string", "description": "a chat.completion.chunk as JSON, an "
                            "{\"error\": {...}} object, or [DONE] last"}},
}


def _oa(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> ScrubbedJSONResponse:
    return ScrubbedJSONResponse(body, status_code=status, headers=headers)


#: the parts of a validation error's location that name no parameter: a union's branch
_BRANCHES = {"str", "int", "float", "bool", "none", "user", "system", "developer", "assistant"}


def _param_path(loc: tuple) -> list[str]:
    """The parameter a location names, as OpenAI writes it (`messages.0.content`): without
    "body" and the branches of a union pydantic adds."""
    return [str(p) for p in loc[1:] if isinstance(p, int) or (re.fullmatch(r"\w+", str(p))
                                                                and str(p) not in _BRANCHES)]


def _invalid(exc: RequestValidationError) -> ScrubbedJSONResponse:
    """A request the schema refuses: 400, naming the parameter (OpenAI clients expect 400)."""
    err = exc.errors()[0]
    param = ".".join(_param_path(err.get("loc", ()))) or None
    if err.get("type") == "extra_forbidden":
        return _oa(400, api.openai_error(400, f"unsupported parameter: '{param}'; BioRAG takes {_TAKES}",
                                         param, "unsupported_parameter"))
    if err.get("type") == "json_invalid":
        return _oa(400, api.openai_error(400, "the body is not valid JSON", None, "invalid_json"))
    if err.get("type") == "union_tag_invalid":  # a message role BioRAG does not take (tool, function)
        ctx = err.get("ctx", {})
        param = f"{param}.role" if param else "role"
        return _oa(400, api.openai_error(400, f"{param}: {ctx.get('tag')!s} messages are not supported; roles are "
                                              f"{ctx.get('expected_tags')}", param, "unsupported_value"))
    if param in _ONLY:
        return _oa(400, api.openai_error(400, f"unsupported value of '{param}': BioRAG answers only with "
                                              f"{param}={_ONLY[param]}", param, "unsupported_value"))
    msg = err.get("msg", "invalid value")
    return _oa(400, api.openai_error(400, f"{param}: {msg}" if param else msg, param, "invalid_value"))


class ChatRoute(APIRoute):
    """The chat routes answer their own errors in OpenAI's shape: validation (400 naming the
    parameter), a refused request field, busy (429 + Retry-After), a failed tool."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                return _invalid(exc)
            except StarletteHTTPException as exc:
                if exc.status_code != 400:
                    raise
                return _oa(400, api.openai_error(400, "the body could not be read as JSON text (is it UTF-8?)",
                                                 None, "invalid_json"))
            except FieldError as exc:
                status = 400 if exc.status == 422 else exc.status
                param = exc.field.removeprefix("body.")
                return _oa(status, api.openai_error(status, exc.message, param, "invalid_value"))
            except ServiceBusy as exc:
                return _oa(429, api.openai_error(429, "all answer slots are in use; retry after the Retry-After "
                                                      "header's seconds", None, "busy"),
                           headers={"Retry-After": str(exc.retry_after)})
            except BioragError as exc:
                status = status_for(exc)
                return _oa(status, api.from_error_body(status, error_body(exc)))

        return route


def _oa_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for the chat routes: their own errors are OpenAIError, the guards'
    (400 Host, 401 key, 413 size) ErrorBody."""
    out = errors(*codes)
    for code in codes:
        if code not in (401, 413):
            out[code]["model"] = api.OpenAIError
    if 400 in out:  # a request field (OpenAIError) or the Host guard (ErrorBody)
        del out[400]["model"]
        out[400]["description"] = ("an invalid or unsupported parameter, named in `param` (OpenAIError); or the Host "
                                   "header is not a name of this server (ErrorBody)")
        out[400]["content"] = {"application/json": {"schema": {"anyOf": [
            {"$ref": "#/components/schemas/OpenAIError"}, {"$ref": "#/components/schemas/ErrorBody"}]}}}
    return out


def _sse(data: Any) -> str:
    return f"data: {json.dumps(scrub_obj(data), ensure_ascii=False, default=str)}\n\n"


def _past_deadline(run: Run, status: int, body: dict[str, Any]) -> bool:
    """A run stopped at its deadline (`serving.run_events.failure`), not one that failed
    (an upstream's own timeout inside the run stays a 504)."""
    return status == 504 and body.get("error") == "timeout" and run.remaining() <= 0


async def _chunks(run: Run, follow: FollowUp, trace_id: str, model: str, usage: bool) -> AsyncIterator[str]:
    yield _sse(api.chunk(trace_id, model, {"role": "assistant", "content": ""}))
    async for kind, item in outcomes(run):
        if kind == "error" and _past_deadline(run, item["status"], item):  # the refusal, as a reply ends
            text = api.deadline_text(run.deadline_s)
            yield _sse(api.chunk(trace_id, model, {"content": text, "refusal": text}))
            yield _sse(api.chunk(trace_id, model, {}, "stop", biorag=api.timed_out_extension(follow, trace_id)))
            if usage:
                yield _sse({**api.chunk(trace_id, model, {}), "choices": [], "usage": None})
            continue
        if kind == "keepalive":
            yield ": keep-alive\n\n"
        elif kind == "trace":
            yield _sse(api.chunk(trace_id, model, {"reasoning_content": api.step_line(item)},
                                 biorag={"trace": item.model_dump(mode="json")}))
        elif kind == "answer":
            yield _sse(api.chunk(trace_id, model, {"content": api.reply_text(item)}))
            yield _sse(api.chunk(trace_id, model, {}, "stop", biorag=api.extension(item, follow, trace_id)))
            if usage:
                yield _sse({**api.chunk(trace_id, model, {}), "choices": [], "usage": None})
        else:
            yield _sse(api.from_error_body(item["status"], item))
    yield "data: [DONE]\n\n"


def _read(asked: str, earlier: list[str], engine: Engine, settings: Settings) -> FollowUp:
    """The question to answer: `asked`, a reference to an earlier question resolved."""
    if not earlier:
        return FollowUp(asked, asked, None, "the first question")
    follow = resolve(asked, earlier, engine.lexicon(settings))
    if len(follow.question) > settings.max_question_chars:
        return FollowUp(asked, asked, None, f"'{follow.subject}' filled in would pass max_question_chars")
    return follow


def chat_router(settings: Settings, guard: Guard) -> APIRouter:
    router = APIRouter(route_class=ChatRoute)
    models = api.model_names(settings)
    ChatRequest = api.chat_request_model(settings, models)

    @router.get("/v1/models", dependencies=guard.dependencies, response_model=api.ModelList,
                responses=errors(400, *guard.auth), summary="The models (BioRAG presets) this server answers with")
    async def list_models() -> Any:
        return {"object": "list", "data": [api.model_card(m) for m in models]}

    @router.get("/v1/models/{model}", dependencies=guard.dependencies, response_model=api.ModelCard,
                responses=_oa_errors(400, *guard.auth, 404), summary="One model")
    async def get_model(model: str) -> Any:
        if model not in models:
            return _oa(404, api.openai_error(404, f"no model '{model}': this server has {', '.join(models)}",
                                             "model", "model_not_found"))
        return api.model_card(model)

    @router.post("/v1/chat/completions", dependencies=guard.dependencies, response_model=api.ChatCompletion,
                 summary="Answer the conversation's latest question (OpenAI chat completions)",
                 description=refused_although_valid(body_limit(settings.serve.max_body_bytes), intro=(
                     f"Answers or refuses within serve.chat_timeout_s ({settings.serve.chat_timeout_s:.0f} s on this "
                     "server): past it the agent is stopped and the reply (or the stream's last content) is a "
                     "refusal that says so, in `message.refusal` and the content, with `biorag.timed_out` true.")),
                 responses={200: {"content": {"text/event-stream": {"schema": CHUNK_EVENT}},
                                  "description": "a chat.completion, or (stream) chat.completion.chunk events "
                                                 "ending with [DONE]"},
                            **_oa_errors(400, *guard.auth, 403, 404, 413, 429, 502, 503, 504)})
    async def chat_completions(req: ChatRequest, runner: RunnerDep, engine: EngineDep) -> Any:  # type: ignore[valid-type]
        asked, earlier = api.conversation(req)
        check_question(asked, settings, field="body.messages")
        eff = api.request_settings(settings, req)
        follow = await run_in_threadpool(_read, asked, earlier, engine, eff)
        question = check_question(follow.question, settings, field="body.messages")
        trace_id = api.new_trace_id()
        # the chat deadline (below the 60 s OpenAI-style clients wait): past it, a refusal
        run = runner.start(eff, question, timeout_s=settings.serve.chat_timeout_s)  # 429 here, before anything is sent
        log.info("chat %s: %s", trace_id, follow.reason)
        if req.stream:
            usage = bool(req.stream_options and req.stream_options.include_usage)
            return StreamingResponse(_chunks(run, follow, trace_id, req.model, usage), media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        result = await finished(run)
        if isinstance(result, tuple):
            status, body = result
            if _past_deadline(run, status, body):
                return _oa(200, api.timed_out(follow, trace_id, req.model, run.deadline_s))
            return _oa(status, api.from_error_body(status, body))
        return _oa(200, api.completion(result, follow, trace_id, req.model))

    return router
