"""The query encoder's TorchScript trace (biorag/ml/traced_encoder.py, `index.query_trace`):
the same vectors as the eager model for real queries of any length and batch size, also
from two threads at once; and a model that cannot be traced, or whose trace disagrees,
stays eager with a warning that says why."""

from __future__ import annotations

import gzip
import json
import logging
import threading
from pathlib import Path

import numpy as np
import pytest

from biorag.ml import traced_encoder
from biorag.ml.embedder import Embedder
from biorag.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"


def _queries() -> list[str]:
    """Real query texts of many lengths: sample titles, first abstract sentences, and short
    questions as people type them."""
    with gzip.open(SAMPLE, "rt") as f:
        rows = [json.loads(line) for line in f][:40]
    typed = ["Where is BRCA2 located?", "tau", "APOE4 and dementia risk", "what does TREM2 do in microglia",
             "genes for seizures and ataxia"]
    return typed + [r["title"] for r in rows[:20]] + [r["abstract"].split(". ")[0] for r in rows[20:40]]


QUERIES = _queries()


@pytest.fixture(scope="module")
def encoders():
    traced = Embedder(device="cpu", query_cache=0, query_trace=True)
    eager = Embedder(device="cpu", query_cache=0, query_trace=False)
    return traced, eager


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.mark.parametrize("batch", [1, 2, 3, 8, 45])
def test_traced_queries_are_the_eager_vectors(encoders, batch):
    traced, eager = encoders
    texts = QUERIES[:batch]
    a, b = traced.embed_queries(texts), eager.embed_queries(texts)
    assert traced.query_encoder.traced_queries() is not None  # the trace was made and is in use
    assert a.dtype == np.float32 and a.shape == b.shape == (batch, traced.dim)
    assert _cosines(a, b).min() >= traced_encoder.MIN_COSINE
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)


def test_two_threads_encoding_at_once_get_their_own_vectors(encoders):
    """The batcher's workers call the trace concurrently (retrievers/pubmed/retriever.py)."""
    traced, eager = encoders
    halves = [QUERIES[0::2], QUERIES[1::2]]
    out: dict[int, list[np.ndarray]] = {0: [], 1: []}

    def work(i: int) -> None:
        for start in range(0, len(halves[i]), 3):
            out[i].append(traced.embed_queries(halves[i][start:start + 3]))

    threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in (0, 1):
        assert _cosines(np.concatenate(out[i]), eager.embed_queries(halves[i])).min() >= traced_encoder.MIN_COSINE


def test_a_model_that_cannot_be_traced_stays_eager_and_says_why(encoders, monkeypatch, caplog):
    import torch

    _, eager = encoders
    enc = eager.query_encoder

    def refuse(*args, **kwargs):
        raise RuntimeError("this model cannot be traced")

    monkeypatch.setattr(torch.jit, "trace", refuse)
    with caplog.at_level(logging.WARNING, logger="biorag.ml.embedder"):
        assert traced_encoder.trace_query_encoder(enc.model, enc.tokenize, enc.name) is None
    assert "runs eagerly" in caplog.text and "this model cannot be traced" in caplog.text


def test_a_trace_that_disagrees_with_the_model_is_not_used(encoders, monkeypatch, caplog):
    _, eager = encoders
    enc = eager.query_encoder
    monkeypatch.setattr(traced_encoder, "MIN_COSINE", 1.5)  # no trace can agree this well
    with caplog.at_level(logging.WARNING, logger="biorag.ml.embedder"):
        assert traced_encoder.trace_query_encoder(enc.model, enc.tokenize, enc.name) is None
    assert "disagrees" in caplog.text


def test_the_setting_reaches_the_embedder_and_is_on_by_default():
    assert Embedder.from_settings(load_settings()).query_trace is True
    assert Embedder.from_settings(load_settings(sets=["index.query_trace=false"])).query_trace is False
