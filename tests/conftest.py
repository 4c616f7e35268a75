"""Suite-wide set-up: no network, no hub downloads, no telemetry, and a private data dir
so tests never touch the user's ~/.local/share/biorag."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["DO_NOT_TRACK"] = "1"
os.environ["SCARF_NO_ANALYTICS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def _private_data_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("biorag-data")
    old = os.environ.get("BIORAG_DATA_DIR")
    os.environ["BIORAG_DATA_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("BIORAG_DATA_DIR", None)
    else:
        os.environ["BIORAG_DATA_DIR"] = old
