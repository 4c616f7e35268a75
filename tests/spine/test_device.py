"""The one device picker (biorag.device), used by the embedder, the MeSH taggers and the
training loops: "auto" follows the hardware torch sees, an explicit CUDA device without a
GPU is one clear ConfigError naming the setting, and a name that is no device is refused."""

import pytest
import torch

from biorag.device import half_dtype, pick_device
from biorag.embedder import Embedder
from biorag.errors import ConfigError

HAS_CUDA = torch.cuda.is_available()
HAS_MPS = getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()


@pytest.mark.parametrize("spec", ["auto", "AUTO", " auto ", "", None])
def test_auto_takes_the_best_device_torch_sees(spec):
    want = "cuda" if HAS_CUDA else ("mps" if HAS_MPS else "cpu")
    assert pick_device(spec) == want


@pytest.mark.parametrize("spec, want", [("cpu", "cpu"), ("CPU", "cpu"), (" cpu", "cpu")])
def test_explicit_cpu_is_kept(spec, want):
    assert pick_device(spec) == want
    assert half_dtype(pick_device(spec)) is None  # CPU runs in float32


@pytest.mark.parametrize("spec", ["cuda", "cuda:0", "CUDA:1"])
def test_explicit_cuda_needs_a_gpu(spec):
    if HAS_CUDA and (":" not in spec or int(spec.split(":")[1]) < torch.cuda.device_count()):
        assert pick_device(spec) == spec.lower()
        assert half_dtype(spec.lower()) in ("bfloat16", "float16")
        return
    if HAS_CUDA:
        pytest.skip(f"this machine has a GPU with no device {spec}")
    with pytest.raises(ConfigError) as e:
        pick_device(spec, "index.device")
    msg = str(e.value)
    assert f"index.device={spec.lower()}" in msg and "no CUDA GPU" in msg and "auto or cpu" in msg
    assert "\n" not in msg


@pytest.mark.parametrize("spec", ["gpu", "cuda:x", "cuda0", "tpu", "cpu:0"])
def test_a_name_that_is_no_device_is_refused(spec):
    with pytest.raises(ConfigError, match=r"is not a device: use auto, cpu, cuda, cuda:N or mps") as e:
        pick_device(spec, "training.device")
    assert str(e.value).startswith(f"training.device={spec}")


@pytest.mark.skipif(HAS_CUDA, reason="checks the refusal on a machine without a GPU")
def test_embedder_on_cuda_without_a_gpu_says_which_setting():
    """The embedder picks through the same function: index.device=cuda fails before any
    model is loaded, naming the setting."""
    with pytest.raises(ConfigError, match=r"^index.device=cuda but no CUDA GPU is visible"):
        _ = Embedder(device="cuda").dim
