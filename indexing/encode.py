"""Document encoding from token ids: what the build's embed stage runs.

`SentenceTransformer.encode()` tokenizes, pads and moves each batch on the calling thread,
so the accelerator waits for the host between batches (issue 13 measured 0.24 of the raw
rate on an H100). Here the reader processes have already tokenized (`TokenizerSpec`, with
the `tokenizers` library only), and this module only pads, moves and runs the model:

- batches are length-sorted within what it is given, so little padding is computed;
- on CUDA the padded batch is built in pinned host memory and copied without blocking, and
  the model runs in the half precision the embedder loaded it in (fp16/bf16); on CPU
  neither applies;
- `raw_rate` times the same forward on a warm sample of the same token ids, already padded
  and on the device, so a build can print its end-to-end rate next to what its model does
  alone.

Imports only numpy and torch (never biorag): the GPU entry point uses it too.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TokenizerSpec:
    """How to tokenize documents exactly as the sentence-transformers model does."""

    tokenizer_json: str
    max_length: int
    lower: bool = False

    def load(self):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(self.tokenizer_json)
        tok.no_padding()
        tok.enable_truncation(self.max_length)
        return tok


def tokenizer_spec(model_dir: str | Path) -> TokenizerSpec | None:
    """The spec of a sentence-transformers directory whose first module is a Transformer
    with a fast tokenizer (`tokenizer.json`), else None (the build then lets the model
    tokenize, on the main thread)."""
    d = Path(model_dir)
    try:
        modules = json.loads((d / "modules.json").read_text())
        first = modules[0]
        if not first.get("type", "").endswith("Transformer"):
            return None
        sub = d / first.get("path", "")
        cfg = json.loads((sub / "sentence_bert_config.json").read_text())
    except (OSError, ValueError, IndexError, KeyError):
        return None
    tj = sub / "tokenizer.json"
    if not tj.exists() or not cfg.get("max_seq_length"):
        return None
    return TokenizerSpec(str(tj), int(cfg["max_seq_length"]), bool(cfg.get("do_lower_case", False)))


def tokenize(tok, spec: TokenizerSpec, texts: list[str]) -> list[list[int]]:
    """Token ids per text, truncated like the model's own tokenizer (texts stripped first)."""
    prepared = [t.strip().lower() if spec.lower else t.strip() for t in texts]
    return [e.ids for e in tok.encode_batch(prepared)]


def pad_ids(ids: list[list[int]], pad_id: int = 0):
    """(token ids, attention mask) as int64 arrays padded to the longest row."""
    import numpy as np

    width = max(len(x) for x in ids)
    host = np.full((len(ids), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for i, x in enumerate(ids):
        host[i, : len(x)] = x
        mask[i, : len(x)] = 1
    return host, mask


def on_device(array, device):
    """A host array as a tensor on `device`: on CUDA through pinned memory, copied without
    blocking the host."""
    import torch

    t = torch.from_numpy(array)
    if device.type == "cuda":
        return t.pin_memory().to(device, non_blocking=True)
    return t.to(device)


class TokenEncoder:
    """Runs a sentence-transformers model (or any module whose forward takes input_ids and
    attention_mask and returns `sentence_embedding`) on token ids; unit-length float32 rows."""

    def __init__(self, model, batch_size: int = 64, pad_id: int = 0, token_type_ids: bool = True):
        import torch

        self.model = model
        self.batch_size = batch_size
        self.pad_id = pad_id
        self.token_type_ids = token_type_ids
        first = next(model.parameters())
        self.device = first.device
        self.cuda = first.device.type == "cuda"
        self._torch = torch

    def _batch(self, ids: list[list[int]]):
        host, mask = pad_ids(ids, self.pad_id)
        feats = {"input_ids": on_device(host, self.device), "attention_mask": on_device(mask, self.device)}
        if self.token_type_ids:
            feats["token_type_ids"] = self._torch.zeros_like(feats["input_ids"])
        return feats

    def encode(self, ids: list[list[int]]):
        """Vectors in the order of `ids`, computed in length-sorted batches.

        On CUDA nothing waits for the GPU until every batch is queued: the vectors come back
        without blocking and are read after one synchronize, so the host pads and copies the
        next batch while the GPU computes this one (a `.cpu()` per batch left the GPU idle
        during each batch's host work)."""
        import numpy as np

        if not ids:
            return np.zeros((0, 0), dtype=np.float32)
        torch = self._torch
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        parts = []
        with torch.inference_mode():
            for s in range(0, len(order), self.batch_size):
                out = self.model.forward(self._batch([ids[i] or [self.pad_id] for i in order[s : s + self.batch_size]]))
                vecs = torch.nn.functional.normalize(out["sentence_embedding"].float(), dim=-1)
                parts.append(vecs.to("cpu", non_blocking=True) if self.cuda else vecs)
        if self.cuda:
            torch.cuda.synchronize()
        sorted_vecs = torch.cat(parts).numpy()
        out_vecs = np.empty_like(sorted_vecs)
        out_vecs[np.asarray(order)] = sorted_vecs
        return out_vecs.astype(np.float32, copy=False)

    def raw_rate(self, ids: list[list[int]], repeat_min_s: float = 0.0) -> float:
        """Texts per second of the forward alone on these token ids: the same length-sorted
        batches as `encode`, padded and on the device before the clock starts, vectors left
        there; after one warm-up batch, the sample runs again until `repeat_min_s` has passed
        (0: once)."""
        if not ids:
            return 0.0
        torch = self._torch
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        batches = [self._batch([ids[i] or [self.pad_id] for i in order[s : s + self.batch_size]])
                   for s in range(0, len(order), self.batch_size)]
        with torch.inference_mode():
            self.model.forward(batches[-1])  # warm-up: kernels, caches, allocator
            if self.cuda:
                torch.cuda.synchronize()
            n, t0 = 0, time.perf_counter()
            while True:
                for b in batches:
                    self.model.forward(b)
                if self.cuda:
                    torch.cuda.synchronize()
                n += len(ids)
                if time.perf_counter() - t0 >= repeat_min_s:
                    break
        return n / (time.perf_counter() - t0)
