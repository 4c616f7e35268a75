"""Fixtures of the gene-set and HPO tests (the HPO store and the data dir holding it beside
the full gene store are in the root conftest: the understanding suite asks HPO too)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def geneset_settings(geneset_data_dir):
    from biorag.settings import load_settings

    return load_settings(overrides={"data_dir": str(geneset_data_dir)})


@pytest.fixture(scope="session")
def interpreter(geneset_settings):
    from retrievers.geneset.retriever import GeneSetInterpreter

    it = GeneSetInterpreter.from_settings(geneset_settings)
    yield it
    it.close()
