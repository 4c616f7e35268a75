"""`biorag train mesh`: train a MeSH tagger for questions, with one of two heads.

- `classifier` (default): LoRA (peft) on the bundled MiniLM encoder (or any local encoder)
  plus a multi-label linear head over the top-N descriptors of the training labels; BCE
  loss; the decision threshold is tuned on a validation slice of the training split.
- `generative`: LoRA on a causal LM trained on the fixed instruction template of
  `biorag.ml.mesh_classifier.PROMPT_TEMPLATE`, target "Name; Name; ...<end>"; inference
  decodes with a trie over the allowed descriptor names (only valid names can come out).
  Base: the bundled SmolLM2-135M-Instruct (its GGUF dequantised), any local HF causal LM
  folder or .gguf file, or `tiny-random` (a 2-layer Llama with the MiniLM tokenizer,
  random weights: only for exercising the mechanics in tests).

Both write an artifact directory that `biorag.ml.mesh_classifier.load_tagger` loads, evaluate
it on the held-out split through that same loader (so the saved artifact is what is
measured), and record metrics in the manifest and `metrics.json`.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from pathlib import Path

from biorag.contracts.errors import InputError
from biorag.host.device import pick_device
from biorag.knowledge.mesh import VocabularyTagger, vocabulary
from biorag.ml.encoder_classifier import build_encoder_classifier
from biorag.ml.mesh_classifier import (
    BUNDLED_CAUSAL,
    BUNDLED_ENCODER,
    encoder_path,
    load_causal_base,
    load_tagger,
    name_token_ids,
    prompt_ids,
    special_ids,
)
from biorag.settings import MeshTrainingSettings
from biorag.storage.artifacts import ArtifactManifest, data_fingerprint, write_manifest
from training.mesh_data import MeshExample, label_counts, top_labels
from training.mesh_eval import filtered_retrieval, set_metrics, tagger_report
from training.pairs import is_heldout
from training.prepare import Prepared
from training.runtime import autocast, grad_scaler, seed_everything
from training.steps import (
    LossLog,
    backward,
    linear_schedule,
    lora,
    multi_hot,
    multilabel_loss,
    optimizer_step,
    prior_bias_,
)

TINY_RANDOM = "tiny-random"


def _examples(prepared: Prepared, split: str, cfg: MeshTrainingSettings, limit: int | None) -> list[MeshExample]:
    exs = [e for e in prepared.mesh(split) if e.source in cfg.sources]
    if limit is not None and len(exs) > limit:
        exs = sorted(random.Random(cfg.seed).sample(exs, limit), key=lambda e: (e.source, e.id))
    return exs


def _train_loop(model, batches: list, loss_fn: Callable, cfg: MeshTrainingSettings, device: str, desc: str,
                progress: bool) -> list[float]:
    """AdamW over the trainable parameters, warm-up, accumulation, AMP on CUDA."""
    import torch
    from tqdm import tqdm

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps = math.ceil(len(batches) / cfg.grad_accum) * cfg.epochs
    scheduler = linear_schedule(optimizer, steps, cfg.warmup_ratio)
    scaler = grad_scaler(device, cfg.amp)
    losses = LossLog()
    model.train()
    bar = tqdm(total=steps, desc=desc, unit="step", disable=not progress)
    for epoch in range(cfg.epochs):
        order = list(range(len(batches)))
        random.Random(cfg.seed + epoch).shuffle(order)
        optimizer.zero_grad(set_to_none=True)
        for j, b in enumerate(order):
            with autocast(device, cfg.amp):
                loss = loss_fn(batches[b])
            backward(loss, scaler, cfg.grad_accum)
            losses.add(loss)
            if (j + 1) % cfg.grad_accum == 0 or j == len(order) - 1:
                optimizer_step(optimizer, scheduler, scaler, params)
                bar.update(1)
                losses.show(bar, bar.n, epoch=epoch + 1)
    bar.close()
    return losses.values()


def _lora(model, target_modules, cfg: MeshTrainingSettings):
    return lora(model, target_modules, cfg.lora_r, cfg.lora_alpha, cfg.lora_dropout)


# ---- classifier head --------------------------------------------------------------------


def _train_classifier(train: list[MeshExample], out: Path, cfg: MeshTrainingSettings, device: str, progress: bool,
                      log: Callable[[str], None]) -> dict:
    from safetensors.torch import save_file
    from transformers import AutoModel, AutoTokenizer

    base = encoder_path(cfg.base)
    labels = top_labels(train, cfg.top_n)
    if not labels:
        raise InputError("no descriptor occurs twice in the training examples: prepare more data")
    index = {name: i for i, name in enumerate(labels)}
    fit = [e for e in train if not is_heldout(e.id, 0.1, cfg.seed + 1)]
    val = [e for e in train if is_heldout(e.id, 0.1, cfg.seed + 1)]
    covered = sum(1 for e in train for lab in e.labels if lab in index) / max(1, sum(len(e.labels) for e in train))
    log(f"classifier over {len(labels)} descriptors (covering {covered:.0%} of training labels); "
        f"{len(fit)} training / {len(val)} validation examples on {device}")

    tokenizer = AutoTokenizer.from_pretrained(base)
    encoder = _lora(AutoModel.from_pretrained(base), ["query", "key", "value", "dense"], cfg)
    model = build_encoder_classifier(encoder, len(labels)).to(device)
    counts = label_counts(fit)
    prior_bias_(model.head, [counts[lab] for lab in labels], len(fit))

    def target(batch: list[MeshExample]):
        return multi_hot([[index[lab] for lab in e.labels if lab in index] for e in batch], len(labels), device)

    order = list(range(len(fit)))
    batches = [[fit[i] for i in order[s: s + cfg.batch_size]] for s in range(0, len(order), cfg.batch_size)]

    def loss_fn(batch):
        enc = tokenizer([e.text for e in batch], padding=True, truncation=True, max_length=cfg.max_length, return_tensors="pt")
        return multilabel_loss(model, enc["input_ids"].to(device), enc["attention_mask"].to(device), target(batch))

    losses = _train_loop(model, batches, loss_fn, cfg, device, "train mesh classifier", progress)

    encoder.save_pretrained(str(out / "adapter"))
    save_file({k: v.detach().cpu().contiguous() for k, v in model.head.state_dict().items()}, str(out / "head.safetensors"))
    (out / "labels.json").write_text(json.dumps(labels, ensure_ascii=False))
    threshold = _tune_threshold(model, tokenizer, val, labels, cfg, device)
    log(f"decision threshold {threshold} (best micro-F1 on validation)")
    return {"labels": len(labels), "label_coverage": round(covered, 4), "threshold": threshold,
            "losses": losses, "base_spec": base if cfg.base else BUNDLED_ENCODER,
            "max_length": cfg.max_length}


def _tune_threshold(model, tokenizer, val: list[MeshExample], labels: list[str], cfg: MeshTrainingSettings, device: str) -> float:
    import torch

    if not val:
        return 0.5
    model.eval()
    probs = []
    with torch.no_grad():
        for s in range(0, len(val), 64):
            enc = tokenizer([e.text for e in val[s: s + 64]], padding=True, truncation=True,
                            max_length=cfg.max_length, return_tensors="pt")
            probs.append(torch.sigmoid(model(enc["input_ids"].to(device), enc["attention_mask"].to(device)).float()).cpu())
    p = torch.cat(probs).numpy()
    top = p.argsort(axis=1)[:, ::-1][:, : cfg.k]
    best, best_f1 = 0.5, -1.0
    for thr in (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7):
        pred = [[labels[j] for j in row if p[i, j] >= thr] for i, row in enumerate(top)]
        f1 = set_metrics([e.labels for e in val], pred)["micro_f1"]
        if f1 > best_f1:
            best, best_f1 = thr, f1
    return best


# ---- generative head --------------------------------------------------------------------


def tiny_random_causal_lm(seed: int = 0):
    """A 2-layer Llama with the bundled MiniLM tokenizer and random weights (tests only)."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(encoder_path(None))
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=512,
        bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id,
        pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config), tokenizer


def generative_sequences(tokenizer, examples: list[MeshExample], allowed: set[str], max_terms: int):
    """(input ids, labels) per example: prompt tokens masked with -100, then the target
    'Name; Name; ...<end>' built from each name's own token ids (exactly the sequences
    the decoding trie walks)."""
    sep, end = special_ids(tokenizer)
    names = sorted({lab for e in examples for lab in e.labels if lab in allowed})
    ids_of = name_token_ids(tokenizer, names)
    out = []
    for e in examples:
        terms = [lab for lab in e.labels if lab in allowed][:max_terms]
        if not terms:
            continue
        prompt = prompt_ids(tokenizer, e.text)
        target: list[int] = []
        for i, t in enumerate(terms):
            target += ids_of[t] + ([sep] if i < len(terms) - 1 else [end])
        out.append((prompt + target, [-100] * len(prompt) + target))
    return out


def _train_generative(train: list[MeshExample], out: Path, cfg: MeshTrainingSettings, device: str, progress: bool,
                      log: Callable[[str], None]) -> dict:
    import torch

    spec = cfg.base or BUNDLED_CAUSAL
    if spec == TINY_RANDOM:
        model, tokenizer = tiny_random_causal_lm(cfg.seed)
        model.save_pretrained(str(out / "base"))  # random weights: the artifact must carry them
        tokenizer.save_pretrained(str(out / "base"))
    else:
        model, tokenizer = load_causal_base(spec)
    vocab_names = [d.name for d in vocabulary().by_ui.values()]
    allowed = set(vocab_names) if cfg.label_space == "vocabulary" else {lab for e in train for lab in e.labels}
    seqs = generative_sequences(tokenizer, train, allowed, cfg.max_target_terms)
    if not seqs:
        raise InputError("no training example has a label in the label space")
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else special_ids(tokenizer)[1]
    log(f"generative head on {spec} ({sum(p.numel() for p in model.parameters()) / 1e6:.0f}M params) on {device}; "
        f"{len(seqs)} sequences, {len(allowed)} allowed descriptor names")
    model = _lora(model, "all-linear", cfg).to(device)

    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i][0]))  # length-bucketed batches: less padding
    batches = [[seqs[i] for i in order[s: s + cfg.batch_size]] for s in range(0, len(order), cfg.batch_size)]

    def loss_fn(batch):
        width = max(len(ids) for ids, _ in batch)
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        lab = torch.full((len(batch), width), -100, dtype=torch.long)
        att = torch.zeros((len(batch), width), dtype=torch.long)
        for r, (x, y) in enumerate(batch):
            ids[r, : len(x)] = torch.tensor(x)
            lab[r, : len(y)] = torch.tensor(y)
            att[r, : len(x)] = 1
        return model(input_ids=ids.to(device), attention_mask=att.to(device), labels=lab.to(device)).loss

    losses = _train_loop(model, batches, loss_fn, cfg, device, "train mesh generative", progress)
    model.save_pretrained(str(out / "adapter"))
    tokenizer.save_pretrained(str(out / "tokenizer"))
    (out / "labels.json").write_text(json.dumps(sorted(allowed), ensure_ascii=False))
    return {"labels": len(allowed), "losses": losses, "base_spec": spec, "label_space": cfg.label_space,
            "max_new_tokens": 16 * cfg.k}


# ---- entry point ------------------------------------------------------------------------


def train_mesh(prepared: Prepared, out: str | Path, cfg: MeshTrainingSettings, progress: bool = True,
               log: Callable[[str], None] = print) -> ArtifactManifest:
    from tqdm import tqdm

    if cfg.head not in ("classifier", "generative"):
        raise InputError(f"unknown head '{cfg.head}': use classifier or generative")
    if cfg.label_space not in ("train", "vocabulary"):
        raise InputError(f"unknown label space '{cfg.label_space}': use train or vocabulary")
    cfg = cfg.for_head()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    device = pick_device(cfg.device, "--device")
    seed_everything(cfg.seed)
    train = _examples(prepared, "train", cfg, cfg.max_train)
    held = _examples(prepared, "heldout", cfg, cfg.eval_limit)
    if len(train) < 2:
        raise InputError(f"{prepared.path} has {len(train)} MeSH training examples from {tuple(cfg.sources)}: prepare more data")

    t0 = time.time()
    trainer = _train_classifier if cfg.head == "classifier" else _train_generative
    info = trainer(train, out, cfg, device, progress, log)
    seconds = round(time.time() - t0, 1)
    losses = info.pop("losses")
    k = max(1, min(20, len(losses) // 4))
    config = {**cfg.model_dump(), "device": device}
    manifest = ArtifactManifest(
        kind="mesh-tagger",
        base_model=info["base_spec"],
        dim=info["labels"],
        data_fingerprint=data_fingerprint(f"{e.id}\t{e.text}\t{'|'.join(e.labels)}" for e in train),
        config=config,
        extra={"head": cfg.head, "prepared": str(prepared.path),
               "prepared_fingerprint": prepared.manifest.data_fingerprint, **info},
    )
    write_manifest(out, manifest)

    log(f"evaluating the saved tagger on {len(held)} held-out examples ...")
    tagger = load_tagger(out, device=device)
    gold, pred, ranked, sources = [], [], [], []
    for e in tqdm(held, desc="held-out", unit="q", disable=not progress):
        gold.append(e.labels)
        sources.append(e.source)
        if cfg.head == "classifier":
            probs = tagger.scores([e.text])[0]
            pred.append(tagger.rank(probs, cfg.k))
            ranked.append(tagger.rank(probs, cfg.k, threshold=0.0))
        else:
            names = tagger.tag(e.text, cfg.k)
            pred.append(names)
            ranked.append(names)
    metrics: dict = {"heldout": tagger_report(gold, pred, ranked, sources),
                     "train": {"examples": len(train), "seconds": seconds,
                               "loss_first": round(sum(losses[:k]) / k, 4), "loss_last": round(sum(losses[-k:]) / k, 4)}}
    if cfg.filtered_eval:
        metrics["filtered_retrieval"] = _filtered_eval(prepared, held, tagger, cfg, log)
    manifest.metrics = metrics
    write_manifest(out, manifest)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    return manifest


def _filtered_eval(prepared: Prepared, held: list[MeshExample], tagger, cfg: MeshTrainingSettings, log) -> dict:
    """PubMedQA held-out questions, MeSH filter from this tagger vs the dictionary tagger."""
    from sentence_transformers import SentenceTransformer

    qa = prepared.pubmedqa()
    questions = [e for e in held if e.source == "pubmedqa"]
    if not qa or not questions:
        return {}
    vocab = vocabulary()
    position = {item.pmid: i for i, item in enumerate(qa)}
    context_mesh = [{d.name for n in item.mesh_names if (d := vocab.get(n))} for item in qa]
    questions = [e for e in questions if e.id in position]
    log(f"filtered retrieval over {len(qa)} PubMedQA contexts for {len(questions)} held-out questions ...")
    embedder = SentenceTransformer(encoder_path(None), device=tagger.device)
    vocab_tagger = VocabularyTagger(vocab)
    return filtered_retrieval(
        [e.text for e in questions], [position[e.id] for e in questions], [it.context for it in qa], context_mesh,
        {f"{cfg.head}_tagger": lambda q: tagger.tag(q, cfg.k), "vocabulary_tagger": lambda q: vocab_tagger.tag(q, cfg.k)},
        embedder,
    )
