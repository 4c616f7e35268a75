"""LLM backends behind one interface (`LLM` in base.py); `make_llm(settings)` picks one."""

from biorag.llm.base import LLM, ChatMessage, LLMReply
from biorag.llm.factory import make_llm

__all__ = ["LLM", "ChatMessage", "LLMReply", "make_llm"]
