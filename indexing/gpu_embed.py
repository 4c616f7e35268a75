"""GPU entry point for the build's embed stage: real abstracts through tokenizer processes,
length-sorted batches, pinned memory and half precision, timed against the raw encoder.

    python -m indexing.gpu_embed --input abstracts/ --model /path/to/all-MiniLM-L6-v2
    python -m indexing.gpu_embed --input shards/ --arch bert-base --tokenizer benchmarks/device/minilm_tokenizer

It needs only torch, transformers (whose `tokenizers` it uses) and pyarrow, the packages
an accelerator machine has: it reads PubMed XML (`.xml`/`.xml.gz`, with the standard
library) or the bulk path's Parquet shards (title and abstract columns), and imports from
this repository only `indexing.encode` (numpy and torch). When the package is installed,
its options default to the settings tree (`index.embedder`, `index.batch_size`,
`index.device`); flags override them, and stand alone when it is not installed.

The corpus is repeated until the embed stage has run for `--min-seconds` (60 by default):
a few thousand abstracts take a GPU about a second, too short to time. It prints how often
the corpus was repeated, the end-to-end rate (texts in, vectors on the host), the raw
encoder rate on a warm sample of the same token ids (forward only, no tokenization, no
transfers), and their ratio. `--arch bert-base` is the BERT-base shape (`BertConfig()`
defaults) and `--arch minilm-l6` all-MiniLM-L6-v2's (6 x 384), randomly initialised: no
weights need reach the accelerator machines, only a tokenizer (`--tokenizer`; a copy is in
benchmarks/device/minilm_tokenizer). Its reader and model pieces also serve the training
loops' entry point, `training.gpu_train`.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import io
import itertools
import json
import multiprocessing as mp
import os
import re
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from indexing.encode import (
    TokenEncoder,
    TokenizerSpec,
    forget_words,
    sorted_batches,
    tokenize,
    tokenizer_spec,
)

# ---- options: the settings tree when installed, flags always --------------------------------


def settings_defaults() -> dict:
    """index.* defaults from the installed package's settings tree, or {} without it."""
    try:
        from biorag.settings import load_settings
    except ImportError:
        return {}
    ix = load_settings().index
    out = {"batch_size": ix.batch_size, "device": ix.device}
    try:
        from biorag.ml.embedder import model_path

        out["model"] = model_path(ix.embedder)
    except Exception:  # noqa: BLE001 - the bundled model package may be missing: then --model is needed
        pass
    return out


def add_arch_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--arch", choices=["model", *ARCHS], default="model",
                   help="model: the weights in --model; bert-base (BertConfig()), minilm-l6 (all-MiniLM-L6-v2's "
                   "shape), tiny (2 x 32, for CPU tests): that shape, randomly initialised")
    p.add_argument("--tokenizer", help="sentence-transformers directory whose tokenizer to use with a random "
                   "--arch (default: --model)")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    d = settings_defaults()
    p = argparse.ArgumentParser(prog="python -m indexing.gpu_embed", description=__doc__.split("\n\n")[0])
    p.add_argument("--input", nargs="+", required=True, help="PubMed XML files/folders or Parquet shards/folders")
    p.add_argument("--model", default=d.get("model"), help="sentence-transformers model directory "
                   "(default: index.embedder when the package is installed)")
    add_arch_options(p)
    p.add_argument("--batch-size", type=int, default=None, help="texts per forward (default: 512 on CUDA, "
                   "else index.batch_size or 64)")
    p.add_argument("--device", default=d.get("device", "auto"), help="auto | cpu | cuda | cuda:N")
    p.add_argument("--dtype", choices=["auto", "float32", "float16", "bfloat16"], default="auto",
                   help="auto: bf16 where the GPU supports it, else fp16; fp32 on CPU")
    p.add_argument("--min-seconds", type=float, default=60.0, help="repeat the corpus until the embed stage ran this long")
    p.add_argument("--workers", type=int, default=max(1, min(8, (os.cpu_count() or 2) - 1)),
                   help="tokenizer processes")
    p.add_argument("--raw-sample", type=int, default=4096, help="texts in the raw-rate sample")
    p.add_argument("--max-texts", type=int, default=0, help="use at most this many texts of the input (0: all)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    a = p.parse_args(argv)
    a.default_batch = d.get("batch_size", 64)
    if not a.model and not a.tokenizer:
        p.error("give --model DIR (or --tokenizer DIR with a random --arch): the package's settings are not available")
    return a


# ---- input: real abstracts ---------------------------------------------------------------


def _files(inputs: list[str]) -> list[Path]:
    out: list[Path] = []
    for raw in inputs:
        p = Path(raw).expanduser()
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.name.endswith((".xml", ".xml.gz", ".parquet")))
        elif p.is_file():
            out.append(p)
        else:
            raise SystemExit(f"error: {p}: no such file or directory")
    if not out:
        raise SystemExit("error: no .xml, .xml.gz or .parquet input found")
    return out


def record_text(record: dict) -> str:
    """Title and abstract: the text the build embeds."""
    return f"{record['title']}\n{record['abstract']}".strip()


def _mesh(el) -> list[dict]:
    """A citation's MeSH headings as `training.records.normalise` reads them."""
    out = []
    for h in el.iterfind(".//MeshHeadingList/MeshHeading"):
        d = h.find("DescriptorName")
        if d is None or not (d.text or "").strip():
            continue
        quals = [{"name": (q.text or "").strip(), "major": q.get("MajorTopicYN") == "Y"} for q in h.iterfind("QualifierName")]
        out.append({"ui": d.get("UI", ""), "name": d.text.strip(), "major": d.get("MajorTopicYN") == "Y",
                    "qualifiers": quals})
    return out


def _citations(stream) -> list[dict]:
    """pmid, title, abstract and MeSH headings of each citation with an abstract
    (ElementTree, streaming)."""
    records = []
    for _, el in ET.iterparse(stream, events=("end",)):
        if el.tag not in ("MedlineCitation", "PubmedBookArticle"):
            continue
        title = "".join(el.find(".//ArticleTitle").itertext()) if el.find(".//ArticleTitle") is not None else ""
        abstract = "\n".join("".join(a.itertext()) for a in el.iterfind(".//Abstract/AbstractText"))
        if abstract.strip():
            pmid = el.find(".//PMID")
            records.append({"pmid": (pmid.text or "").strip() if pmid is not None else "", "title": title,
                            "abstract": abstract, "mesh": _mesh(el)})
        el.clear()
    return records


_PROLOG = re.compile(rb"<\?xml[^>]*\?>|<!DOCTYPE[^>\[]*(\[[^\]]*\])?\s*>")


def _xml_records(path: Path) -> list[dict]:
    def opened():
        return gzip.open(path) if path.name.endswith(".gz") else open(path, "rb")

    try:
        with opened() as f:
            return _citations(f)
    except ET.ParseError:  # some exports hold bare <PubmedArticle> elements with no common root
        with opened() as f:
            body = _PROLOG.sub(b"", f.read())
    try:
        return _citations(io.BytesIO(b"<PubmedArticleSet>" + body + b"</PubmedArticleSet>"))
    except ET.ParseError as e:
        raise SystemExit(f"error: {path}: not well-formed XML ({e}): fix or leave out this file") from None


def _parquet_records(path: Path) -> list[dict]:
    import pyarrow.parquet as pq

    names = set(pq.read_schema(path).names)
    t = pq.read_table(path, columns=[c for c in ("pmid", "title", "abstract") if c in names]).to_pylist()
    return [{"pmid": str(r.get("pmid", "")), "title": r["title"] or "", "abstract": r["abstract"] or "", "mesh": []}
            for r in t]


def read_records(inputs: list[str], max_records: int = 0) -> list[dict]:
    """The citations with an abstract in these XML files or Parquet shards (Parquet shards
    carry no MeSH headings)."""
    records: list[dict] = []
    for f in _files(inputs):
        records += _parquet_records(f) if f.name.endswith(".parquet") else _xml_records(f)
        if max_records and len(records) >= max_records:
            return records[:max_records]
    return records


def read_texts(inputs: list[str], max_texts: int = 0) -> list[str]:
    return [record_text(r) for r in read_records(inputs, max_texts)]


# ---- model -------------------------------------------------------------------------------


class PooledEncoder:
    """A transformers encoder with the sentence-transformers pooling of its directory (mean
    or CLS), exposing forward(features) -> {"sentence_embedding"} like a SentenceTransformer.

    `mask_4d`: hand an SDPA model a boolean (batch, 1, 1, length) mask built on the device.
    Given the 2D mask, transformers' SDPA path asks `padding_mask.all()` in Python to skip
    the mask when nothing is padded: a host-GPU sync in every forward, which stops the host
    queueing the next work. A 4D mask is used as given, so nothing waits; but a batch with
    no padding then runs with a mask instead of the flash kernel. The training loop (its
    batches are padded anyway) sets it; the embed stage, whose length-sorted batches are
    mostly unpadded, does not."""

    def __init__(self, model, pooling: str, mask_4d: bool = False):
        self.model, self.pooling, self.mask_4d = model, pooling, mask_4d

    def parameters(self):
        return self.model.parameters()

    def forward(self, feats: dict):
        mask2d = feats["attention_mask"]
        if self.mask_4d and getattr(self.model.config, "_attn_implementation", None) == "sdpa":
            # SDPA takes a boolean mask (True: attend) in any precision, broadcast over heads and queries
            feats = {**feats, "attention_mask": mask2d[:, None, None, :].bool()}
        out = self.model(**feats).last_hidden_state
        if self.pooling == "cls":
            return {"sentence_embedding": out[:, 0]}
        mask = mask2d.unsqueeze(-1).to(out.dtype)
        return {"sentence_embedding": (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)}


def pick(device: str, dtype: str):
    import torch

    dev = device
    if device == "auto":
        dev = "cuda" if torch.cuda.is_available() else "cpu"
    if dtype == "auto":
        dtype = ("bfloat16" if torch.cuda.is_bf16_supported() else "float16") if dev.startswith("cuda") else "float32"
    return torch.device(dev), getattr(torch, dtype)


#: randomly initialised shapes: BERT-base (PubMedBERT's shape), all-MiniLM-L6-v2's, and a tiny one for CPU tests
ARCHS = {
    "bert-base": ({}, "BERT-base shape (BertConfig())"),
    "minilm-l6": ({"hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12, "intermediate_size": 1536},
                  "all-MiniLM-L6-v2 shape (BertConfig, 6 x 384)"),
    "tiny": ({"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64},
             "tiny shape (BertConfig, 2 x 32)"),
}


def build_encoder(arch: str, model_dir: str | None = None):
    """(transformers encoder in float32 on the CPU, pooling, description): the weights in
    `model_dir` for arch "model", else the named shape with seeded random weights."""
    import torch
    from transformers import AutoModel, BertConfig, BertModel

    if arch == "model":
        d = Path(model_dir)
        model = AutoModel.from_pretrained(d, local_files_only=True)
        pool_cfg = d / "1_Pooling" / "config.json"
        pooling = "cls" if pool_cfg.exists() and json.loads(pool_cfg.read_text()).get("pooling_mode_cls_token") else "mean"
        return model, pooling, f"{d.name} weights"
    overrides, what = ARCHS[arch]
    torch.manual_seed(0)
    return BertModel(BertConfig(**overrides)), "mean", f"{what}, randomly initialised"


def tokenizer_of(a: argparse.Namespace) -> TokenizerSpec:
    """The tokenizer of --tokenizer (else --model), or exit with what to give."""
    spec = tokenizer_spec(a.tokenizer or a.model)
    if spec is None:
        raise SystemExit(f"error: {a.tokenizer or a.model}: not a sentence-transformers directory with tokenizer.json")
    return spec


def load_model(a: argparse.Namespace):
    device, dtype = pick(a.device, a.dtype)
    model, pooling, what = build_encoder(a.arch, a.model)
    model = model.to(device=device, dtype=dtype).eval()
    return PooledEncoder(model, pooling), device, dtype, what


# ---- tokenizer processes -----------------------------------------------------------------

_TOK = None
_SPEC: TokenizerSpec | None = None


def _init_tokenizer(spec: TokenizerSpec) -> None:
    global _TOK, _SPEC
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    _TOK, _SPEC = spec.load(), spec


def _tokenize_chunk(texts: list[str]) -> list[list[int]]:
    return tokenize(_TOK, _SPEC, texts)


_SEEN: set[int] = set()


def _batched_chunk(texts: list[str], batch_size: int, chunk: int | None = None) -> tuple[list[int], list[tuple]]:
    """A chunk tokenized, length-sorted and padded into batches, in a tokenizer process: the
    GPU's process then only copies numpy arrays (pickled as bytes, not lists of ints).

    The corpus is repeated, and a build never sees an abstract twice: a process given a
    `chunk` it has tokenized before first forgets the words it cached (`bert_pretokenize`),
    so every chunk meets a cache of other abstracts' words, as in a build."""
    if chunk is not None:
        if chunk in _SEEN:
            forget_words(_TOK)
            _SEEN.clear()
        _SEEN.add(chunk)
    return sorted_batches(tokenize(_TOK, _SPEC, texts), batch_size)


def ahead(pool, fn, jobs: Iterator[tuple], depth: int) -> Iterator[tuple]:
    """(key, fn(*args)) for each (key, args) of `jobs`, in order, with `depth` jobs handed to
    the pool ahead of the one returned: the workers tokenize while the caller computes."""
    pending = collections.deque((key, pool.apply_async(fn, args)) for key, args in itertools.islice(jobs, depth))
    while pending:
        key, job = pending.popleft()
        nxt = next(jobs, None)
        if nxt is not None:
            pending.append((nxt[0], pool.apply_async(fn, nxt[1])))
        yield key, job.get()


# ---- the run -----------------------------------------------------------------------------


def run(a: argparse.Namespace) -> dict:
    import torch

    texts = read_texts(a.input, a.max_texts)
    if not texts:
        raise SystemExit("error: the input holds no abstracts")
    spec = tokenizer_of(a)
    model, device, dtype, what = load_model(a)
    cuda = device.type == "cuda"
    if cuda:  # the host's cores are the tokenizer processes': no idle intra-op threads spinning beside them
        torch.set_num_threads(1)
    batch = a.batch_size or (512 if cuda else a.default_batch)
    enc = TokenEncoder(model, batch_size=batch)
    window = batch * (8 if cuda else 4)
    chunks = [texts[i : i + window] for i in range(0, len(texts), window)]

    ctx = mp.get_context("spawn")
    with ctx.Pool(a.workers, initializer=_init_tokenizer, initargs=(spec,)) as pool:
        # warm-up, untimed: model kernels and the tokenizer processes' start
        enc.collect(enc.submit(*pool.apply(_batched_chunk, (texts[:batch], batch))))
        # what the tokenizer processes supply alone: one (full) chunk for each
        t0 = time.perf_counter()
        supplied = sum(len(order) for order, _ in pool.starmap(
            _batched_chunk, [(chunks[0], batch)] * a.workers, chunksize=1))
        supply = supplied / (time.perf_counter() - t0)
        # the tokenizer processes stay a few chunks ahead of the model, across passes too; a
        # chunk's vectors are read after the next chunk is queued, so the GPU never drains
        jobs = ((i, (chunks[i], batch, i)) for i in itertools.cycle(range(len(chunks))))
        stream = ahead(pool, _batched_chunk, jobs, 2 * a.workers + 2)
        passes, n, waited, pending, t0 = 0, 0, 0.0, None, time.perf_counter()
        while True:
            tw = time.perf_counter()
            i, (order, batches) = next(stream)
            waited += time.perf_counter() - tw
            queued = enc.submit(order, batches)
            if pending is not None:
                n += len(enc.collect(pending))
            pending = queued
            if i == len(chunks) - 1:
                passes += 1
                if time.perf_counter() - t0 >= a.min_seconds:
                    break
        n += len(enc.collect(pending))
        e2e_s = time.perf_counter() - t0
        sample = pool.apply(_tokenize_chunk, (texts[: a.raw_sample],))
    raw = enc.raw_rate(sample, repeat_min_s=min(10.0, max(1.0, a.min_seconds / 6)))
    lengths = [len(x) for x in sample]
    e2e = n / e2e_s
    return {
        "device": f"{device.type} {str(dtype).removeprefix('torch.')}"
                  + (f" ({torch.cuda.get_device_name(device)})" if cuda else ""),
        "model": what, "texts": len(texts), "passes": passes, "embedded": n, "seconds": round(e2e_s, 2),
        "batch_size": batch, "tokenizer_processes": a.workers, "tokenizer_supply_per_s": round(supply, 1),
        "waiting_for_tokens_s": round(waited, 2),
        "mean_tokens": round(sum(lengths) / len(lengths), 1), "max_tokens": max(lengths),
        "end_to_end_per_s": round(e2e, 1), "raw_per_s": round(raw, 1), "ratio": round(e2e / raw, 3) if raw else None,
        "projected_22m_hours": round(22_000_000 / e2e / 3600, 2),
    }


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    r = run(a)
    if a.json:
        print(json.dumps(r))
        return 0
    print(f"device: {r['device']}; model: {r['model']}; batch {r['batch_size']}, {r['tokenizer_processes']} tokenizer "
          f"process(es)")
    print(f"corpus: {r['texts']} real abstracts (mean {r['mean_tokens']} tokens, max {r['max_tokens']}), repeated "
          f"{r['passes']} time(s) to run >= the minimum: {r['embedded']} texts in {r['seconds']}s")
    print(f"tokenizer processes alone: {r['tokenizer_supply_per_s']} texts/s; the model's process waited "
          f"{r['waiting_for_tokens_s']}s of {r['seconds']}s for tokens")
    print(f"end-to-end {r['end_to_end_per_s']} texts/s vs raw encoder {r['raw_per_s']} texts/s (same run, warm "
          f"sample of these token ids): ratio {r['ratio']}; 22M abstracts at this rate: {r['projected_22m_hours']} h")
    return 0


if __name__ == "__main__":
    sys.exit(main())
