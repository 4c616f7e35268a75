"""MeSH taggers: trie-constrained decoding emits only valid names; both heads train, save,
reload through `load_tagger` and implement the MeshTagger protocol."""

from __future__ import annotations

import json

import pytest

from biorag.knowledge.mesh import MeshTagger, vocabulary
from biorag.ml.mesh_classifier import (
    MeshTrie,
    constrained_generate,
    load_tagger,
    name_token_ids,
    prompt_ids,
    special_ids,
)
from biorag.settings import MeshTrainingSettings
from training.mesh_train import tiny_random_causal_lm, train_mesh

NAMES = [
    "Brain", "Brain Diseases", "Brain Injuries", "Brain Neoplasms", "Alzheimer Disease", "tau Proteins",
    "Amyloid beta-Peptides", "Apolipoproteins E", "Neurons", "Hippocampus", "Dementia", "Mutation",
]
QUESTIONS = [
    "Does tau spread between neurons in Alzheimer's disease?",
    "Is APOE4 a risk factor for dementia?",
    "What is the survival of patients with glioma?",
    "Do statins lower cholesterol?",
]


@pytest.fixture(scope="module")
def tiny_lm():
    model, tok = tiny_random_causal_lm(seed=0)
    return model.eval(), tok


def test_trie_counts_and_prefixes(tiny_lm):
    _, tok = tiny_lm
    trie = MeshTrie(name_token_ids(tok, NAMES))
    assert sorted(trie.names) == sorted(NAMES)
    assert trie.count[0] == len(NAMES)
    brain = name_token_ids(tok, ["Brain"])["Brain"]
    node = 0
    for t in brain:
        node = trie.children[node][t]
    assert trie.terminal[node] == "Brain" and trie.count[node] == 4  # Brain + three longer names


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_constrained_decoding_emits_only_valid_distinct_names(tiny_lm, k):
    model, tok = tiny_lm
    trie = MeshTrie(name_token_ids(tok, NAMES))
    sep, end = special_ids(tok)
    vocab = vocabulary()
    for q in QUESTIONS:
        out = constrained_generate(model, prompt_ids(tok, q), trie, sep, end, k=k, max_new_tokens=80)
        assert 1 <= len(out) <= k
        assert len(set(out)) == len(out)
        assert all(name in NAMES and vocab.get(name).name == name for name in out)


def test_constrained_decoding_stops_when_names_run_out(tiny_lm):
    model, tok = tiny_lm
    two = ["Brain", "Brain Diseases"]
    trie = MeshTrie(name_token_ids(tok, two))
    sep, end = special_ids(tok)
    out = constrained_generate(model, prompt_ids(tok, QUESTIONS[0]), trie, sep, end, k=5, max_new_tokens=80)
    assert set(out) <= set(two) and len(out) == len(set(out))
    assert constrained_generate(model, prompt_ids(tok, QUESTIONS[0]), trie, sep, end, k=0) == []


def test_unconstrained_random_model_would_not_produce_names(tiny_lm):
    """The constraint is what makes the output valid: free greedy decoding is junk."""
    model, tok = tiny_lm
    import torch

    ids = torch.tensor([prompt_ids(tok, QUESTIONS[0])])
    free = model.generate(ids, max_new_tokens=12, do_sample=False)[0, ids.shape[1]:]
    text = tok.decode(free, skip_special_tokens=True)
    assert not any(part.strip() in NAMES for part in text.split(";") if part.strip())


@pytest.fixture(scope="module")
def generative(prepared, tmp_path_factory):
    out = tmp_path_factory.mktemp("mesh-gen")
    cfg = MeshTrainingSettings(head="generative", base="tiny-random", epochs=2, batch_size=8, lr=5e-3, max_train=48,
                     eval_limit=6, filtered_eval=False, device="cpu", seed=0)
    return out, train_mesh(prepared, out, cfg, progress=False, log=lambda _m: None)


def test_generative_head_trains_saves_and_reloads(generative):
    out, manifest = generative
    for part in ("adapter/adapter_config.json", "tokenizer/tokenizer_config.json", "base/config.json", "labels.json"):
        assert (out / part).is_file(), part
    assert manifest.extra["head"] == "generative" and manifest.base_model == "tiny-random"
    train = manifest.metrics["train"]
    assert train["loss_last"] < train["loss_first"]
    labels = set(json.loads((out / "labels.json").read_text()))
    tagger = load_tagger(out, device="cpu")
    assert isinstance(tagger, MeshTagger)
    for q in QUESTIONS:
        names = tagger.tag(q, 3)
        assert 1 <= len(names) <= 3 and set(names) <= labels
        assert all(vocabulary().get(n).name == n for n in names)
    assert tagger.tag("   ", 3) == [] and tagger.tag(QUESTIONS[0], 0) == []
    held = manifest.metrics["heldout"]["all"]
    assert held["n"] == 6 and 0 <= held["micro_f1"] <= 1


def test_generative_adapter_round_trip_changes_the_base(generative):
    """The saved LoRA adapter was trained (non-zero B) and reloading it changes the base."""
    import torch
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM

    out, _ = generative
    weights = load_file(str(out / "adapter" / "adapter_model.safetensors"))
    lora_b = [v for k, v in weights.items() if "lora_B" in k]
    assert lora_b and any(float(v.abs().sum()) > 0 for v in lora_b)
    base = AutoModelForCausalLM.from_pretrained(out / "base").eval()
    ids = torch.tensor([[101, 2079, 1996, 102]])
    with torch.no_grad():
        plain = base(input_ids=ids).logits
        adapted = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(out / "base"), str(out / "adapter")).eval()(input_ids=ids).logits
    assert not torch.allclose(plain, adapted)
    reloaded = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(out / "base"), str(out / "adapter")).eval()
    with torch.no_grad():
        assert torch.allclose(adapted, reloaded(input_ids=ids).logits)


@pytest.fixture(scope="module")
def classifier(prepared, tmp_path_factory):
    out = tmp_path_factory.mktemp("mesh-cls")
    cfg = MeshTrainingSettings(head="classifier", epochs=2, batch_size=32, lr=2e-3, top_n=64, max_train=96,
                     eval_limit=20, device="cpu", seed=0)
    return out, train_mesh(prepared, out, cfg, progress=False, log=lambda _m: None)


def test_classifier_head_trains_saves_and_reloads(classifier, tmp_path):
    import numpy as np

    from biorag.ml.mesh_classifier import build_tagger
    from biorag.settings import load_settings

    out, manifest = classifier
    labels = json.loads((out / "labels.json").read_text())
    assert manifest.extra["head"] == "classifier" and manifest.dim == len(labels) <= 64
    train = manifest.metrics["train"]
    assert train["loss_last"] < train["loss_first"]
    tagger = build_tagger(load_settings(sets=[f"mesh.tagger={out}"]))
    assert isinstance(tagger, MeshTagger) and tagger is load_tagger(out)  # cached per process
    for q in QUESTIONS:
        names = tagger.tag(q, 2)
        assert len(names) <= 2 and set(names) <= set(labels)
    # a title that is all about Alzheimer's disease: the most frequent label of the sample
    assert tagger.rank(tagger.scores(["Amyloid plaques in Alzheimer disease brains"])[0], 1, threshold=0.0) == ["Alzheimer Disease"]
    fresh = type(tagger)(out, manifest, "cpu")
    assert np.allclose(fresh.scores(QUESTIONS), tagger.scores(QUESTIONS), atol=1e-5)
    m = manifest.metrics
    for part in ("all", "title", "pubmedqa"):
        assert set(m["heldout"][part]) >= {"micro_f1", "macro_f1", "precision@1", "precision@3"}
    fr = m["filtered_retrieval"]
    assert set(fr) == {"unfiltered", "classifier_tagger", "vocabulary_tagger"}
    assert all(0 <= v["recall@4"] <= 1 for v in fr.values())


def test_classifier_adapter_changes_the_encoder(classifier):
    import torch
    from transformers import AutoModel

    from biorag.ml.mesh_classifier import encoder_path

    out, _ = classifier
    tagger = load_tagger(out)
    base = AutoModel.from_pretrained(encoder_path(None))
    merged = tagger.model.encoder.state_dict()
    key = "encoder.layer.0.attention.self.query.weight"
    assert not torch.allclose(merged[key].cpu(), base.state_dict()[key])


def test_bad_head_is_clear(prepared, tmp_path):
    from biorag.contracts.errors import InputError

    with pytest.raises(InputError, match="unknown head 'oracle'"):
        train_mesh(prepared, tmp_path, MeshTrainingSettings(head="oracle"), progress=False)
