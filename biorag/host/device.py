"""Which torch device to run on: the one picker for the embedder, the trained MeSH taggers
and the training loops.

``auto`` takes a CUDA GPU when one is visible, else Apple's MPS, else the CPU. An explicit
name is checked: ``cuda``/``cuda:N`` without a visible GPU is a `ConfigError` (no silent
fall-back to a CPU run that would take hours), and anything but auto, cpu, cuda, cuda:N or
mps is refused. torch is imported only when a device is picked. Also here: the query
encoder's precision, and how many CPU threads a server gives torch.
"""

from __future__ import annotations

from typing import Literal, get_args

from biorag.contracts.errors import ConfigError

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


#: query encoder precisions (index.query_precision takes this type)
QueryPrecision = Literal["auto", "float32", "bfloat16", "float16"]
PRECISIONS: tuple[str, ...] = get_args(QueryPrecision)


def cpu_has_fast_bf16() -> bool:
    """Whether this CPU multiplies bf16 matrices in hardware (Intel AMX tiles). Elsewhere
    torch emulates bf16 on CPU, slower than float32."""
    import torch

    probe = getattr(getattr(torch, "cpu", None), "_is_amx_tile_supported", None)
    try:
        return bool(probe()) if probe is not None else False
    except Exception:  # noqa: BLE001 - a private probe: no answer means no
        return False


def query_dtype(precision: str, device: str) -> str | None:
    """The dtype the query encoder runs in on `device` (None = float32).

    auto: the document encoder's half precision on CUDA; bf16 on a CPU with AMX, where a
    batch of queries encodes 2-3x faster than in float32 and the vectors stay within cosine
    0.998 of the float32 ones (measured on the bundled MiniLM, see index.query_precision);
    float32 elsewhere. An explicit dtype is taken as asked."""
    if precision not in PRECISIONS:
        raise ConfigError(f"index.query_precision={precision} is not one of {', '.join(PRECISIONS)}")
    if precision == "float32":
        return None
    if precision != "auto":
        return precision
    if device.startswith("cuda"):
        return half_dtype(device)
    if device == "cpu" and cpu_has_fast_bf16():
        return "bfloat16"
    return None


def _is_cuda(spec: str) -> bool:
    return spec == "cuda" or (spec.startswith("cuda:") and spec[5:].isdigit())


def available_cores() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def serving_torch_threads(setting: int, cores: int | None = None) -> int:
    """The torch thread count for a server (`serve.torch_threads`): the setting when given,
    else half the cores, at least 1.

    Why not all of them (torch's default): a server's searches arrive together and share one
    encoding call (retrievers/pubmed/retriever.py), so a wider encode gains little, while the event loop
    and the in-process Milvus Lite need cores of their own; torch's idle OpenMP threads spin
    for a while after each call and take those cores from them.

    `setting` is the validated setting (``ge=0`` in `ServeSettings`, checked on load and on
    assignment), so a negative count never reaches here."""
    if setting:
        return setting
    return max(1, (cores or available_cores()) // 2)


def limit_torch_threads(n: int) -> int:
    """Give torch `n` intra-op threads for this process, before its first parallel call
    (threads that start later take the count too); returns what torch then reports."""
    import torch

    torch.set_num_threads(n)
    return torch.get_num_threads()
