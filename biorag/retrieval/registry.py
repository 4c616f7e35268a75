"""The registry mechanism: which class implements which source and backend.

The core holds the mechanism only; the concrete sources are wired in at the composition
root (`application/catalog.py`, one `register(...)` line per backend), so the core never
names a source module.

Entries are import strings so that building the enabled set imports only what is used
(the PubMed index pulls in torch and Milvus; the NCBI tools need neither)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from biorag.contracts.errors import ConfigError

if TYPE_CHECKING:
    from biorag.retrieval.retriever import Retriever


class Registry:
    """source name -> {backend name -> "module:Class"}; the first backend is the default."""

    def __init__(self) -> None:
        self._entries: dict[str, dict[str, str]] = {}

    def register(self, name: str, backend: str, target: str) -> None:
        self._entries.setdefault(name, {})[backend] = target

    def unregister(self, name: str) -> None:
        """Forget a source (tests that register a source of their own)."""
        self._entries.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def names(self) -> list[str]:
        """Every source name with an implementation, in registration order."""
        return list(self._entries)

    def backends(self, name: str) -> list[str]:
        """The backends registered for `name`, the default first ([] when unknown)."""
        return list(self._entries.get(name, {}))

    def retriever_class(self, name: str, backend: str | None = None) -> type[Retriever]:
        if name not in self._entries:
            raise ConfigError(f"unknown source '{name}': known sources are {', '.join(sorted(self._entries))}")
        backends = self._entries[name]
        key = backend or next(iter(backends))
        if key not in backends:
            raise ConfigError(
                f"source '{name}' has no backend '{key}': choose one of {', '.join(backends)}"
            )
        module, cls = backends[key].split(":")
        return getattr(importlib.import_module(module), cls)
