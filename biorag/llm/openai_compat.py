"""Any OpenAI-compatible chat server: vLLM (production), llama.cpp server, Ollama.

Constrained decoding uses `response_format={"type": "json_schema", ...}`, which vLLM,
llama.cpp server and recent Ollama all accept. URL, model and key come from settings or
the environment (BIORAG_LLM__BASE_URL, BIORAG_LLM__API_KEY), never from source.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import httpx

from biorag.contracts.errors import ConfigError, LLMError
from biorag.llm.base import LLM, ChatMessage, LLMReply

if TYPE_CHECKING:
    from biorag.settings import LLMSettings

log = logging.getLogger(__name__)


class OpenAICompatLLM(LLM):
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        seed: int | None = 0,
        response_format: str = "auto",
        **kw,
    ):
        super().__init__(**kw)
        self.response_format = response_format
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.seed = seed
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout_s)

    @classmethod
    def from_settings(cls, cfg: LLMSettings) -> OpenAICompatLLM:
        if not cfg.base_url:
            raise ConfigError(
                "llm.backend=openai needs llm.base_url (e.g. --set llm.base_url=http://host:8000/v1 "
                "or BIORAG_LLM__BASE_URL)"
            )
        return cls(
            base_url=cfg.base_url,
            model=cfg.model,
            api_key=cfg.api_key.get_secret_value() if cfg.api_key else None,
            timeout_s=cfg.timeout_s,
            seed=cfg.seed,
            response_format=cfg.response_format,
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            retries=cfg.structured_retries,
        )

    @property
    def identity(self) -> str:
        return f"openai-compatible:{self.model}@{self.base_url}"

    def check(self) -> None:
        try:
            r = self._http.get("/models")
            r.raise_for_status()
        except httpx.HTTPError as e:
            raise LLMError(f"LLM endpoint {self.base_url} is not reachable: {_describe(e)}") from None

    def _complete(self, messages, json_schema, max_tokens, temperature) -> LLMReply:
        body: dict = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if self.seed is not None:
            body["seed"] = self.seed
        if json_schema is not None:
            body["response_format"] = _response_format(self.response_format, json_schema)
        r = self._post(body)
        if (
            r.status_code >= 400
            and json_schema is not None
            and self.response_format == "auto"
            and "response_format" in r.text
        ):
            log.info("%s rejects response_format=json_schema; using json_object with a schema", self.base_url)
            self.response_format = "json_object"
            body["response_format"] = _response_format("json_object", json_schema)
            r = self._post(body)
        if r.status_code >= 400:
            raise LLMError(f"LLM endpoint {self.base_url} answered HTTP {r.status_code}: {r.text[:300]}")
        try:
            data = r.json()
            text = data["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError):
            raise LLMError(f"LLM endpoint {self.base_url} sent an unexpected reply: {r.text[:300]}") from None
        usage = data.get("usage") or {}
        return LLMReply(
            text=text,
            ms=0.0,
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
        )


    def _post(self, body: dict) -> httpx.Response:
        try:
            return self._http.post("/chat/completions", json=body)
        except httpx.HTTPError as e:
            raise LLMError(f"LLM endpoint {self.base_url} is not reachable: {_describe(e)}") from None


def _response_format(mode: str, schema: dict) -> dict:
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.get("title", "output"), "schema": schema, "strict": True},
    }


def _describe(e: httpx.HTTPError) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


__all__ = ["OpenAICompatLLM", "ChatMessage"]
