"""The full local gene store, built once per session from the snapshot of the human bulk
files bundled with BioRAG (indexing/resources/human_genes, with the disease dictionary),
and an agent set up as a newcomer's: local gene store first for genes, the dev recording
replayed for dbSNP (after the store's ClinVar variants), OMIM and BLAST, no PubMed index or web."""

from __future__ import annotations

import pytest

from application.catalog import registered_sources
from application.engine import build_agent
from biorag.settings import load_settings
from retrievers.common.http_store import BUNDLED_CASSETTE
from retrievers.stores.lexicon import StoreLexicon


@pytest.fixture(scope="session")
def store_path(tmp_path_factory):
    from cli.commands.data import build_store
    from indexing.gene_store_build import snapshot_paths

    path = tmp_path_factory.mktemp("gene-store") / "gene_store.sqlite"
    build_store(path, dict(snapshot_paths()))
    return path


@pytest.fixture(scope="module")
def lexicon(store_path):
    """The question lexicon over the session's gene store (one per test module)."""
    lex = StoreLexicon(store_path)
    yield lex
    lex.close()


def settings_for(store_path, planner: str = "rules", **kw):
    return load_settings(
        sets=[f"planner={planner}", f"gene_store={store_path}", "sources.gene.backend=local",
              "sources.dbsnp.backend=layered",
              "tool_io.mode=replay", f"tool_io.cassette={BUNDLED_CASSETTE}", "max_rounds=6"],
        disable=["pubmed", "web"], known_sources=registered_sources(), **kw)


@pytest.fixture(scope="session")
def agent(store_path):
    """One agent for the session (the store and the recording are read-only)."""
    a = build_agent(settings_for(store_path))
    yield a
    for r in a.retrievers.values():
        r.close()
    if a.lexicon is not None:
        a.lexicon.close()
