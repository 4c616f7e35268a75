"""LoRA adapters as embedders: the bundled BioASQ adapter and an adapter folder load as their
base with the adapter merged in, and an adapter on the wrong base is refused in one line."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from biorag.contracts.errors import ConfigError
from biorag.ml.embedder import BUNDLED, Embedder, model_path, weights_digest
from biorag.ml.embedder_adapter import (
    BUNDLED_BIOASQ,
    BUNDLED_BIOASQ_DIR,
    hf_model,
    is_adapter,
    set_hf_model,
)

TEXTS = ["What is the mechanism of action of teplizumab?",
         "Teplizumab, an anti-CD3 monoclonal antibody, delayed the onset of type 1 diabetes."]


def test_the_bundled_adapter_is_small_and_names_its_base_portably():
    assert is_adapter(BUNDLED_BIOASQ_DIR) and model_path(BUNDLED_BIOASQ) == str(BUNDLED_BIOASQ_DIR)
    conf = json.loads((BUNDLED_BIOASQ_DIR / "adapter_config.json").read_text())
    assert conf["base_model_name_or_path"] == BUNDLED and conf["r"] == 16
    weights = BUNDLED_BIOASQ_DIR / "adapter_model.safetensors"
    assert weights.stat().st_size < 25_000_000
    assert (BUNDLED_BIOASQ_DIR / "TRAINING.md").is_file()
    assert weights_digest(BUNDLED_BIOASQ) != weights_digest(BUNDLED)


def test_the_bundled_adapter_is_the_base_with_the_adapter_merged():
    from peft import PeftModel
    from sentence_transformers import SentenceTransformer

    tuned = Embedder(BUNDLED_BIOASQ, device="cpu", query_precision="float32", query_trace=False)
    base = Embedder(BUNDLED, device="cpu", query_precision="float32", query_trace=False)
    assert tuned.dim == base.dim == 384
    t, b = tuned.embed_documents(TEXTS), base.embed_documents(TEXTS)
    assert not np.allclose(t, b, atol=1e-3)  # the adapter changes the vectors

    ref = SentenceTransformer(model_path(BUNDLED), device="cpu")
    set_hf_model(ref, PeftModel.from_pretrained(hf_model(ref), str(BUNDLED_BIOASQ_DIR)))  # unmerged
    assert np.allclose(t, ref.encode(TEXTS, normalize_embeddings=True), atol=1e-5)
    assert np.allclose(tuned.embed_queries(TEXTS[:1]), t[:1], atol=1e-5)


def test_an_adapter_on_a_missing_base_is_refused(tmp_path):
    bad = tmp_path / "adapter"
    shutil.copytree(BUNDLED_BIOASQ_DIR, bad)
    conf = json.loads((bad / "adapter_config.json").read_text())
    conf["base_model_name_or_path"] = str(tmp_path / "no-such-model")
    (bad / "adapter_config.json").write_text(json.dumps(conf))
    with pytest.raises(ConfigError, match="no-such-model"):
        Embedder(str(bad), device="cpu").embed_documents(TEXTS)
