"""Which torch device to run on: the one picker for the embedder, the trained MeSH taggers
and the training loops.

``auto`` takes a CUDA GPU when one is visible, else Apple's MPS, else the CPU. An explicit
name is checked: ``cuda``/``cuda:N`` without a visible GPU is a `ConfigError` (no silent
fall-back to a CPU run that would take hours), and anything but auto, cpu, cuda, cuda:N or
mps is refused. torch is imported only when a device is picked.
"""

from __future__ import annotations

from biorag.errors import ConfigError

DEVICES = "auto, cpu, cuda, cuda:N or mps"


def pick_device(spec: str | None = "auto", setting: str = "device") -> str:
    """The device for `spec`; `setting` names the option in the error message."""
    import torch

    spec = (spec or "auto").strip().lower()
    if spec == "auto":
        if torch.cuda.is_available():
            return "cuda"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    if spec not in ("cpu", "mps") and not _is_cuda(spec):
        raise ConfigError(f"{setting}={spec} is not a device: use {DEVICES}")
    if _is_cuda(spec) and not torch.cuda.is_available():
        raise ConfigError(f"{setting}={spec} but no CUDA GPU is visible: use auto or cpu")
    return spec


def half_dtype(device: str) -> str | None:
    """The half-precision dtype a CUDA device runs fastest in ("bfloat16" where supported,
    else "float16"); None elsewhere (CPU and MPS stay in float32)."""
    if not device.startswith("cuda"):
        return None
    import torch

    return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"


def _is_cuda(spec: str) -> bool:
    return spec == "cuda" or (spec.startswith("cuda:") and spec[5:].isdigit())
