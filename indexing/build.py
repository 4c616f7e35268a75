"""`biorag index build`: read -> clean -> embed -> load, resumable, with alias switching.

Modes
- fresh (alias does not exist yet) and rebuild (`--rebuild`): write a NEW physical
  collection `<alias>_<UTC timestamp>`, verify it, then point the alias at it. The alias
  moves only when every input file was read to its end, verification passed against the
  build's own ledger (`indexing.ledger`: exact row count, PMIDs read back by id and by
  vector, deleted PMIDs gone), and the new collection holds at least
  `index.rebuild_min_fraction` of the rows the alias serves now (or `allow_shrink`).
  Otherwise the alias (and whatever it served) is untouched, and the new collection stays
  for a resume or for `biorag index gc`.
- update (alias exists, no `--rebuild`): upsert/delete into the collection the alias points
  to, e.g. for PubMed daily update files.

Resume: a job file (`<data_dir>/index_jobs/<alias>-<uri hash>.json`) records, per input
file, how many items (records and DeleteCitation blocks) are already committed, and
whether the file is done. It is written after a flush, at most every
`index.checkpoint_seconds`, at the end of each file and when the build fails. A killed
build re-run with the same inputs continues in the same target collection, skipping
committed items; upserts are keyed by PMID, so replaying uncheckpointed work is harmless.
Batches span files, so many small inputs still embed in full batches.

Throughput: parsing and cleaning run in a producer thread that feeds batches to the main
thread, which embeds (torch uses the cores, releasing the GIL) and loads; so the build
runs close to the embedder's raw rate. Start-up work overlaps too: the model loads in the
background while the store opens and the reader fills its queue.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag import pubmed_schema as ps
from biorag.errors import BioragError, InputError, ToolError
from biorag.vector_store import backend_of, open_index
from indexing.clean import Cleaner
from indexing.gene_mesh_counts import build_gene_mesh_counts
from indexing.ledger import PmidLedger
from indexing.loader import mark_replaced, switch_alias
from indexing.mesh_counts import CountingLoader
from indexing.reader import expand_inputs, read_file, within_roots
from indexing.records import DeleteCitations, PubmedRecord

if TYPE_CHECKING:
    from biorag.embedder import Embedder
    from biorag.settings import Settings

BATCH = 128  # records per embed+upsert step (and checkpoint)


@dataclass
class BuildReport:
    alias: str
    collection: str
    mode: str
    files: int = 0
    files_skipped: int = 0  # already done in a previous (interrupted) run
    failed_files: dict[str, str] = field(default_factory=dict)
    refused_files: dict[str, str] = field(default_factory=dict)  # outside the folders the caller allows
    read: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    deleted: int = 0
    upserted: int = 0
    resumed_items: int = 0
    rows: int = 0
    expected_rows: int | None = None  # from the build's ledger (fresh and rebuild)
    verified: bool = False
    verify_problems: list[str] = field(default_factory=list)
    shrink_refused: str = ""  # why a verified rebuild too small to replace the served index did not
    alias_switched: bool = False
    previous_collection: str | None = None
    previous_rows: int | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # startup, parse, clean, embed, load, verify, wall
    embedder: str = ""
    dim: int = 0

    @property
    def ok(self) -> bool:
        return self.verified and not self.failed_files and not self.refused_files and not self.shrink_refused

    def switch_blockers(self) -> list[str]:
        """Why the alias must not move to this build's collection (empty: it may)."""
        out = []
        if self.failed_files:
            out.append(f"{len(self.failed_files)} input file(s) failed")
        if self.refused_files:
            out.append(f"{len(self.refused_files)} input file(s) refused")
        if not self.verified:
            out.append("verification failed (" + "; ".join(self.verify_problems) + ")")
        if self.shrink_refused:
            out.append(self.shrink_refused)
        return out

    def records_per_s(self) -> float:
        return self.kept / self.seconds["wall"] if self.seconds.get("wall") else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        d["records_per_s"] = round(self.records_per_s(), 2)
        return d


# ---- job file (checkpoints) -------------------------------------------------------------


class JobState:
    def __init__(self, path: Path, data: dict[str, Any]):
        self.path = path
        self.data = data

    @classmethod
    def load(cls, settings: Settings, alias: str) -> JobState:
        h = hashlib.sha256(settings.milvus_uri.encode()).hexdigest()[:8]
        path = Path(settings.data_dir) / "index_jobs" / f"{alias}-{h}.json"
        data: dict[str, Any] = {}
        if path.exists():
            try:
                data = json.loads(path.read_text())
            except json.JSONDecodeError:
                data = {}
        return cls(path, data)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1))
        os.replace(tmp, self.path)  # atomic: a kill never leaves a half-written checkpoint

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
        self.ledger_path.unlink(missing_ok=True)

    @property
    def ledger_path(self) -> Path:
        return self.path.with_suffix(".pmids")

    def file_state(self, f: Path) -> dict[str, Any]:
        return self.data.setdefault("files", {}).setdefault(str(f.resolve()), {"done": False, "items": 0})


def _fingerprint(files: list[Path]) -> str:
    h = hashlib.sha256()
    for f in files:
        st = f.stat()
        h.update(f"{f.resolve()}|{st.st_size}|{int(st.st_mtime)}\n".encode())
    return h.hexdigest()[:16]


# ---- producer: parse + clean ----------------------------------------------------------------


@dataclass
class _Mark:
    """Checkpoint for one input file, valid once the message carrying it is committed."""

    file: Path
    items: int  # items (records and DeleteCitation blocks) of the file consumed
    done: bool = False


@dataclass
class _Msg:
    kind: str  # batch | delete | file_error | end
    records: list[PubmedRecord] = field(default_factory=list)
    pmids: list[int] = field(default_factory=list)
    marks: list[_Mark] = field(default_factory=list)
    file: Path | None = None  # the failed file, for file_error
    error: str = ""


class _Producer(threading.Thread):
    """Reads and cleans the input files in order, in a thread, and emits full batches that
    may span files (many small files still embed in full batches). Each message carries the
    checkpoint marks of the files it covers; deletes flush the pending batch first, so
    upserts and deletes of a PMID are applied in input order."""

    def __init__(self, files: list[Path], skip: dict[Path, int], cleaner: Cleaner, out: queue.Queue, batch: int):
        super().__init__(daemon=True, name="index-reader")
        # `skip` (items already committed per file) is read from the job file by the caller:
        # this thread never touches the job state, which the main thread saves concurrently
        self.files, self.skip, self.cleaner, self.out, self.batch = files, skip, cleaner, out, batch
        self.t_parse = 0.0
        self.t_clean = 0.0
        self.read = 0
        self.resumed = 0
        self.stop = threading.Event()
        self._records: list[PubmedRecord] = []
        self._marks: dict[Path, _Mark] = {}

    def _put(self, msg: _Msg) -> None:
        while not self.stop.is_set():
            try:
                self.out.put(msg, timeout=0.2)
                return
            except queue.Full:
                continue

    def _mark(self, f: Path, items: int, done: bool = False) -> None:
        self._marks[f] = _Mark(f, items, done)

    def _emit_batch(self) -> None:
        if self._records or self._marks:
            self._put(_Msg("batch", records=self._records, marks=list(self._marks.values())))
        self._records, self._marks = [], {}

    def run(self) -> None:
        try:
            for f in self.files:
                if self.stop.is_set():
                    return
                self._one_file(f)
            self._emit_batch()
        finally:
            self._put(_Msg("end"))

    def _one_file(self, f: Path) -> None:
        skip = self.skip.get(f, 0)
        n = 0
        it = read_file(f)
        try:
            while True:
                t0 = time.perf_counter()
                try:
                    item = next(it)
                except StopIteration:
                    self.t_parse += time.perf_counter() - t0
                    break
                self.t_parse += time.perf_counter() - t0
                n += 1
                if n <= skip:
                    self.resumed += 1
                    continue
                if isinstance(item, DeleteCitations):
                    self._emit_batch()
                    self._put(_Msg("delete", pmids=item.pmids, marks=[_Mark(f, n)]))
                    continue
                self.read += 1
                t1 = time.perf_counter()
                rec = self.cleaner(item)
                self.t_clean += time.perf_counter() - t1
                if rec is not None:
                    self._records.append(rec)
                self._mark(f, n)
                if len(self._records) >= self.batch:
                    self._emit_batch()
        except InputError as e:
            self._emit_batch()
            self._put(_Msg("file_error", marks=[_Mark(f, n)], file=f, error=str(e)))
            return
        self._mark(f, n, done=True)
        if len(self._records) >= self.batch:
            self._emit_batch()


# ---- the build ----------------------------------------------------------------------------------


def build_index(
    settings: Settings,
    inputs: list[str | Path],
    alias: str | None = None,
    rebuild: bool = False,
    progress: bool = True,
    embedder: Embedder | None = None,
    on_progress: Callable[[BuildReport], None] | None = None,
    batch_size: int = BATCH,
    client=None,
    allow_shrink: bool = False,
    allowed_roots: list[Path] | None = None,
) -> BuildReport:
    """Build or update the index; see the module docstring. Raises InputError for bad
    inputs before touching the store; per-file read errors are collected in the report.
    `on_progress(report)` is called after each batch, delete or file error is applied.
    `allowed_roots`: every input file (found in folders too, symlinks resolved) must lie
    under one of them; others are refused, named in the report, and keep the alias where
    it is. `allow_shrink`: switch even when the rebuild is much smaller than what serves."""
    from biorag.embedder import Embedder
    from biorag.embedder import identity as embedder_identity
    from indexing.verify import verify_collection

    alias = ps.check_collection_name(alias or settings.index.collection)
    files = expand_inputs(inputs)
    refused: dict[str, str] = {}
    if allowed_roots is not None:
        files, refused = within_roots(files, allowed_roots)
    uri = settings.milvus_uri
    backend = backend_of(uri)
    embedder = embedder or Embedder.from_settings(settings)
    t_start = time.perf_counter()
    # Start-up overlaps: the model loads (mostly importing torch, ~7 s on 2 cores) while the
    # store opens and the reader parses and cleans the first batches. A load error is
    # raised from model_ready.result() below, in this thread.
    loading = ThreadPoolExecutor(1, thread_name_prefix="embedder-load")
    model_ready = loading.submit(lambda: embedder.dim)
    loading.shutdown(wait=False)
    own_client = client is None
    prod: _Producer | None = None
    job: JobState | None = None
    try:
        if client is None:
            client = open_index(settings, create=True, source="pubmed-index")
        job = JobState.load(settings, alias)
        fp = _fingerprint(files)
        current = ps.resolve_collection(client, alias)
        mode = "rebuild" if rebuild else ("update" if current and current != alias else "fresh")
        if current == alias:
            raise ToolError(
                "pubmed-index",
                f"'{alias}' is a plain collection, not an alias; build with --collection OTHER_NAME",
            )
        resume = (
            job.data.get("fingerprint") == fp
            and (job.data.get("mode") == mode or (current is not None and job.data.get("target") == current))
            and client.has_collection(job.data.get("target", ""))
        )
        ledger = PmidLedger.load(job.ledger_path) if resume else PmidLedger()
        if resume:
            mode = job.data["mode"]
        else:
            target = current if mode == "update" else f"{alias}_{datetime.now(UTC):%Y%m%d_%H%M%S_%f}"
            job.data = {"fingerprint": fp, "mode": mode, "target": target, "alias": alias, "files": {},
                        "rows_before": _rows(client, current) if mode == "update" else 0}
        # `biorag index gc` spares the collection of a build that is running
        job.data.update(pid=os.getpid(), host=socket.gethostname(), running=True)
        target = job.data["target"]
        todo = [f for f in files if not job.file_state(f).get("done")]
        cleaner = Cleaner(min_words=settings.index.min_abstract_words)
        skip = {f: int(job.file_state(f).get("items", 0)) for f in todo}
        prod = _Producer(todo, skip, cleaner, queue.Queue(maxsize=4), batch_size)
        prod.start()
        loader = CountingLoader(client, target, backend, recount=resume)  # + per-descriptor row counts
        dim = model_ready.result()
        if not loader.exists():
            loader.create(dim, ps.make_meta(embedder.name, embedder.query_name, dim, settings.index.index_type,
                                          embedder_id=embedder_identity(embedder.name)),
                          settings.index.index_type)
        else:
            _check_compatible(client, target, embedder)
        job.save()

        report = BuildReport(alias=alias, collection=target, mode=mode, files=len(files) + len(refused),
                             embedder=embedder.name, dim=dim, refused_files=refused)
        report.previous_collection = current
        report.files_skipped = len(files) - len(todo)
        report.seconds["startup"] = time.perf_counter() - t_start  # model load, store open, collection
        _run_pipeline(prod, job, ledger, cleaner, loader, embedder, report, progress, on_progress,
                      settings.index.checkpoint_seconds)

        loader.flush()
        t0 = time.perf_counter()
        vr = verify_collection(client, target, embedder, expected_min=1,
                               expect=_expectation(ledger, mode, int(job.data.get("rows_before", 0))))
        report.seconds["verify"] = time.perf_counter() - t0
        report.verified, report.verify_problems, report.rows = vr.ok, vr.problems, vr.rows
        report.expected_rows = vr.expected_rows
        if mode in ("fresh", "rebuild"):
            if current:
                report.previous_rows = _rows(client, current)
                report.shrink_refused = _shrink_refusal(report, settings.index.rebuild_min_fraction, allow_shrink)
            if not report.switch_blockers():
                switch_alias(client, alias, target)
                report.alias_switched = True
                if current:
                    mark_replaced(client, current, target)
        if report.alias_switched or (mode == "update" and report.verified):  # gene-set MeSH library
            build_gene_mesh_counts(settings, client, target, alias)
        if report.ok:
            job.clear()
        report.seconds["wall"] = time.perf_counter() - t_start
        return report
    finally:
        if prod is not None:
            prod.stop.set()
            prod.join(timeout=5)
        if job is not None and job.data.get("running") and job.path.exists():
            job.data["running"] = False
            job.save()
        if own_client and client is not None:
            client.close()


def _rows(client, collection: str | None) -> int:
    if not collection:
        return 0
    from indexing.verify import count_rows

    client.load_collection(collection)
    return count_rows(client, collection)


def _expectation(ledger: PmidLedger | None, mode: str, rows_before: int):
    """What the collection must look like after this build, from its ledger (None: the
    ledger of an interrupted run was lost, so only the generic checks apply)."""
    from indexing.verify import Expectation

    if ledger is None:
        return Expectation()
    exp = Expectation(present=ledger.present_sample(8), absent=ledger.absent_sample(8))
    if mode == "update":
        exp.min_rows = max(0, rows_before - ledger.gone_count)
        exp.max_rows = rows_before + ledger.live_count
    else:
        exp.rows = ledger.live_count
    return exp


def _shrink_refusal(report: BuildReport, min_fraction: float, allow_shrink: bool) -> str:
    prev = report.previous_rows or 0
    if allow_shrink or not prev or report.rows >= min_fraction * prev:
        return ""
    return (f"the rebuild holds {report.rows} rows, {report.rows / prev:.0%} of the {prev} that "
            f"'{report.alias}' serves now (index.rebuild_min_fraction is {min_fraction:g}): "
            "re-run with --allow-shrink (API: \"allow_shrink\": true) if the smaller index is intended")


def _check_compatible(client, collection: str, embedder: Embedder) -> None:
    meta = ps.read_meta(client.describe_collection(collection))
    dim = ps.vector_dim(client, collection)
    if dim is not None and dim != embedder.dim:
        raise BioragError(
            f"collection {collection} holds {dim}-dim vectors but embedder {embedder.name} makes "
            f"{embedder.dim}-dim ones: use --rebuild to build a new collection with this embedder"
        )
    if meta.get("embedder") and meta["embedder"] != embedder.name:
        raise BioragError(
            f"collection {collection} was built with embedder {meta['embedder']}, not {embedder.name}: "
            "use --rebuild to re-embed everything"
        )


def _run_pipeline(prod: _Producer, job, ledger, cleaner, loader, embedder, report, progress, on_progress,
                  every_s: float):
    """Embed and load what the (already started) reader thread produces. The checkpoint
    (flush, then the job file) is written at most every `every_s` seconds, and whenever a
    file ends or fails: on a Milvus server each flush seals a segment, and the job file
    grows with the number of inputs, so per-batch checkpoints would cost more than they
    save. Upserts are keyed by PMID, so work replayed after a kill is harmless."""
    from tqdm import tqdm

    t_embed = t_load = 0.0
    pending: list[_Mark] = []
    written = False  # rows written since the last flush
    last_save = time.monotonic()
    bar = tqdm(total=None, unit="rec", desc="indexing", disable=not progress, dynamic_ncols=True)

    def checkpoint() -> None:
        nonlocal written, last_save
        if written:
            loader.flush()  # durable before the checkpoint says so
        for m in pending:
            st = job.file_state(m.file)
            st["items"] = max(int(st.get("items", 0)), m.items)
            st["done"] = st.get("done", False) or m.done
        if ledger is not None:
            job.path.parent.mkdir(parents=True, exist_ok=True)
            ledger.save(job.ledger_path)  # before the job file: a ledger ahead of it is harmless
        job.save()
        pending.clear()
        written, last_save = False, time.monotonic()

    try:
        while True:
            msg: _Msg = prod.out.get()
            if msg.kind == "end":
                break
            if msg.kind == "batch" and msg.records:
                t0 = time.perf_counter()
                vecs = embedder.embed_documents([r.document_text() for r in msg.records])
                t1 = time.perf_counter()
                report.upserted += loader.upsert(msg.records, vecs)
                if ledger is not None:
                    ledger.upserted([int(r.pmid) for r in msg.records])
                t_embed += t1 - t0
                t_load += time.perf_counter() - t1
                written = True
            elif msg.kind == "delete":
                t0 = time.perf_counter()
                loader.delete(msg.pmids)
                if ledger is not None:
                    ledger.deleted([int(p) for p in msg.pmids])
                report.deleted += len(msg.pmids)
                t_load += time.perf_counter() - t0
                written = True
            elif msg.kind == "file_error":
                report.failed_files[str(msg.file)] = msg.error
                tqdm.write(f"error: {msg.error} (other files continue)")
            pending.extend(msg.marks)
            file_ended = msg.kind == "file_error" or any(m.done for m in msg.marks)
            if file_ended or time.monotonic() - last_save >= every_s:
                t0 = time.perf_counter()
                checkpoint()
                t_load += time.perf_counter() - t0
            report.read = prod.read
            report.kept = cleaner.kept
            report.dropped = dict(cleaner.counts)
            bar.n = prod.read
            bar.set_postfix(kept=cleaner.kept, dropped=sum(cleaner.counts.values()), deleted=report.deleted)
            bar.refresh()
            if on_progress is not None:
                on_progress(report)
        if pending or written:
            checkpoint()
    except BaseException:
        # keep what was committed before the failure (an embedder crash, Ctrl-C); the message
        # being processed is not in `pending` yet, so it is replayed on resume
        try:
            checkpoint()
        except Exception:  # noqa: BLE001 - the store may be what failed; the original error matters
            pass
        raise
    finally:
        prod.stop.set()
        bar.close()
        prod.join(timeout=5)
    report.resumed_items = prod.resumed
    report.read, report.kept, report.dropped = prod.read, cleaner.kept, dict(Counter(cleaner.counts))
    report.seconds.update(parse=prod.t_parse, clean=prod.t_clean, embed=t_embed, load=t_load)


def format_report(r: BuildReport) -> str:
    s = r.seconds
    lines = [
        f"collection {r.collection} ({r.mode}) behind alias '{r.alias}': {r.rows} rows, "
        f"embedder {r.embedder} ({r.dim}-dim)",
        f"files: {r.files} ({r.files_skipped} already done earlier, {len(r.failed_files)} failed); "
        f"records read {r.read}, kept {r.kept}, dropped {sum(r.dropped.values())}"
        + (f" ({', '.join(f'{k} {v}' for k, v in sorted(r.dropped.items()))})" if r.dropped else "")
        + f"; deleted {r.deleted}; upserted {r.upserted}"
        + (f"; resumed past {r.resumed_items} committed items" if r.resumed_items else ""),
        f"time: wall {s.get('wall', 0):.1f}s = start-up {s.get('startup', 0):.1f}s (model load, store), parse {s.get('parse', 0):.1f}s (reader thread), clean "
        f"{s.get('clean', 0):.1f}s (reader thread), embed {s.get('embed', 0):.1f}s, load {s.get('load', 0):.1f}s, "
        f"verify {s.get('verify', 0):.1f}s; {r.records_per_s():.1f} records/s",
    ]
    for f, err in r.failed_files.items():
        lines.append(f"FAILED {f}: {err}")
    for f, why in r.refused_files.items():
        lines.append(f"REFUSED {f}: {why}")
    if not r.verified:
        lines.append("verification FAILED: " + "; ".join(r.verify_problems))
    if r.alias_switched:
        prev = f" (was {r.previous_collection})" if r.previous_collection else ""
        lines.append(f"alias '{r.alias}' -> {r.collection}{prev}")
    elif r.mode != "update" and r.switch_blockers():
        serving = f"still serves {r.previous_collection}" if r.previous_collection else "serves nothing yet"
        lines.append(f"alias '{r.alias}' NOT switched ({'; '.join(r.switch_blockers())}): it {serving}; "
                     f"{r.collection} is kept for a resume (same command) or `biorag index gc`")
    return "\n".join(lines)
