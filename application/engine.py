"""The server's one owner of heavy resources: the LLM and the retrievers (hence the
Milvus Lite file, which only one process may open). Every request, `/v1/search` and the
rebuild jobs go through it.

Requests differ only in light settings (switches, top-k, rounds, planner), so an agent is
cheap to make per request from the shared LLM and retrievers. A request that picks
another preset gets its own LLM/retrievers, built once and cached by configuration.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from biorag.errors import BioragError, SourceUnavailable, ToolError
from biorag.models import Evidence, SearchFilters
from biorag.settings import Settings
from retrievers.base import Retriever
from retrievers.gene_store import gene_store_path
from retrievers.lexicon import StoreLexicon
from retrievers.registry import build_lexicon, retriever_class

if TYPE_CHECKING:
    from biorag.llm.base import LLM
    from serving.runner import AgentFactory, AgentLike

log = logging.getLogger("biorag.serving")

#: settings that decide what an LLM / a retriever *is* (connections, files, models)
_HEAVY = {"data_dir", "index", "ncbi", "web", "tool_io"}


def _plain(o: Any) -> Any:
    return o.get_secret_value() if isinstance(o, SecretStr) else str(o)


def _key(settings: Settings, include: set[str], extra: Any = None) -> str:
    """Cache key (kept in memory only): secrets count, since another key is another client."""
    return json.dumps([settings.model_dump(include=include), extra], sort_keys=True, default=_plain)


class BrokenSource(Retriever):
    """Stands in for a source that failed to start, so the agent notes it in the trace
    (a degraded answer) instead of the whole request failing."""

    def __init__(self, name: str, error: str):
        self.name = name
        self.error = error

    @classmethod
    def from_settings(cls, settings: Settings) -> Retriever:  # pragma: no cover - never built this way
        raise NotImplementedError

    def search(self, query: str, k: int, filters: SearchFilters | None = None) -> list[Evidence]:
        raise SourceUnavailable(self.name, self.error)


class Engine:
    def __init__(self, settings: Settings, agent_factory: AgentFactory | None = None):
        self.settings = settings
        self._factory = agent_factory
        self._lock = threading.RLock()
        self._llms: dict[str, LLM] = {}
        self._retrievers: dict[str, Retriever] = {}
        self._lexicons: dict[str, StoreLexicon | None] = {}
        self._default: dict[str, Retriever] = {}  # name -> retriever for the server's own settings

    # ---- shared parts ---------------------------------------------------------------
    def llm(self, settings: Settings | None = None) -> LLM:
        s = settings or self.settings
        key = _key(s, {"llm"})
        with self._lock:
            if key not in self._llms:
                from biorag.llm.factory import make_llm

                self._llms[key] = make_llm(s)
            return self._llms[key]

    def retriever(self, name: str, settings: Settings | None = None) -> Retriever:
        """The shared retriever for `name` (built on first use). Raises ToolError/ConfigError."""
        if settings is None or settings is self.settings:
            r = self._default.get(name)  # the common case, without building the cache key per request
            if r is not None:
                return r
        s = settings or self.settings
        backend = s.sources[name].backend if name in s.sources else None
        key = _key(s, _HEAVY, [name, backend])
        with self._lock:
            r = self._retrievers.get(key)
            if r is None:
                r = retriever_class(name, backend).from_settings(s)
                self._retrievers[key] = r
            if s is self.settings:
                self._default[name] = r
            return r

    def lexicon(self, settings: Settings | None = None) -> StoreLexicon | None:
        """Entity-linking dictionaries (the local gene store's names), built once per
        store; None without a store (understanding then recognises names by pattern)."""
        s = settings or self.settings
        key = str(gene_store_path(s))
        with self._lock:
            if key not in self._lexicons:
                self._lexicons[key] = build_lexicon(s)
            return self._lexicons[key]

    def opened(self, name: str) -> Retriever | None:
        """The server's retriever for `name` if it was built already (no waiting, no building)."""
        return self._default.get(name)

    def _retriever_or_broken(self, name: str, settings: Settings) -> Retriever:
        try:
            return self.retriever(name, settings)
        except BioragError as e:  # not built (no index, unknown backend...): degrade, don't fail
            log.warning("source %s unavailable: %s", name, e)
            msg = str(e).split(": ", 1)[-1] if isinstance(e, ToolError) else str(e)
            return BrokenSource(name, msg)

    def forget(self, name: str) -> None:
        """Drop cached retrievers of one source (after an index rebuild switched the alias).
        Not closed here: runs in flight may still use them. A retriever's store client closes
        when its last user drops it (`biorag.vector_store.open_store(owner=...)`)."""
        with self._lock:
            for key in [k for k, r in self._retrievers.items() if r.name == name]:
                del self._retrievers[key]
            self._default.pop(name, None)

    # ---- agents ---------------------------------------------------------------------
    def agent_for(self, settings: Settings) -> AgentLike:
        if self._factory is not None:
            return self._factory(settings)
        from biorag.agent import Agent

        retrievers = {name: self._retriever_or_broken(name, settings) for name in settings.enabled_sources()}
        return Agent(settings, llm=self.llm(settings), retrievers=retrievers, lexicon=self.lexicon(settings))

    def close(self) -> None:
        with self._lock:
            for r in self._retrievers.values():
                try:
                    r.close()
                except Exception as e:
                    log.warning("closing %s retriever: %s", r.name, e)
            self._retrievers.clear()
            for lexicon in self._lexicons.values():
                if lexicon is not None:
                    lexicon.close()
            self._lexicons.clear()
            self._default.clear()
