"""Device choice, seeding and mixed precision: the bits every training loop shares."""

from __future__ import annotations

import contextlib
import os
import random

from biorag.errors import ConfigError


def resolve_device(spec: str = "auto") -> str:
    """auto -> cuda when a GPU is visible, else mps, else cpu; explicit names are checked."""
    import torch

    spec = (spec or "auto").strip().lower()
    if spec == "auto":
        if torch.cuda.is_available():
            return "cuda"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    if spec.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"device '{spec}' requested but no CUDA GPU is visible: use --device auto or cpu")
    if spec not in ("cpu", "mps") and not spec.startswith("cuda"):
        raise ConfigError(f"unknown device '{spec}': use auto, cpu, cuda, cuda:N or mps")
    return spec


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

    if not (enabled and device.startswith("cuda")):
        return contextlib.nullcontext()
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.autocast(device_type="cuda", dtype=dtype)


def grad_scaler(device: str, enabled: bool):
    """A GradScaler only for fp16 (bf16 needs none)."""
    import torch

    use = enabled and device.startswith("cuda") and not torch.cuda.is_bf16_supported()
    return torch.amp.GradScaler("cuda", enabled=use)
