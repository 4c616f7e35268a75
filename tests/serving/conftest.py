"""Fixtures of the serving tests (helpers live in live_server.py)."""

from __future__ import annotations

import pytest
from live_server import ScriptedAgent, serve, settings_with


@pytest.fixture
def scripted_server():
    with serve(settings_with(), ScriptedAgent) as srv:
        yield srv


@pytest.fixture(scope="session")
def mcp_sample_data(tmp_path_factory, full_gene_store_path, hpo_store_path):
    """A data dir with the gene and HPO stores and the sample PubMed index, built once;
    copy it (`mcp_helpers.sample_data_dir(template=...)`) before opening it."""
    from mcp_helpers import sample_data_dir

    return sample_data_dir(tmp_path_factory.mktemp("mcp") / "data", full_gene_store_path, hpo_store_path)
