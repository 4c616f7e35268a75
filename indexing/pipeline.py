"""The build's streaming pipeline: reader processes -> embed -> writer thread.

- **Read, clean, tokenize** run in `index.read_workers` worker processes (0: one thread of
  this process). Input file i goes to worker i % N, which reads its files in order and
  emits messages of at most `batch` records, each with the token ids the embedder will
  need (`indexing.encode.TokenizerSpec`). The consumer takes file 0's messages from worker
  0, then file 1's from worker 1, and so on, so records, updates and DeleteCitations are
  applied in input order whatever the number of workers; bounded queues hold the readers
  back when embedding is the slower stage. With one worker, batches span files, so many
  small files still embed in full batches.
- **Embed** runs on the calling thread: records gathered from messages until a window of
  `batch` records, encoded in length-sorted batches (`indexing.encode.TokenEncoder`).
- **Write** runs in a thread: upserts, deletes, the PMID ledger and the checkpoints
  (flush, then the job file), so embedding never waits for the store. A checkpoint names
  only messages whose writes were applied, so a kill replays at most what was in flight.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError, ToolError
from indexing.records import DeleteCitations, PubmedRecord


@dataclass
class Mark:
    """Checkpoint for one input file, valid once the message carrying it is written."""

    file: Path
    items: int  # items (records and DeleteCitation blocks) of the file consumed
    done: bool = False


@dataclass
class ReadStats:
    """One reader's running totals (each message carries the latest)."""

    read: int = 0
    resumed: int = 0
    kept: int = 0
    dropped: Counter = field(default_factory=Counter)
    parse_s: float = 0.0
    clean_s: float = 0.0  # cleaning and tokenizing

    @staticmethod
    def total(parts: list[ReadStats]) -> ReadStats:
        out = ReadStats()
        for p in parts:
            out.read += p.read
            out.resumed += p.resumed
            out.kept += p.kept
            out.dropped.update(p.dropped)
            out.parse_s += p.parse_s
            out.clean_s += p.clean_s
        return out


@dataclass
class Msg:
    kind: str  # batch | delete | file_error | end
    records: list[PubmedRecord] = field(default_factory=list)
    tokens: list[list[int]] | None = None  # per record, when the reader tokenizes
    origins: list[Path] = field(default_factory=list)  # per record: the input file it came from
    pmids: list[int] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    file: Path | None = None  # the failed file, for file_error
    error: str = ""
    stats: ReadStats | None = None


# ---- readers -----------------------------------------------------------------------------


def read_files(files: list[Path], skip: dict[Path, int], min_words: int, spec, batch: int, span_files: bool,
               put: Callable[[Msg], None], stopped: Callable[[], bool]) -> None:
    """Read, clean and tokenize `files` in order, emitting messages through `put`. `skip`:
    items already committed per file (resume). Runs in a worker process or a thread."""
    from indexing.clean import Cleaner
    from indexing.encode import tokenize
    from indexing.reader import read_file

    cleaner = Cleaner(min_words=min_words)
    tok = spec.load() if spec is not None else None
    stats = ReadStats()
    records: list[PubmedRecord] = []
    origins: list[Path] = []
    marks: dict[Path, Mark] = {}

    def snapshot() -> ReadStats:
        stats.kept, stats.dropped = cleaner.kept, Counter(cleaner.counts)
        return ReadStats(**{**stats.__dict__, "dropped": Counter(stats.dropped)})

    def emit() -> None:
        nonlocal records, origins, marks
        if not records and not marks:
            return
        t0 = time.perf_counter()
        tokens = tokenize(tok, spec, [r.document_text() for r in records]) if tok is not None and records else None
        stats.clean_s += time.perf_counter() - t0
        put(Msg("batch", records=records, tokens=tokens, origins=origins, marks=list(marks.values()),
                stats=snapshot()))
        records, origins, marks = [], [], {}

    for f in files:
        if stopped():
            return
        n, done = 0, True
        it = read_file(f)
        try:
            while True:
                t0 = time.perf_counter()
                item = next(it, None)
                stats.parse_s += time.perf_counter() - t0
                if item is None:
                    break
                n += 1
                if n <= skip.get(f, 0):
                    stats.resumed += 1
                    continue
                if isinstance(item, DeleteCitations):
                    emit()  # upserts before this delete are applied first
                    put(Msg("delete", pmids=item.pmids, marks=[Mark(f, n)], stats=snapshot()))
                    continue
                stats.read += 1
                t1 = time.perf_counter()
                rec = cleaner(item)
                stats.clean_s += time.perf_counter() - t1
                if rec is not None:
                    records.append(rec)
                    origins.append(f)
                marks[f] = Mark(f, n)
                if len(records) >= batch:
                    emit()
        except InputError as e:
            emit()
            put(Msg("file_error", marks=[Mark(f, n)], file=f, error=str(e), stats=snapshot()))
            done = False
        except Stopped:
            raise
        except Exception as e:  # noqa: BLE001 - one unreadable file must fail alone, named, never the reader
            emit()
            put(Msg("file_error", marks=[Mark(f, n)], file=f, stats=snapshot(),
                    error=f"{f}: cannot be read after item {n} ({type(e).__name__}: {e})"))
            done = False
        if done:
            marks[f] = Mark(f, n, done=True)
            if not span_files or len(records) >= batch:
                emit()
    emit()
    put(Msg("end", stats=snapshot()))


def _worker_main(files, skip, min_words, spec, batch, span_files, out, stop, parent: int) -> None:
    """A reader process: `read_files` into its own bounded queue. It stops when told to,
    and when the build process is gone (killed: nobody would ever read the queue)."""
    def stopped() -> bool:
        return stop.is_set() or os.getppid() != parent

    try:
        read_files(files, skip, min_words, spec, batch, span_files, _bounded_put(out, stopped), stopped)
    except (Stopped, KeyboardInterrupt):
        out.cancel_join_thread()  # nobody reads what is still buffered


class Stopped(Exception):
    """The consumer is gone or asked the readers to stop."""


def _bounded_put(q, stopped: Callable[[], bool]) -> Callable[[Msg], None]:
    """put() into a bounded queue, waiting while it is full, raising Stopped once `stopped()`."""
    def put(msg: Msg) -> None:
        while not stopped():
            try:
                q.put(msg, timeout=0.2)
                return
            except queue.Full:
                continue
        raise Stopped

    return put


def _thread_main(files, skip, min_words, spec, batch, span_files, q, stop: threading.Event) -> None:
    try:
        read_files(files, skip, min_words, spec, batch, span_files, _bounded_put(q, stop.is_set), stop.is_set)
    except Stopped:
        pass


class ReaderPool:
    """`workers` reader processes (0: one thread) over `files`; `messages()` yields their
    messages in input-file order."""

    def __init__(self, files: list[Path], skip: dict[Path, int], min_words: int, spec, batch: int, workers: int):
        self.files = files
        self.n = max(1, min(workers, len(files))) if files else 1
        self.threaded = workers <= 0 or not files
        span = self.n == 1
        self.latest: list[ReadStats] = [ReadStats() for _ in range(self.n)]
        if self.threaded:
            self._stop = threading.Event()
            self.queues: list[Any] = [queue.Queue(maxsize=4)]
            self.procs: list[Any] = [threading.Thread(
                target=_thread_main, args=(files, skip, min_words, spec, batch, span, self.queues[0], self._stop),
                daemon=True, name="index-reader")]
        else:
            ctx = mp.get_context("spawn")  # never fork a process that holds torch's threads
            self._stop = ctx.Event()
            self.queues = [ctx.Queue(maxsize=4) for _ in range(self.n)]
            self.procs = []
            for w in range(self.n):
                mine = files[w :: self.n]
                self.procs.append(ctx.Process(
                    target=_worker_main, name=f"index-reader-{w}", daemon=True,
                    args=(mine, {f: skip.get(f, 0) for f in mine}, min_words, spec, batch, span,
                          self.queues[w], self._stop, os.getpid())))

    def start(self) -> ReaderPool:
        for p in self.procs:
            p.start()
        return self

    @property
    def stats(self) -> ReadStats:
        return ReadStats.total(self.latest)

    def _get(self, w: int) -> Msg:
        while True:
            try:
                msg = self.queues[w].get(timeout=0.5)
            except queue.Empty:
                p = self.procs[w]
                if not p.is_alive():
                    code = getattr(p, "exitcode", None)
                    mine = self.files[w :: self.n]
                    names = ", ".join(str(f) for f in mine[:3]) + (f" and {len(mine) - 3} more" if len(mine) > 3 else "")
                    raise ToolError("pubmed-index", f"reader {p.name} (reading {names}) stopped unexpectedly "
                                    f"(exit code {code}); re-run the same command to resume") from None
                continue
            if msg.stats is not None:
                self.latest[w] = msg.stats
            return msg

    def messages(self) -> Iterator[Msg]:
        """All messages but 'end', in input order."""
        if self.n == 1:
            while (msg := self._get(0)).kind != "end":
                yield msg
            return
        for i, f in enumerate(self.files):
            while True:
                msg = self._get(i % self.n)
                if msg.kind == "end":
                    break
                yield msg
                if (msg.kind == "file_error" and msg.file == f) or any(m.file == f and m.done for m in msg.marks):
                    break
        for w in range(self.n):  # each worker's final totals
            while self._get(w).kind != "end":
                pass

    def close(self) -> None:
        self._stop.set()
        for p in self.procs:
            p.join(timeout=5)
            if not self.threaded and p.is_alive():
                p.terminate()
                p.join(timeout=5)
        if not self.threaded:
            for q in self.queues:
                q.cancel_join_thread()
                q.close()


# ---- writer ------------------------------------------------------------------------------


class StageThread(threading.Thread):
    """The last stage of the pipeline, in a thread: `apply(item)` for each item put, in
    order; `close()` after the last; `abort()` when `apply` raised (the error is re-raised
    to the embedding thread by its next `put` or by `finish`)."""

    def __init__(self, name: str):
        super().__init__(daemon=True, name=name)
        self.q: queue.Queue = queue.Queue(maxsize=2)
        self.error: BaseException | None = None
        self.load_s = 0.0  # time spent applying

    def apply(self, item: tuple) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass

    def put(self, item: tuple) -> None:
        while True:
            if self.error is not None:
                raise self.error
            try:
                self.q.put(item, timeout=0.2)
                return
            except queue.Full:
                continue

    def finish(self) -> None:
        """Apply what is queued, close, stop; re-raise the stage's failure if any."""
        while self.is_alive():
            try:
                self.q.put(None, timeout=0.2)
                break
            except queue.Full:
                continue
        self.join()
        if self.error is not None:
            raise self.error

    def run(self) -> None:
        try:
            while (item := self.q.get()) is not None:
                t0 = time.perf_counter()
                self.apply(item)
                self.load_s += time.perf_counter() - t0
            t0 = time.perf_counter()
            self.close()
            self.load_s += time.perf_counter() - t0
        except BaseException as e:  # noqa: BLE001 - handed to the embedding thread
            self.error = e
            try:
                self.abort()
            except Exception:  # noqa: BLE001, S110 - the store may be what failed; the original error matters
                pass


class Writer(StageThread):
    """Applies embedded batches, deletes and file errors to the store in order, and saves
    the checkpoint at most every `every_s` seconds and whenever a file ends or fails."""

    def __init__(self, loader, job, ledger, report, every_s: float, on_progress=None, on_error=None):
        super().__init__("index-writer")
        self.loader, self.job, self.ledger, self.report = loader, job, ledger, report
        self.every_s, self.on_progress, self.on_error = every_s, on_progress, on_error
        self.pending: list[Mark] = []
        self.written = False  # rows written since the last flush
        self.last_save = time.monotonic()

    def checkpoint(self) -> None:
        if self.written:
            self.loader.flush()  # durable before the checkpoint says so
        for m in self.pending:
            st = self.job.file_state(m.file)
            st["items"] = max(int(st.get("items", 0)), m.items)
            st["done"] = st.get("done", False) or m.done
        if self.ledger is not None:
            self.job.path.parent.mkdir(parents=True, exist_ok=True)
            self.ledger.save(self.job.ledger_path)  # before the job file: a ledger ahead of it is harmless
        self.job.save()
        self.pending.clear()
        self.written, self.last_save = False, time.monotonic()

    def apply(self, item: tuple) -> None:
        kind, payload, marks = item
        if kind == "batch":
            records, vecs, _ = payload
            if records:
                self.report.upserted += self.loader.upsert(records, vecs)
                if self.ledger is not None:
                    self.ledger.upserted([int(r.pmid) for r in records])
                self.written = True
        elif kind == "delete":
            self.loader.delete(payload)
            if self.ledger is not None:
                self.ledger.deleted([int(p) for p in payload])
            self.report.deleted += len(payload)
            self.written = True
        elif kind == "file_error":
            file, error = payload
            self.report.failed_files[str(file)] = error
            if self.on_error is not None:
                self.on_error(f"error: {error} (other files continue)")
        self.pending.extend(marks)
        if hasattr(self.report, "bytes_done"):  # input bytes finished, for progress and ETA
            self.report.bytes_done += sum(_size(m.file) for m in marks if m.done)
        if kind == "file_error" or any(m.done for m in marks) or time.monotonic() - self.last_save >= self.every_s:
            self.checkpoint()
        if self.on_progress is not None:
            self.on_progress(self.report)

    def close(self) -> None:
        if self.pending or self.written:
            self.checkpoint()

    def abort(self) -> None:
        # keep what was committed before the failure; the item being applied is not in
        # `pending` yet, so it is replayed on resume
        self.checkpoint()


def _size(f: Path) -> int:
    try:
        return f.stat().st_size
    except OSError:
        return 0


# ---- the loop ----------------------------------------------------------------------------


@dataclass
class EmbedStats:
    seconds: float = 0.0
    pipeline_s: float = 0.0
    sample: list = field(default_factory=list)  # token ids (or texts) kept for the raw-rate measurement


def run(reader: ReaderPool, writer: Writer, embed: Callable[[list[PubmedRecord], list | None], Any], window: int,
        sample_size: int, on_message: Callable[[ReadStats], None] | None = None) -> EmbedStats:
    """Embed what the (started) readers produce, in windows of `window` records, and hand
    each to the (started) writer. On any failure the writer still writes what was queued
    and checkpoints before the error propagates."""
    st = EmbedStats()
    recs: list[PubmedRecord] = []
    toks: list[list[int]] = []
    origins: list[Path] = []
    marks: list[Mark] = []
    t_start = time.perf_counter()

    def flush() -> None:
        nonlocal recs, toks, origins, marks
        if not recs and not marks:
            return
        vecs = None
        if recs:
            t0 = time.perf_counter()
            vecs = embed(recs, toks if len(toks) == len(recs) else None)
            st.seconds += time.perf_counter() - t0
            if len(st.sample) < sample_size:
                more = toks if len(toks) == len(recs) else [r.document_text() for r in recs]
                st.sample.extend(more[: sample_size - len(st.sample)])
        writer.put(("batch", (recs, vecs, origins), marks))
        recs, toks, origins, marks = [], [], [], []

    try:
        for msg in reader.messages():
            if msg.kind == "batch":
                recs.extend(msg.records)
                origins.extend(msg.origins)
                if msg.tokens is not None:
                    toks.extend(msg.tokens)
                marks.extend(msg.marks)
                if len(recs) >= window:
                    flush()
            elif msg.kind == "delete":
                flush()
                writer.put(("delete", msg.pmids, msg.marks))
            elif msg.kind == "file_error":
                flush()
                writer.put(("file_error", (msg.file, msg.error), msg.marks))
            if on_message is not None:
                on_message(reader.stats)
        flush()
    except BaseException:
        try:  # write and checkpoint what was already embedded; the original error matters
            writer.finish()
        except BaseException:  # noqa: BLE001, S110
            pass
        raise
    writer.finish()
    st.pipeline_s = time.perf_counter() - t_start
    return st
