"""The one device picker (biorag.host.device), used by the embedder, the MeSH taggers and the
training loops: "auto" follows the hardware torch sees, an explicit CUDA device without a
GPU is one clear ConfigError naming the setting, and a name that is no device is refused."""

import pytest
import torch

from biorag.contracts.errors import ConfigError
from biorag.host.device import half_dtype, pick_device
from biorag.ml.embedder import Embedder

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


# ---- query precision (index.query_precision) --------------------------------------------


@pytest.mark.parametrize("amx, want", [(True, "bfloat16"), (False, None)])
def test_auto_query_precision_is_bf16_only_where_the_cpu_multiplies_it(monkeypatch, amx, want):
    import biorag.host.device as dev

    monkeypatch.setattr(dev, "cpu_has_fast_bf16", lambda: amx)
    assert dev.query_dtype("auto", "cpu") == want
    assert dev.query_dtype("auto", "mps") is None  # no AMX there: float32
    assert dev.query_dtype("float32", "cpu") is None  # asked for: kept, AMX or not
    assert dev.query_dtype("bfloat16", "cpu") == "bfloat16"


def test_auto_query_precision_on_cuda_is_the_documents_half_precision(monkeypatch):
    import biorag.host.device as dev

    monkeypatch.setattr(dev, "half_dtype", lambda device: "float16")
    assert dev.query_dtype("auto", "cuda") == "float16"


def test_a_precision_that_is_no_dtype_is_refused():
    from biorag.host.device import query_dtype

    with pytest.raises(ConfigError, match=r"^index.query_precision=fp8 is not one of auto, float32, bfloat16, float16"):
        query_dtype("fp8", "cpu")


def test_the_setting_refuses_a_bad_precision_in_one_line():
    from biorag.settings import load_settings

    with pytest.raises(ConfigError) as e:
        load_settings("embedded", sets=["index.query_precision=fp8"])
    assert "index.query_precision" in str(e.value) and "\n" not in str(e.value).strip()


TEXTS = [  # real query phrasings and a sample title
    "How do microglia respond to amyloid plaques?",
    "APOE genotype and risk of late-onset dementia",
    "Cerebrospinal fluid tau and amyloid beta 42 as biomarkers of Alzheimer's disease in a memory clinic cohort",
    "tau",
]


def test_bf16_queries_stay_next_to_float32_ones_and_documents_stay_float32():
    """bf16 query vectors (what auto picks on an AMX CPU) against the float32 ones of the
    same model: the same direction to within cosine 0.99, on any CPU (torch emulates bf16
    where the hardware lacks it). The document encoder is untouched, and one precision
    loads one copy of the model."""
    import numpy as np

    bf16 = Embedder(query_precision="bfloat16", device="cpu", query_cache=0)
    fp32 = Embedder(query_precision="float32", device="cpu", query_cache=0)
    assert next(bf16.query_encoder.model.parameters()).dtype == torch.bfloat16
    assert next(bf16.doc_encoder.model.parameters()).dtype == torch.float32
    assert fp32.query_encoder is fp32.doc_encoder  # same model, device and dtype: one copy
    a, b = bf16.embed_queries(TEXTS), fp32.embed_queries(TEXTS)
    assert a.dtype == np.float32 and a.shape == b.shape
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    assert cos.min() > 0.99, cos
    # and it still tells texts apart: each bf16 query is nearest its own float32 vector
    assert list((a @ b.T).argmax(axis=1)) == list(range(len(TEXTS)))


@pytest.mark.parametrize("cores, want", [(1, 1), (2, 1), (3, 1), (4, 2), (16, 8)])
def test_a_server_gives_torch_half_the_cores_by_default(cores, want):
    from biorag.host.device import serving_torch_threads

    assert serving_torch_threads(0, cores) == want


def test_an_explicit_server_thread_count_is_kept_and_a_negative_one_refused():
    """The setting refuses a negative count (on load and on assignment): the one check."""
    from pydantic import ValidationError

    from biorag.host.device import serving_torch_threads
    from biorag.settings import load_settings

    assert serving_torch_threads(3, 2) == 3
    with pytest.raises(ConfigError, match="torch_threads"):
        load_settings("embedded", sets=["serve.torch_threads=-2"])
    settings = load_settings("embedded")
    with pytest.raises(ValidationError, match="torch_threads"):
        settings.serve.torch_threads = -1


def test_the_thread_limit_holds_for_threads_started_after_it():
    """In a fresh process (the test process keeps its own count): the batch worker and the
    rebuild jobs are threads the server starts after applying the limit."""
    import subprocess
    import sys

    code = ("import threading, torch\n"
            "from biorag.host.device import limit_torch_threads\n"
            "print(limit_torch_threads(1))\n"
            "seen = []\n"
            "t = threading.Thread(target=lambda: seen.append(torch.get_num_threads())); t.start(); t.join()\n"
            "print(seen[0])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["1", "1"]
