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

Throughput (`indexing.pipeline`): reading, cleaning and tokenizing run in worker processes,
this thread only embeds token ids in length-sorted batches (`indexing.encode`), and a
writer thread upserts and checkpoints, so embedding never waits for parsing or the store.
Start-up work overlaps too: the model loads in the background while the store opens and
the readers fill their queues. The report carries the encoder's raw rate, timed on a warm
sample of the same texts after the build, next to the build's own rate.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import BioragError, ToolError
from biorag.ml import pubmed_schema as ps
from biorag.ml.vector_store import backend_of, open_index
from indexing.embed_stage import EmbedStage, RateFigures, auto_read_workers, embed_all
from indexing.gene_mesh_counts import build_gene_mesh_counts
from indexing.ledger import PmidLedger
from indexing.lexical_build import write_lexical_index
from indexing.loader import mark_replaced, switch_alias
from indexing.mesh_counts import CountingLoader
from indexing.pipeline import ReaderPool
from indexing.reader import expand_inputs, within_roots

if TYPE_CHECKING:
    from biorag.ml.embedder import Embedder
    from biorag.settings import Settings

BATCH = 128  # records per embed+upsert step (and checkpoint)
log = logging.getLogger("biorag.index")


@dataclass
class BuildReport(RateFigures):
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
    resumed_rows: int = 0  # rows an interrupted or failed run of the same build had already written
    bytes_total: int = 0  # input bytes, and those of the files read to their end (progress and ETA)
    bytes_done: int = 0
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
    device: str = ""  # where and in which precision the documents were embedded
    read_workers: int = 0  # reader processes (0: a thread)
    raw_rate: float = 0.0  # texts/s of the encoder alone, on a warm sample of this build's texts
    raw_sample: int = 0
    bulk_imported_shards: int = 0  # `biorag index load`: shards a Milvus server imported as they are
    lexical: dict[str, Any] = field(default_factory=dict)  # the BM25 side index written (indexing/lexical_build.py)

    @property
    def ok(self) -> bool:
        return self.verified and not self.failed_files and not self.refused_files and not self.shrink_refused

    def switch_blockers(self) -> list[str]:
        """Why the alias must not move to this build's collection (empty: it may)."""
        out = []
        if self.failed_files:
            out.append(f"{len(self.failed_files)} input file(s) failed: replace each with a complete copy and "
                       "re-run the same command, which resumes what was already embedded")
        if self.refused_files:
            out.append(f"{len(self.refused_files)} input file(s) refused")
        if not self.verified:
            out.append("verification failed (" + "; ".join(self.verify_problems) + ")")
        if self.shrink_refused:
            out.append(self.shrink_refused)
        return out

    def records_per_s(self) -> float:
        return self.kept / self.seconds["wall"] if self.seconds.get("wall") else 0.0

    def written_rows(self) -> int:
        return self.upserted

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        d["records_per_s"] = round(self.records_per_s(), 2)
        d.update(self.rate_fields())
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
    """The build's identity: which files, in which order. Their contents are checked per
    file (`_signature`), so replacing one broken file resumes the others."""
    h = hashlib.sha256()
    for f in files:
        h.update(f"{f.resolve()}\n".encode())
    return h.hexdigest()[:16]


def _signature(f: Path) -> str:
    st = f.stat()
    return f"{st.st_size}:{st.st_mtime_ns}"


def _reconcile_files(job: JobState, files: list[Path]) -> bool:
    """Record each input's signature; an input that changed since the interrupted run
    restarts from its first item (upserts by PMID make the replay harmless). False when a
    file that run had read to its end changed: its rows may be stale, so nothing resumes."""
    for f in files:
        st, sig = job.file_state(f), _signature(f)
        if st.get("sig") not in (None, sig):
            if st.get("done"):
                return False
            st.update(done=False, items=0)
        st["sig"] = sig
    return True


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
    from biorag.ml.embedder import Embedder
    from biorag.ml.embedder import identity as embedder_identity

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
    reader: ReaderPool | None = None
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
        resume = resume and _reconcile_files(job, files)
        ledger = PmidLedger.load(job.ledger_path) if resume else PmidLedger()
        if resume:
            mode = job.data["mode"]
        else:
            target = current if mode == "update" else f"{alias}_{datetime.now(UTC):%Y%m%d_%H%M%S_%f}"
            job.data = {"fingerprint": fp, "mode": mode, "target": target, "alias": alias, "files": {},
                        "rows_before": _rows(client, current) if mode == "update" else 0}
            _reconcile_files(job, files)
        # `biorag index gc` spares the collection of a build that is running
        job.data.update(pid=os.getpid(), host=socket.gethostname(), running=True)
        target = job.data["target"]
        todo = [f for f in files if not job.file_state(f).get("done")]
        skip = {f: int(job.file_state(f).get("items", 0)) for f in todo}
        stage = EmbedStage(embedder, settings.index.batch_size)
        workers = auto_read_workers(settings.index.read_workers)
        reader = ReaderPool(todo, skip, settings.index.min_abstract_words, stage.spec, batch_size, workers).start()
        loader = CountingLoader(client, target, backend, recount=resume)  # + per-descriptor row counts
        dim = model_ready.result()
        if not loader.exists():
            loader.create(dim, ps.make_meta(embedder.name, embedder.query_name, dim, settings.index.index_type,
                                          embedder_id=embedder_identity(embedder.name),
                                          index_overrides=settings.index.index_params),
                          settings.index.index_type, settings.index.index_params, settings.index.mmap_raw)
        else:
            _check_compatible(client, target, embedder)
        job.save()

        report = BuildReport(alias=alias, collection=target, mode=mode, files=len(files) + len(refused),
                             embedder=embedder.name, dim=dim, refused_files=refused)
        report.previous_collection = current
        report.files_skipped = len(files) - len(todo)
        report.resumed_rows = ledger.live_count if resume and ledger is not None else 0
        report.bytes_total = sum(f.stat().st_size for f in files)
        report.bytes_done = report.bytes_total - sum(f.stat().st_size for f in todo)
        report.seconds["startup"] = time.perf_counter() - t_start  # model load, store open, collection
        report.read_workers = workers
        _run_pipeline(reader, stage, job, ledger, loader, report, progress, on_progress, settings, batch_size)

        loader.flush()
        verify_and_switch(client, settings, report, embedder, _expectation(ledger, mode, int(job.data.get("rows_before", 0))),
                          allow_shrink)
        if report.ok:
            job.clear()
        report.seconds["wall"] = time.perf_counter() - t_start
        return report
    finally:
        if reader is not None:
            reader.close()
        if job is not None and job.data.get("running") and job.path.exists():
            job.data["running"] = False
            job.save()
        if own_client and client is not None:
            client.close()


def verify_and_switch(client, settings: Settings, report: BuildReport, embedder: Embedder, expect,
                      allow_shrink: bool) -> None:
    """Verify the collection the build wrote against `expect` (from its ledger); for a
    fresh build or a rebuild, point the alias at it when nothing blocks the switch; then
    refresh the gene-set MeSH library. Shared by the row build and the bulk load."""
    from indexing.verify import verify_collection

    alias, target, current = report.alias, report.collection, report.previous_collection
    t0 = time.perf_counter()
    vr = verify_collection(client, target, embedder, expected_min=1, expect=expect)
    report.seconds["verify"] = time.perf_counter() - t0
    report.verified, report.verify_problems, report.rows = vr.ok, vr.problems, vr.rows
    report.expected_rows = vr.expected_rows
    if vr.ok:  # before the alias moves: a failure here keeps it where it is
        report.lexical = write_lexical_index(settings, client, target)
    if report.mode in ("fresh", "rebuild"):
        if current:
            report.previous_rows = _rows(client, current)
            if not report.failed_files and not report.refused_files:  # --allow-shrink cannot help those
                report.shrink_refused = _shrink_refusal(report, settings.index.rebuild_min_fraction, allow_shrink)
        if not report.switch_blockers():
            switch_alias(client, alias, target)
            report.alias_switched = True
            log.info("index alias '%s' switched: %s -> %s (%d rows)", alias, current or "nothing", target,
                     report.rows)
            if current:
                mark_replaced(client, current, target)
    if report.alias_switched or (report.mode == "update" and report.verified):  # gene-set MeSH library
        build_gene_mesh_counts(settings, client, target, alias)


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


def _run_pipeline(reader: ReaderPool, stage: EmbedStage, job, ledger, loader, report, progress, on_progress,
                  settings: Settings, batch_size: int) -> None:
    """Embed what the (started) readers produce while a writer thread loads and checkpoints
    (`indexing.pipeline`), then time the encoder alone on a sample of the same texts."""
    from tqdm import tqdm

    from indexing.pipeline import Writer

    writer = Writer(loader, job, ledger, report, settings.index.checkpoint_seconds, on_progress, on_error=tqdm.write)
    embed_all(reader, stage, writer, report, settings, batch_size, progress)


def format_report(r: BuildReport) -> str:
    s = r.seconds
    lines = [
        f"collection {r.collection} ({r.mode}) behind alias '{r.alias}': {r.rows} rows, "
        f"embedder {r.embedder} ({r.dim}-dim)",
        f"files: {r.files} ({r.files_skipped} already done earlier, {len(r.failed_files)} failed); "
        f"records read {r.read}, kept {r.kept}, dropped {sum(r.dropped.values())}"
        + (f" ({', '.join(f'{k} {v}' for k, v in sorted(r.dropped.items()))})" if r.dropped else "")
        + f"; deleted {r.deleted}; upserted {r.upserted}"
        + (f"; resumed {r.resumed_rows} rows already written (past {r.resumed_items} committed items)"
           if r.resumed_rows or r.resumed_items else ""),
        f"time: wall {s.get('wall', 0):.1f}s = start-up {s.get('startup', 0):.1f}s (model load, store), pipeline "
        f"{s.get('pipeline', 0):.1f}s (parse {s.get('parse', 0):.1f}s and clean+tokenize {s.get('clean', 0):.1f}s "
        f"in the readers, embed {s.get('embed', 0):.1f}s, load {s.get('load', 0):.1f}s in the writer, overlapping), "
        f"raw-rate sample {s.get('raw_rate', 0):.1f}s, verify {s.get('verify', 0):.1f}s; {r.records_per_s():.1f} records/s",
    ]
    if rate := r.rate_line():
        lines.append(rate)
    if r.lexical:
        lines.append(f"lexical (BM25) side index: {r.lexical['documents']} documents in {r.lexical['seconds']:.1f}s "
                     f"({r.lexical['path']})")
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
