"""Pick the LLM backend from settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from biorag.llm.base import LLM
    from biorag.settings import Settings


def make_llm(settings: Settings) -> LLM:
    cfg = settings.llm
    if cfg.backend == "openai":
        from biorag.llm.openai_compat import OpenAICompatLLM

        return OpenAICompatLLM.from_settings(cfg)
    from biorag.llm.embedded import EmbeddedLlamaCpp

    return EmbeddedLlamaCpp.from_settings(cfg)
