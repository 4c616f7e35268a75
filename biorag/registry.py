"""Which module implements which source. Adding a source = one module + one line here
(and, if it should be on by default, an entry in the presets).

Entries are import strings so that building the enabled set imports only what is used
(the PubMed index pulls in torch and Milvus; the NCBI tools need neither)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from biorag.errors import ConfigError

if TYPE_CHECKING:
    from biorag.settings import Settings
    from retrievers.base import Retriever
    from retrievers.hpo import PhenotypeLexicon
    from retrievers.lexicon import StoreLexicon

#: source name -> {backend name -> "module:Class"}; the first backend is the default
REGISTRY: dict[str, dict[str, str]] = {}


def register(name: str, backend: str, target: str) -> None:
    REGISTRY.setdefault(name, {})[backend] = target


def registered_sources() -> list[str]:
    """Every source name with an implementation, in registration order."""
    return list(REGISTRY)


def retriever_class(name: str, backend: str | None = None) -> type[Retriever]:
    if name not in REGISTRY:
        raise ConfigError(f"unknown source '{name}': known sources are {', '.join(sorted(REGISTRY))}")
    backends = REGISTRY[name]
    key = backend or next(iter(backends))
    if key not in backends:
        raise ConfigError(
            f"source '{name}' has no backend '{key}': choose one of {', '.join(backends)}"
        )
    module, cls = backends[key].split(":")
    return getattr(importlib.import_module(module), cls)


def build_retrievers(settings: Settings) -> dict[str, Retriever]:
    """Instantiate every enabled source that has an implementation.

    A source enabled in settings but not registered is a configuration error, so a typo
    in a preset cannot silently turn a source off."""
    out: dict[str, Retriever] = {}
    for name, src in settings.sources.items():
        if not src.enabled:
            continue
        out[name] = retriever_class(name, src.backend).from_settings(settings)
    return out


def build_lexicon(settings: Settings) -> StoreLexicon | PhenotypeLexicon | None:
    """Entity-linking dictionaries from the local gene store and the HPO store (phenotype
    names), those that are built; None when neither is (question understanding then
    recognises names by pattern)."""
    import sqlite3

    from retrievers.gene_store import gene_store_path
    from retrievers.hpo import PhenotypeLexicon, hpo_store_path
    from retrievers.lexicon import StoreLexicon

    path = gene_store_path(settings)
    base = None
    if path.exists():
        try:
            base = StoreLexicon(path, settings.ncbi.prefer_taxid)
        except (OSError, sqlite3.Error):  # an unreadable store must not stop questions: patterns take over
            base = None
    hpo = hpo_store_path(settings)
    return PhenotypeLexicon(hpo, base) if hpo.exists() else base


# ---- the registry lines --------------------------------------------------------------
register("gene", "eutils", "retrievers.gene:GeneRetriever")
register("gene", "local", "retrievers.gene:LocalGeneRetriever")
register("gene", "layered", "retrievers.layered:LayeredGeneRetriever")
register("dbsnp", "eutils", "retrievers.dbsnp:DbSnpRetriever")
register("omim", "eutils", "retrievers.omim:OmimRetriever")
register("omim", "local", "retrievers.omim:LocalOmimRetriever")
register("omim", "layered", "retrievers.layered:LayeredOmimRetriever")
register("blast", "ncbi", "retrievers.blast:BlastRetriever")
register("web", "ddgs", "retrievers.web:DdgsWebRetriever")
register("web", "wikipedia", "retrievers.web:WikipediaRetriever")
register("web", "arxiv", "retrievers.web:ArxivRetriever")
register("web", "crossref", "retrievers.web:CrossrefRetriever")
register("pubmed", "milvus", "retrievers.pubmed:PubMedRetriever")
register("nucleotide", "eutils", "retrievers.sequence_record:SequenceRecordRetriever")
register("hpo", "local", "retrievers.hpo:HpoRetriever")
register("geneset", "local", "retrievers.geneset:GeneSetRetriever")
