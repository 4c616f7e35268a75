"""Fixtures for the training tests: the real samples in tests/data/training, prepared once."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "training"
RECORDS = DATA / "pubmed_records_sample.jsonl.gz"
PUBMEDQA = DATA / "pubmedqa_sample.json"


@pytest.fixture(scope="session")
def prepared_dir(tmp_path_factory) -> Path:
    from training.prepare import prepare

    out = tmp_path_factory.mktemp("prepared")
    prepare([RECORDS], out, pubmedqa=PUBMEDQA, heldout=0.2, seed=0, progress=False)
    return out


@pytest.fixture(scope="session")
def prepared(prepared_dir):
    from training.prepare import Prepared

    return Prepared.open(prepared_dir)
