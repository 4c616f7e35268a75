"""The build's embed stage: which encoder path runs, and the raw rate it is measured against.

A plain `Embedder` is fed token ids that the reader processes made (`indexing.encode`): the
model's forward alone runs on this thread. An embedder subclass may override
`embed_documents` (tests count its calls or make it fail), so it is given texts, as is a
model whose tokenizer the readers cannot reproduce (no `tokenizer.json`).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from indexing.encode import TokenEncoder, TokenizerSpec, tokenizer_spec

if TYPE_CHECKING:
    from biorag.ml.embedder import Embedder


class RateFigures:
    """The rate figures a build's and the shard stage's reports share. Needs the attributes
    `seconds`, `raw_rate`, `raw_sample`, `device`, `read_workers`; `written_rows()` says
    what the pipeline wrote."""

    # provided by the dataclass that mixes this in (annotations only: no fields here)
    seconds: dict[str, float]
    raw_rate: float
    raw_sample: int
    device: str
    read_workers: int

    def written_rows(self) -> int:
        raise NotImplementedError

    def pipeline_per_s(self) -> float:
        """Records/s from the first read to the last write (start-up and verification apart)."""
        secs = self.seconds.get("pipeline")
        return self.written_rows() / secs if secs else 0.0

    def rate_fields(self) -> dict:
        raw = self.raw_rate
        return {"pipeline_records_per_s": round(self.pipeline_per_s(), 2),
                "pipeline_to_raw": round(self.pipeline_per_s() / raw, 3) if raw else None}

    def rate_line(self) -> str | None:
        """The end-to-end rate next to the raw encoder rate, or None when not measured."""
        r = self
        if not r.raw_rate:
            return None
        return (f"rate: end-to-end {r.pipeline_per_s():.1f} records/s (read -> written, "
                f"{r.seconds.get('pipeline', 0):.1f}s, {r.read_workers or 'no'} reader process(es)) vs raw "
                f"encoder {r.raw_rate:.1f} texts/s (warm sample of {r.raw_sample} of these texts, {r.device}): "
                f"ratio {r.pipeline_per_s() / r.raw_rate:.2f}")


def auto_read_workers(requested: int) -> int:
    """`index.read_workers`: -1 = one process per core beyond the first (at least 1, at most 8)."""
    if requested >= 0:
        return requested
    return max(1, min(8, (os.cpu_count() or 2) - 1))


class EmbedStage:
    def __init__(self, embedder: Embedder, batch_size: int):
        from biorag.ml.embedder import Embedder, model_path

        self.embedder = embedder
        self.batch_size = batch_size
        self.spec: TokenizerSpec | None = (
            tokenizer_spec(model_path(embedder.name)) if type(embedder) is Embedder else None
        )
        self._encoder: TokenEncoder | None = None

    @property
    def encoder(self) -> TokenEncoder:
        if self._encoder is None:
            self._encoder = TokenEncoder(self.embedder.doc_encoder.model, self.batch_size)
        return self._encoder

    @property
    def device(self) -> str:
        model = getattr(getattr(self.embedder, "doc_encoder", None), "model", None)
        if model is None:  # an embedder without a torch model of its own (a wrapper)
            return "unknown"
        p = next(model.parameters())
        return f"{p.device.type} {str(p.dtype).removeprefix('torch.')}"

    def on_cuda(self) -> bool:
        return self.device.startswith("cuda")

    def __call__(self, records, tokens):
        if tokens is not None and self.spec is not None:
            return self.encoder.encode(tokens)
        return self.embedder.embed_documents([r.document_text() for r in records])

    def raw_rate(self, sample: list) -> float:
        """Texts/s of the encoder alone on `sample` (token ids, or texts for the text path),
        warm: one batch first, not timed."""
        if not sample:
            return 0.0
        if isinstance(sample[0], list):
            return self.encoder.raw_rate(sample)
        self.embedder.embed_documents(sample[: self.batch_size])
        t0 = time.perf_counter()
        self.embedder.embed_documents(sample)
        return len(sample) / (time.perf_counter() - t0)


def embed_all(reader, stage: EmbedStage, writer, report, settings, batch_size: int, progress: bool) -> None:
    """Run the pipeline (`indexing.pipeline.run`) from the started `reader` through `stage`
    into `writer` (started here), with a progress bar; then fill `report`'s read counts,
    stage times, device and the raw encoder rate on a warm sample of the same texts."""
    from tqdm import tqdm

    from indexing import pipeline

    bar = tqdm(total=None, unit="rec", desc="indexing", disable=not progress, dynamic_ncols=True)

    def on_message(stats) -> None:
        report.read, report.kept, report.dropped = stats.read, stats.kept, dict(stats.dropped)
        bar.n = stats.read
        bar.set_postfix(kept=stats.kept, dropped=sum(stats.dropped.values()))
        bar.refresh()

    # on an accelerator, windows of many batches: length sorting pads less, transfers overlap
    window = max(batch_size, 8 * settings.index.batch_size) if stage.on_cuda() else batch_size
    writer.start()
    try:
        sample = settings.index.raw_rate_sample if settings.index.rate_sample else 0
        es = pipeline.run(reader, writer, stage, window, sample, on_message)
    finally:
        bar.close()
    stats = reader.stats
    report.resumed_items = stats.resumed
    report.read, report.kept, report.dropped = stats.read, stats.kept, dict(stats.dropped)
    report.device = stage.device
    report.seconds.update(parse=stats.parse_s, clean=stats.clean_s, embed=es.seconds, load=writer.load_s,
                          pipeline=es.pipeline_s)
    if es.sample:
        t0 = time.perf_counter()
        report.raw_rate, report.raw_sample = stage.raw_rate(es.sample), len(es.sample)
        report.seconds["raw_rate"] = time.perf_counter() - t0
