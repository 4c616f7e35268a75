"""The parts of one training step, shared by `biorag train` (`training/embedder.py`,
`training/mesh_train.py`) and the accelerator entry point (`training/gpu_train.py`), so the
step that is timed on a GPU is the step that trains.

torch, transformers and peft only: nothing here may import the settings tree (pydantic),
which the accelerator machines lack.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

PROGRESS_EVERY = 20  # optimizer steps between loss read-outs on a progress bar (each waits for the GPU)
NO_DECAY = ("bias", "LayerNorm.weight", "layer_norm", "norm.weight")


# ---- contrastive embedder ----------------------------------------------------------------


def symmetric_info_nce(q, d, scale: float):
    """Mean of query->doc and doc->query cross-entropy over in-batch cosine similarities."""
    import torch
    import torch.nn.functional as F

    q = F.normalize(q, dim=-1)
    d = F.normalize(d, dim=-1)
    logits = scale * q @ d.T
    target = torch.arange(len(q), device=q.device)
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2


def contrastive_loss(embed: Callable, queries, docs, scale: float):
    """In-batch negatives: `embed` maps a batch (texts or token features) to its vectors;
    the loss is computed in float32 whatever precision the forward ran in."""
    return symmetric_info_nce(embed(queries).float(), embed(docs).float(), scale)


def decay_groups(model, weight_decay: float) -> list[dict]:
    """AdamW parameter groups: no weight decay on biases and norms; frozen weights (under
    LoRA, all but the adapters) left out."""
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    return [
        {"params": [p for n, p in named if not any(nd in n for nd in NO_DECAY)], "weight_decay": weight_decay},
        {"params": [p for n, p in named if any(nd in n for nd in NO_DECAY)], "weight_decay": 0.0},
    ]


# ---- MeSH classifier (LoRA + multi-label head) --------------------------------------------


def lora(model, target_modules, r: int, alpha: int, dropout: float):
    from peft import LoraConfig, get_peft_model

    conf = LoraConfig(r=r, lora_alpha=alpha, lora_dropout=dropout, target_modules=target_modules, bias="none")
    return get_peft_model(model, conf)


def multi_hot(rows: list[list[int]], n_labels: int, device):
    """(len(rows), n_labels) float targets with a 1 at each row's label indices. On CUDA the
    indices go through pinned memory without blocking: a plain copy would wait for every
    queued kernel, and the GPU would then idle while the host prepares the next step."""
    import torch

    y = torch.zeros(len(rows), n_labels, device=device)
    at = torch.tensor([[i for i, labels in enumerate(rows) for _ in labels], [j for labels in rows for j in labels]],
                      dtype=torch.long)
    if at.shape[1]:
        if y.is_cuda:
            at = at.pin_memory()
        at = at.to(y.device, non_blocking=True)
        y[at[0], at[1]] = 1.0
    return y


def prior_bias_(head, counts: list[int], n_examples: int) -> None:
    """Start the head's biases at the labels' log-odds in the training data: the head need
    not learn the priors first."""
    import torch

    prior = torch.tensor([max(c, 1) / max(n_examples, 1) for c in counts]).clamp(1e-4, 0.5)
    with torch.no_grad():
        head.bias[: len(counts)].copy_(torch.log(prior / (1 - prior)))


def multilabel_loss(model, input_ids, attention_mask, target):
    """Mean binary cross-entropy of the classifier's logits (in float32) against `target`."""
    import torch.nn.functional as F

    return F.binary_cross_entropy_with_logits(model(input_ids, attention_mask).float(), target)


# ---- the optimizer side --------------------------------------------------------------------


def linear_schedule(optimizer, steps: int, warmup_ratio: float):
    from transformers import get_linear_schedule_with_warmup

    return get_linear_schedule_with_warmup(optimizer, int(warmup_ratio * steps), steps)


class LossLog:
    """Per-step loss values, kept on the device and read to the host in one transfer.

    `float(loss)` after every step makes the host wait for that step's kernels, so the next
    batch cannot be tokenized while the GPU works; `add` keeps the tensor, and `values` /
    `recent_mean` read everything pending at once (at a progress update, `show`, or a
    checkpoint, not every step). Values are rounded to 5 places, as checkpoints store them.
    """

    def __init__(self, values: Iterable[float] = ()):
        self._values = [float(v) for v in values]
        self._pending: list = []

    def add(self, loss) -> None:
        self._pending.append(loss.detach().float().reshape(()))

    def values(self) -> list[float]:
        if self._pending:
            import torch

            self._values.extend(round(v, 5) for v in torch.stack(self._pending).cpu().tolist())
            self._pending.clear()
        return self._values

    def recent_mean(self, n: int = 20) -> float:
        recent = self.values()[-n:]
        return sum(recent) / len(recent) if recent else float("nan")

    def show(self, bar, step: int, **postfix) -> None:
        """Put the recent mean loss (and `postfix`) on a tqdm `bar` at optimizer steps 1,
        1 + PROGRESS_EVERY, ...; never on a disabled bar, since each read waits for the GPU."""
        if not bar.disable and (step - 1) % PROGRESS_EVERY == 0:
            bar.set_postfix(**postfix, loss=f"{self.recent_mean():.4f}")

    def __len__(self) -> int:
        return len(self._values) + len(self._pending)


def backward(loss, scaler, accum: int = 1) -> None:
    scaler.scale(loss / accum).backward()


def optimizer_step(optimizer, scheduler, scaler, params: Iterable, max_norm: float = 1.0) -> None:
    """Unscale, clip, step (skipped by the scaler on fp16 overflow), advance the schedule."""
    import torch

    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    optimizer.zero_grad(set_to_none=True)
