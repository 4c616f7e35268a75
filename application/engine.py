"""The one place that composes a runnable system: it builds the retrievers (through the
registry lines of `application/catalog.py`), the entity-linking lexicon and the LLM, and
hands them to an `Agent`. The CLI, the evaluation harness and the server all get their
agents here.

On the server it is the one owner of heavy resources: the LLM and the retrievers (hence the
Milvus Lite file, which only one process may open). Every request, `/v1/search` and the
rebuild jobs go through it. Requests differ only in light settings (switches, top-k,
rounds, planner), so an agent is cheap to make per request from the shared LLM and
retrievers. A request that picks another preset gets its own LLM/retrievers, built once
and cached by configuration.

Laziness: only enabled sources are built (a gene-only run never opens Milvus; the PubMed
retriever opens its store on first search anyway), and `build_agent` leaves the LLM to the
agent, which makes it on first use (a rules-only run never loads the model).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import SecretStr

from application.catalog import retriever_class
from biorag.contracts.errors import BioragError, SourceUnavailable, ToolError
from biorag.contracts.models import Answer, Evidence
from biorag.llm import make_llm
from biorag.llm.base import LLM
from biorag.loop.agent import Agent, EventSink
from biorag.ml.embedder import Embedder
from biorag.retrieval.retriever import Retriever
from biorag.settings import Settings
from biorag.understanding.search_request import SearchRequest
from retrievers.geneset.lexicon import PathwayLexicon
from retrievers.hpo.lexicon import PhenotypeLexicon
from retrievers.stores.gene_store import gene_store_path
from retrievers.stores.hpo_store import hpo_store_path
from retrievers.stores.lexicon import StoreLexicon

log = logging.getLogger("biorag.serving")


class AgentLike(Protocol):
    """What the server runs per request: an `Agent`, or a test's scripted stand-in."""

    def answer(self, question: str, on_event: EventSink | None = None, overrides: Any = None) -> Answer: ...


AgentFactory = Callable[[Settings], AgentLike]

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

    def search(self, request: SearchRequest) -> list[Evidence]:
        raise SourceUnavailable(self.name, self.error)


class Engine:
    def __init__(self, settings: Settings, agent_factory: AgentFactory | None = None):
        self.settings = settings
        self._factory = agent_factory
        self._lock = threading.RLock()
        self._llms: dict[str, LLM] = {}
        self._retrievers: dict[str, Retriever] = {}
        self._lexicons: dict[str, StoreLexicon | PhenotypeLexicon | PathwayLexicon | None] = {}
        self._default: dict[str, Retriever] = {}  # name -> retriever for the server's own settings

    # ---- shared parts ---------------------------------------------------------------
    def llm(self, settings: Settings | None = None) -> LLM:
        s = settings or self.settings
        key = _key(s, {"llm"})
        with self._lock:
            if key not in self._llms:
                self._llms[key] = make_llm(s)
            return self._llms[key]

    def retriever(self, name: str, settings: Settings | None = None, backend: str | None = None) -> Retriever:
        """The shared retriever for `name` (built on first use), with the configured backend
        unless `backend` names another. Raises ToolError/ConfigError."""
        if backend is None and (settings is None or settings is self.settings):
            r = self._default.get(name)  # the common case, without building the cache key per request
            if r is not None:
                return r
        s = settings or self.settings
        configured = s.sources[name].backend if name in s.sources else None
        backend = backend or configured
        key = _key(s, _HEAVY, [name, backend])
        with self._lock:
            r = self._retrievers.get(key)
            if r is None:
                r = retriever_class(name, backend).from_settings(s)
                self._retrievers[key] = r
            if s is self.settings and backend == configured:
                self._default[name] = r
            return r

    def lexicon(self, settings: Settings | None = None) -> StoreLexicon | PhenotypeLexicon | PathwayLexicon | None:
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

    def retrievers(self, settings: Settings, degrade: bool = True) -> dict[str, Retriever]:
        """Every enabled source, built (or shared) now. `degrade`: a source that cannot start
        becomes a `BrokenSource` the trace reports (the server); otherwise its error is
        raised (a one-off run, where a typo in a preset must not silently drop a source)."""
        build = self._retriever_or_broken if degrade else self.retriever
        return {name: build(name, settings) for name in settings.enabled_sources()}

    def forget(self, name: str) -> None:
        """Drop cached retrievers of one source (after an index rebuild switched the alias).
        Not closed here: runs in flight may still use them. A retriever's store client closes
        when its last user drops it (`biorag.ml.vector_store.open_store(owner=...)`)."""
        with self._lock:
            for key in [k for k, r in self._retrievers.items() if r.name == name]:
                del self._retrievers[key]
            self._default.pop(name, None)

    # ---- agents ---------------------------------------------------------------------
    def agent_for(self, settings: Settings) -> AgentLike:
        """The server's agent for one request: shared LLM and retrievers, broken sources degraded."""
        if self._factory is not None:
            return self._factory(settings)
        return Agent(settings, llm=self.llm(settings), retrievers=self.retrievers(settings),
                     lexicon=self.lexicon(settings))

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


def build_lexicon(settings: Settings) -> StoreLexicon | PhenotypeLexicon | PathwayLexicon | None:
    """Entity-linking dictionaries from the local gene store and the HPO store (phenotype
    names), those that are built, with the bundled libraries' pathway names over them; None
    when neither store is (question understanding then recognises names by pattern)."""
    path = gene_store_path(settings)
    base = None
    if path.exists():
        try:
            base = StoreLexicon(path, settings.ncbi.prefer_taxid)
        except (OSError, sqlite3.Error):  # an unreadable store must not stop questions: patterns take over
            base = None
    hpo = hpo_store_path(settings)
    lexicon = PhenotypeLexicon(hpo, base) if hpo.exists() else base
    return PathwayLexicon(lexicon) if lexicon is not None else None


def build_agent(settings: Settings, llm: LLM | None = None, embedder: Embedder | None = None) -> Agent:
    """A one-off agent (`biorag ask`, the evaluation harness, benchmarks): every enabled
    source built now, a source that cannot start is an error; the LLM is `llm` or, when
    None, made by the agent on first use (so is the sentence embedder)."""
    engine = Engine(settings)
    return Agent(settings, llm=llm, retrievers=engine.retrievers(settings, degrade=False),
                 lexicon=engine.lexicon(settings), embedder=embedder)
