"""A scripted chat model for testing the loop (like DSPy's DummyLM): it answers each call
with the next canned reply, in order, and records what it was asked.

A reply is
- a dict: sent as JSON; when the call asks for a JSON schema, the dict must fit it (a real
  backend decodes under the schema, so a script that could not be produced is a mistake
  in the test, reported at once);
- a str: sent verbatim, schema or not (how a model's broken output is scripted);
- an exception instance: raised (the model unreachable mid-run).
It runs through `LLM.chat`/`LLM.structured` like every backend: the same validation,
retries and metering. A call after the script ran out fails the test with the prompt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from biorag.contracts.errors import LLMError
from biorag.llm.base import LLM, ChatMessage, LLMReply


class ScriptError(AssertionError):
    """The script and the calls disagree: a bug in the test, not in the code under test."""


@dataclass
class Call:
    messages: list[ChatMessage]
    schema: dict | None

    @property
    def prompt(self) -> str:
        return self.messages[-1].content

    @property
    def schema_title(self) -> str | None:
        return (self.schema or {}).get("title")


class ScriptedLLM(LLM):
    def __init__(self, replies: list[dict | str | Exception], retries: int = 2):
        super().__init__(retries=retries)
        self.replies = list(replies)
        self.calls: list[Call] = []

    @property
    def identity(self) -> str:
        return f"scripted ({len(self.replies)} replies left)"

    @property
    def left(self) -> int:
        return len(self.replies)

    def _complete(self, messages: list[ChatMessage], json_schema: dict | None, max_tokens: int,
                  temperature: float) -> LLMReply:
        self.calls.append(Call(list(messages), json_schema))
        if not self.replies:
            raise ScriptError(f"call {len(self.calls)} has no scripted reply; prompt:\n{messages[-1].content[:600]}")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, dict):
            if json_schema is not None:
                problems = schema_problems(reply, json_schema)
                if problems:
                    raise ScriptError(f"scripted reply {reply} cannot come from a model decoding under "
                                      f"{json_schema.get('title')}: {'; '.join(problems)}")
            reply = json.dumps(reply)
        return LLMReply(text=reply, ms=0.0)


def schema_problems(value: Any, schema: dict, path: str = "$") -> list[str]:
    """What in `value` a pydantic JSON schema rejects (the keywords pydantic emits for
    flat models: type, enum/const, required, properties, additionalProperties, lengths)."""
    out: list[str] = []
    kinds = {"object": dict, "array": list, "string": str, "integer": int, "number": (int, float), "boolean": bool}
    if "anyOf" in schema:
        if all(schema_problems(value, s, path) for s in schema["anyOf"]):
            out.append(f"{path}: matches none of anyOf")
        return out
    t = schema.get("type")
    if t in kinds and not isinstance(value, kinds[t]):
        return [f"{path}: {type(value).__name__}, not {t}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} is not {schema['const']!r}")
    if isinstance(value, str | list):
        if len(value) > schema.get("maxLength", schema.get("maxItems", len(value))):
            out.append(f"{path}: too long")
        if len(value) < schema.get("minLength", schema.get("minItems", 0)):
            out.append(f"{path}: too short")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        out += [f"{path}.{k}: required" for k in schema.get("required", []) if k not in value]
        if schema.get("additionalProperties") is False:
            out += [f"{path}.{k}: not allowed" for k in value if k not in props]
        for k, v in value.items():
            if k in props:
                out += schema_problems(v, props[k], f"{path}.{k}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += schema_problems(v, schema["items"], f"{path}[{i}]")
    return out


def unreachable(message: str = "the model server is unreachable") -> LLMError:
    return LLMError(message)
