"""The LLM interface: chat completion, optionally constrained by a JSON schema.

`structured()` asks for JSON matching a pydantic model, validates it, retries with the
validation error shown to the model, and raises `StructuredOutputError` (with the raw
outputs) when every attempt failed. It never substitutes a default: the caller records
the failure in the trace.
"""

from __future__ import annotations

import json
import time
from abc import ABC, abstractmethod
from typing import Literal, TypeVar

from pydantic import BaseModel, ValidationError

from biorag.contracts.errors import StructuredOutputError
from biorag.llm import meter

T = TypeVar("T", bound=BaseModel)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class LLMReply(BaseModel):
    text: str
    ms: float
    prompt_tokens: int = 0
    completion_tokens: int = 0


class LLM(ABC):
    """A chat model. Implementations: OpenAI-compatible HTTP, embedded llama.cpp."""

    def __init__(self, temperature: float = 0.0, max_tokens: int = 384, retries: int = 2):
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.retries = retries

    @property
    @abstractmethod
    def identity(self) -> str:
        """Model identity for reproducibility records (backend, model, file/URL)."""

    @abstractmethod
    def _complete(
        self, messages: list[ChatMessage], json_schema: dict | None, max_tokens: int, temperature: float
    ) -> LLMReply:
        """One raw completion. `json_schema` requests constrained decoding."""

    def check(self) -> None:  # noqa: B027 - optional
        """Raise LLMError when the backend is unreachable (used by `readyz`)."""

    def chat(
        self,
        messages: list[ChatMessage],
        json_schema: dict | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> LLMReply:
        t = time.perf_counter()
        try:
            reply = self._complete(
                messages,
                json_schema,
                max_tokens or self.max_tokens,
                self.temperature if temperature is None else temperature,
            )
        finally:  # a failed call (a timeout) took the run's time too
            ms = (time.perf_counter() - t) * 1000
            meter.record(ms)  # to the run (and step) that made the call, not to the shared model
        reply.ms = ms
        return reply

    def structured(
        self, messages: list[ChatMessage], model: type[T], max_tokens: int | None = None
    ) -> tuple[T, list[str]]:
        """Return (validated object, raw outputs of every attempt)."""
        schema = model.model_json_schema()
        raws: list[str] = []
        convo = list(messages)
        for _attempt in range(self.retries + 1):
            reply = self.chat(convo, json_schema=schema, max_tokens=max_tokens)
            raws.append(reply.text)
            try:
                return model.model_validate_json(_strip_fences(reply.text)), raws
            except (ValidationError, json.JSONDecodeError, ValueError) as e:
                err = _short_error(e)
                convo = list(messages) + [
                    ChatMessage(role="assistant", content=reply.text[:2000]),
                    ChatMessage(
                        role="user",
                        content=f"That was not valid: {err}. Reply with JSON matching the schema only.",
                    ),
                ]
        raise StructuredOutputError(
            f"model output did not match {model.__name__} after {len(raws)} attempts", raws
        )


def _strip_fences(text: str) -> str:
    t = text.strip()
    if t.startswith("```"):
        t = t.strip("`")
        if t.startswith("json"):
            t = t[4:]
    return t.strip()


def _short_error(e: Exception) -> str:
    if isinstance(e, ValidationError):
        first = e.errors()[0]
        return f"{'.'.join(str(x) for x in first['loc'])}: {first['msg']}"
    return str(e)[:200]
