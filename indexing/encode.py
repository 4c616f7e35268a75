"""Document encoding from token ids: what the build's embed stage runs.

`SentenceTransformer.encode()` tokenizes, pads and moves each batch on the calling thread,
so the accelerator waits for the host between batches (that path measured 0.24 of the raw
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

import itertools
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


#: characters kept of a long text before tokenizing, per token of the model's max_length: a
#: cut at whitespace past this many characters leaves every real PubMed abstract of the sample
#: corpus at least max_length tokens (the longest need was 6.3 characters per token)
CUT_CHARS_PER_TOKEN = 7


def _cut(text: str, chars: int) -> str:
    """The text up to its last whitespace before `chars` characters (the whole text when shorter)."""
    if len(text) <= chars:
        return text
    at = max(text.rfind(" ", 0, chars), text.rfind("\n", 0, chars))
    return text[:at] if at > 0 else text


def tokenize(tok, spec: TokenizerSpec, texts: list[str], library_only: bool = False) -> list[list[int]]:
    """Token ids per text, truncated like the model's own tokenizer (texts stripped first).

    Truncation throws away most of a long abstract's tokens, so only a prefix is tokenized:
    the text cut at whitespace after `CUT_CHARS_PER_TOKEN` x max_length characters. Word
    pieces never cross whitespace, so the prefix's tokens begin the whole text's; when the
    prefix still fills max_length the truncated ids are the same, and a text whose prefix
    falls short is tokenized whole. `encode_batch_fast` (no offsets) where the installed
    `tokenizers` has it: together about 1.25 x the rate of `encode_batch` on whole texts,
    and about 4 x more where a BERT tokenizer's normalizer and pre-tokenizer run in Python
    (`_encode`; `library_only` turns that off, for `benchmarks/tokenizer_rate.py`)."""
    prepared = [t.strip().lower() if spec.lower else t.strip() for t in texts]
    chars = CUT_CHARS_PER_TOKEN * spec.max_length
    cut = [_cut(t, chars) for t in prepared]
    ids = _encode(tok, cut, library_only)
    short = [i for i, (t, c, x) in enumerate(zip(prepared, cut, ids, strict=True))
             if c is not t and len(x) < spec.max_length]
    if short:
        for i, x in zip(short, _encode(tok, [prepared[i] for i in short], library_only), strict=True):
            ids[i] = x
    return ids


#: per tokenizer object: the BERT fast path (`indexing.bert_pretokenize`) or None; the
#: tokenizer is kept alongside so that its id is not reused
_FAST: dict[int, tuple[object, object]] = {}


def fast_path(tok):
    """`tok`'s BERT fast path (`indexing.bert_pretokenize.BertPretokenizer`), built once per
    tokenizer object, or None when `tok` does not qualify."""
    from indexing import bert_pretokenize

    if id(tok) not in _FAST:
        _FAST[id(tok)] = (tok, bert_pretokenize.for_tokenizer(tok))
    return _FAST[id(tok)][1]


def _encode(tok, texts: list[str], library_only: bool = False) -> list[list[int]]:
    """Token ids of `texts`: through `bert_pretokenize` where the tokenizer and the text
    allow it (the same ids, about 4 x faster), the rest through `tok` itself."""
    fast = None if library_only else fast_path(tok)
    ids = fast.encode(texts) if fast is not None else [None] * len(texts)
    hard = [i for i, x in enumerate(ids) if x is None]
    if hard:
        encode = getattr(tok, "encode_batch_fast", tok.encode_batch)
        for i, e in zip(hard, encode([texts[i] for i in hard]), strict=True):
            ids[i] = e.ids
    return ids


def forget_words(tok) -> None:
    """Empty `tok`'s word cache on the BERT fast path, if it has one (see `_encode`)."""
    fast = fast_path(tok)
    if fast is not None:
        fast.forget()


def _padded(ids: list[list[int]], pad_id: int, dtype):
    """(token ids padded to the longest row, row lengths) as numpy arrays of `dtype`, and the
    boolean mask of the real tokens."""
    import numpy as np

    lengths = np.fromiter(map(len, ids), dtype=dtype, count=len(ids))
    mask = np.arange(lengths.max(initial=0)) < lengths[:, None]
    host = np.full(mask.shape, pad_id, dtype=dtype)
    host[mask] = np.fromiter(itertools.chain.from_iterable(ids), dtype=dtype, count=int(lengths.sum()))
    return host, lengths, mask


def pad_ids(ids: list[list[int]], pad_id: int = 0):
    """(token ids, attention mask) as int64 arrays padded to the longest row."""
    import numpy as np

    host, _, mask = _padded(ids, pad_id, np.int64)
    return host, mask.astype(np.int64)


def sorted_batches(ids: list[list[int]], batch_size: int, pad_id: int = 0) -> tuple[list[int], list[tuple]]:
    """(order, batches): the rows' indices sorted by length, and per `batch_size` rows in that
    order (token ids padded to the batch's longest row, row lengths), int32 numpy arrays.
    Tokenizer processes build them, so the process that owns the GPU only copies: a quarter
    of the bytes of int64 ids and mask, which `TokenEncoder` rebuilds on the device (an empty
    row becomes one pad token)."""
    import numpy as np

    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    return order, [_padded([ids[i] or [pad_id] for i in order[s : s + batch_size]], pad_id, np.int32)[:2]
                   for s in range(0, len(order), batch_size)]


def on_device(array, device):
    """A host array as a tensor on `device`: on CUDA through pinned memory, copied without
    blocking the host."""
    import torch

    t = torch.from_numpy(array)
    if device.type == "cuda":
        return t.pin_memory().to(device, non_blocking=True)
    return t.to(device)


@dataclass
class Pending:
    """Work queued by `TokenEncoder.submit`: the rows' order, the vectors (on CUDA still being
    copied) and the CUDA event recorded after the last copy (None elsewhere)."""

    order: list[int]
    parts: list
    done: object = None


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

    def _on_device(self, host, lengths):
        """The model's features from one of `sorted_batches`' batches: int64 ids and the
        attention mask, made on the device from the int32 ids and row lengths."""
        torch = self._torch
        input_ids = on_device(host, self.device).long()
        positions = torch.arange(host.shape[1], device=self.device)
        mask = (positions < on_device(lengths, self.device).long()[:, None]).long()
        feats = {"input_ids": input_ids, "attention_mask": mask}
        if self.token_type_ids:
            feats["token_type_ids"] = torch.zeros_like(input_ids)
        return feats

    def submit(self, order: list[int], batches: list[tuple]) -> Pending:
        """Queue the forwards of `sorted_batches`' output and the vectors' copies to the host;
        on CUDA nothing waits for the GPU, so the caller can prepare (or submit) the next
        work while this runs. `collect` returns the vectors."""
        torch = self._torch
        parts = []
        with torch.inference_mode():
            for host, lengths in batches:
                out = self.model.forward(self._on_device(host, lengths))
                vecs = torch.nn.functional.normalize(out["sentence_embedding"].float(), dim=-1)
                parts.append(vecs.to("cpu", non_blocking=True) if self.cuda else vecs)
        done = None
        if self.cuda:
            done = torch.cuda.Event()
            done.record()
        return Pending(order, parts, done)

    def collect(self, pending: Pending):
        """The vectors of submitted work, in the rows' original order (waits for that work
        only, not for what was submitted after it)."""
        import numpy as np

        if not pending.parts:
            return np.zeros((0, 0), dtype=np.float32)
        if pending.done is not None:
            pending.done.synchronize()
        sorted_vecs = self._torch.cat(pending.parts).numpy()
        out = np.empty_like(sorted_vecs)
        out[np.asarray(pending.order)] = sorted_vecs
        return out.astype(np.float32, copy=False)

    def encode(self, ids: list[list[int]]):
        """Vectors in the order of `ids`, computed in length-sorted batches. On CUDA the host
        pads and copies the next batch while the GPU computes this one: vectors come back
        without blocking and are read after the last batch (a `.cpu()` per batch left the
        GPU idle during each batch's host work)."""
        return self.collect(self.submit(*sorted_batches(ids, self.batch_size, self.pad_id)))

    def raw_rate(self, ids: list[list[int]], repeat_min_s: float = 0.0) -> float:
        """Texts per second of the forward alone on these token ids: the same length-sorted
        batches as `encode`, padded and on the device before the clock starts, vectors left
        there; after one warm-up batch, the sample runs again until `repeat_min_s` has passed
        (0: once)."""
        if not ids:
            return 0.0
        torch = self._torch
        batches = [self._on_device(*b) for b in sorted_batches(ids, self.batch_size, self.pad_id)[1]]
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
