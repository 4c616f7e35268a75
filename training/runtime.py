"""Seeding and mixed precision: the bits every training loop shares (the device is picked by
`biorag.host.device`)."""

from __future__ import annotations

import contextlib
import os
import random

from biorag.host.device import half_dtype


def seed_everything(seed: int) -> None:
    """Same seed, same data order, same initial weights (CPU runs are bit-reproducible)."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")


def autocast(device: str, enabled: bool):
    """bf16/fp16 autocast on CUDA when enabled; a no-op elsewhere (CPU trains in fp32)."""
    import torch

    half = half_dtype(device)
    if not (enabled and half):
        return contextlib.nullcontext()
    return torch.autocast(device_type="cuda", dtype=getattr(torch, half))


def grad_scaler(device: str, enabled: bool):
    """A GradScaler only for fp16 (bf16 needs none)."""
    import torch

    use = enabled and half_dtype(device) == "float16"
    return torch.amp.GradScaler("cuda", enabled=use)
