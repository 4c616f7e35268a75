"""Contrastive embedder: the loss, PMID-unique batches, a real (tiny) fine-tuning run of the
bundled MiniLM with before/after evaluation, its artifact, and exact resume."""

from __future__ import annotations

import json
import shutil

import pytest

from biorag.contracts.errors import ConfigError
from biorag.settings import EmbedderTrainingSettings
from biorag.storage.artifacts import check_embedder_manifest, read_manifest
from training.embedder import train_embedder
from training.pairs import pmid_unique_batches
from training.steps import LossLog, symmetric_info_nce


def _cfg(**kw) -> EmbedderTrainingSettings:
    base = dict(epochs=2, batch_size=8, max_seq_length=48, max_pairs=24, eval_limit=10, lr=5e-5,
                checkpoint_every=2, keep_checkpoints=10, keep_checkpoints_after=True, device="cpu", seed=3)
    base.update(kw)
    return EmbedderTrainingSettings(**base)


@pytest.fixture(scope="module")
def trained(prepared, tmp_path_factory):
    out = tmp_path_factory.mktemp("embedder")
    manifest = train_embedder(prepared, out, _cfg(), progress=False, log=lambda _m: None)
    return out, manifest


def test_symmetric_info_nce():
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    q, d = torch.randn(5, 16), torch.randn(5, 16)
    loss = symmetric_info_nce(q, d, scale=20.0)
    logits = 20.0 * F.normalize(q, dim=-1) @ F.normalize(d, dim=-1).T
    manual = (F.cross_entropy(logits, torch.arange(5)) + F.cross_entropy(logits.T, torch.arange(5))) / 2
    assert torch.allclose(loss, manual)
    assert torch.allclose(loss, symmetric_info_nce(d, q, scale=20.0))  # symmetric
    assert symmetric_info_nce(q, q, 20.0) < loss  # matching pairs score better


def test_loss_log_keeps_order_across_read_outs_and_resumed_values():
    """Losses stay on the device until read; a read-out in the middle of training and one at
    the end give every step once, in order, after the values a checkpoint restored."""
    import torch

    log = LossLog([0.9, 0.8])  # restored from a checkpoint
    steps = [torch.tensor(v, dtype=dt) for v, dt in [(0.7, torch.float32), (0.612345678, torch.bfloat16)]]
    for loss in steps:
        log.add(loss.requires_grad_() * 1)  # a loss with a graph, as backward() leaves it
    assert len(log) == 4
    assert log.recent_mean(2) == pytest.approx((0.7 + float(steps[1])) / 2, abs=1e-5)
    log.add(torch.tensor([0.5]))
    assert log.values() == [0.9, 0.8, 0.7, round(float(steps[1]), 5), 0.5]
    assert LossLog().recent_mean() != LossLog().recent_mean()  # nothing logged yet: NaN, not a made-up 0


def test_loss_log_shows_every_twentieth_step_and_never_on_a_hidden_bar():
    import torch
    from tqdm import tqdm

    shown = []

    class Bar:
        def __init__(self, disable):
            self.disable = disable

        def set_postfix(self, **kw):
            shown.append(kw)

    log = LossLog()
    for step in range(1, 42):
        log.add(torch.tensor(float(step)))
        log.show(Bar(disable=True), step, epoch=1)
    assert shown == [] and len(log._pending) == 41  # a hidden bar never makes it read the GPU
    log.show(Bar(disable=False), 21, epoch=2)
    assert shown == [{"epoch": 2, "loss": f"{sum(range(22, 42)) / 20:.4f}"}]
    for step in (2, 20, 22):
        log.show(Bar(disable=False), step, epoch=2)
    assert len(shown) == 1
    assert tqdm(total=3, disable=True).disable  # the attribute the real bar carries


def test_batches_never_repeat_a_pmid(prepared):
    pairs = prepared.pairs("train")
    batches = pmid_unique_batches(pairs, 16, seed=1)
    for b in batches:
        assert len({pairs[i].pmid for i in b}) == len(b) <= 16
    covered = sorted(i for b in batches for i in b)
    assert len(covered) == len(set(covered)) >= len(pairs) - 16
    assert batches == pmid_unique_batches(pairs, 16, seed=1)
    assert batches != pmid_unique_batches(pairs, 16, seed=2)


def test_loss_decreases_on_the_training_pairs(prepared, trained):
    import torch
    from sentence_transformers import SentenceTransformer

    from training.embedder import embed_batch, resolve_base

    out, manifest = trained
    pairs = prepared.pairs("train", kinds=("title", "question", "mesh"), limit=24, seed=3)  # the run's subset
    batches = [pairs[i: i + 8] for i in range(0, 24, 8)]

    def mean_loss(model):
        model.eval()
        model.max_seq_length = 48
        with torch.no_grad():
            return sum(float(symmetric_info_nce(embed_batch(model, [p.query for p in b], "cpu"),
                                                embed_batch(model, [p.positive for p in b], "cpu"), 20.0))
                       for b in batches) / len(batches)

    before = mean_loss(SentenceTransformer(resolve_base(None)[0], device="cpu"))
    after = mean_loss(SentenceTransformer(str(out), device="cpu"))
    assert after < before
    train = manifest.metrics["train"]
    assert train["optimizer_steps"] == 6 and train["pairs"] == 24


def test_artifact_is_a_loadable_embedder_with_manifest(trained):
    from sentence_transformers import SentenceTransformer

    out, manifest = trained
    model = SentenceTransformer(str(out), device="cpu")
    assert model.encode(["amyloid beta"]).shape == (1, 384)
    saved = read_manifest(out)
    assert saved.kind == "embedder" and saved.dim == 384 and saved.base_model == "all-MiniLM-L6-v2"
    assert saved.data_fingerprint.endswith(":n=24")
    for when in ("before", "after"):
        held = saved.metrics[when]["heldout_pairs"]["all"]
        assert held["n"] > 0 and 0 <= held["recall@1"] <= held["recall@10"] <= 1
        assert 0 < saved.metrics[when]["pubmedqa"]["mrr"] <= 1
    assert json.loads((out / "metrics.json").read_text()) == saved.metrics
    assert check_embedder_manifest(out, 384) == saved
    with pytest.raises(ConfigError, match="384-dim vectors but"):
        check_embedder_manifest(out, 768)


def test_resume_from_a_checkpoint_reproduces_the_run(prepared, trained, tmp_path):
    import torch
    from sentence_transformers import SentenceTransformer

    out, first = trained
    (tmp_path / "checkpoints").mkdir()
    shutil.copytree(out / "checkpoints" / "step-0000002", tmp_path / "checkpoints" / "step-0000002")
    resumed = train_embedder(prepared, tmp_path, _cfg(resume=True, evaluate=False, keep_checkpoints_after=False),
                             progress=False, log=lambda _m: None)
    assert resumed.metrics["train"]["optimizer_steps"] == 6
    for key in ("loss_first", "loss_last"):  # the losses before the checkpoint travel in it
        assert resumed.metrics["train"][key] == pytest.approx(first.metrics["train"][key], abs=1e-4)
    assert not (tmp_path / "checkpoints").exists()  # a finished run cleans up
    a = SentenceTransformer(str(out), device="cpu").state_dict()
    b = SentenceTransformer(str(tmp_path), device="cpu").state_dict()
    assert a.keys() == b.keys()
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)


def test_bad_base_and_batch_are_clear(prepared, tmp_path):
    from biorag.contracts.errors import InputError

    with pytest.raises(ConfigError, match="never downloaded"):
        train_embedder(prepared, tmp_path, _cfg(base=str(tmp_path / "no-model")), progress=False)
    with pytest.raises(InputError, match="at least 2"):
        train_embedder(prepared, tmp_path, _cfg(batch_size=1), progress=False)


def test_lora_trains_only_adapters_saves_them_apart_and_resumes(prepared, tmp_path):
    """LoRA: the adapter alone is saved (small), the merged model is a normal embedder whose
    vectors equal base + adapter, untouched weights stay the base's, and a resumed run ends
    where the uninterrupted one did."""
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    from biorag.ml.embedder import Embedder
    from training.embedder import add_lora, resolve_base

    cfg = _cfg(lora_r=4, lr=1e-3, epochs=1, max_pairs=32, checkpoint_every=2, evaluate=False)
    first = tmp_path / "first"
    manifest = train_embedder(prepared, first, cfg, progress=False, log=lambda _m: None)
    adapter = first / "adapter"
    assert (adapter / "adapter_config.json").is_file()
    size = (adapter / "adapter_model.safetensors").stat().st_size
    assert manifest.extra["adapter"] == {"path": "adapter", "bytes": size} and size < 2_000_000
    assert manifest.config["lora_r"] == 4
    assert json.loads((adapter / "adapter_config.json").read_text())["base_model_name_or_path"] == "all-MiniLM-L6-v2"
    assert read_manifest(adapter).identity() == manifest.identity()  # the adapter alone is the same embedder

    base = SentenceTransformer(resolve_base(None)[0], device="cpu")
    merged = SentenceTransformer(str(first), device="cpu")
    b, m = base.state_dict(), merged.state_dict()
    assert b.keys() == m.keys()  # merged: no adapter weights left inside
    emb = next(k for k in b if k.endswith("word_embeddings.weight"))
    query = next(k for k in b if k.endswith("attention.self.query.weight"))
    assert torch.equal(b[emb], m[emb]) and not torch.allclose(b[query], m[query])

    texts = ["amyloid beta aggregation in Alzheimer disease", "BRCA1 and breast cancer risk"]
    add_lora(base, adapter=adapter)
    assert np.allclose(base.encode(texts), merged.encode(texts), atol=1e-5)
    as_setting = Embedder(str(adapter), device="cpu", query_precision="float32", query_trace=False)  # index.embedder=OUT/adapter
    assert np.allclose(as_setting.embed_documents(texts), merged.encode(texts, normalize_embeddings=True), atol=1e-5)

    resumed = tmp_path / "resumed"
    (resumed / "checkpoints").mkdir(parents=True)
    step = sorted((first / "checkpoints").glob("step-*"))[0]
    assert (step / "adapter" / "adapter_config.json").is_file() and not (step / "config.json").exists()
    shutil.copytree(step, resumed / "checkpoints" / step.name)
    train_embedder(prepared, resumed, _cfg(lora_r=4, lr=1e-3, epochs=1, max_pairs=32, resume=True, evaluate=False),
                   progress=False, log=lambda _m: None)
    again = SentenceTransformer(str(resumed), device="cpu").state_dict()
    assert all(torch.allclose(m[k], again[k], atol=1e-6) for k in m)
