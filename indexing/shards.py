"""The bulk path's embed stage: input files -> Parquet shards, one per input file.

`biorag index build --to-shards DIR` runs the same pipeline as a build (reader processes,
length-sorted embedding, a writer thread), but the writer appends each window's rows to
the Parquet shard of the file they came from instead of inserting them. A shard holds the
collection's fields (pmid, title, abstract, journal, year, MeSH UIs/names/major, mesh_key,
publication types, the vector), so `biorag index load DIR` can bulk-import it unchanged.

Shards are the resumable unit. A shard is written to `NAME.parquet.PID.tmp` and renamed when
its file was read to its end; its sidecar `NAME.json` (rows, and the file's
DeleteCitations with the row offset where each occurred) is written last and marks it
done. A killed run leaves at most the unfinished shards' `.tmp` files, and the next run
with the same inputs embeds only the files without a finished shard. Shard names come from
the input file's path, size and modification time, so adding files later reuses the
shards already made. `manifest.json` records the embedder and the inputs in order; shards
made by another embedder are refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError
from biorag.ml import pubmed_schema as ps
from indexing.embed_stage import RateFigures
from indexing.pipeline import StageThread

if TYPE_CHECKING:
    from biorag.ml.embedder import Embedder
    from biorag.settings import Settings

MANIFEST = "manifest.json"
SHARD_SCHEMA_VERSION = 1


def arrow_schema():
    """The Parquet layout of a shard: the collection's fields (`pubmed_schema.build_schema`)
    with the Arrow types a Milvus bulk import maps onto them."""
    import pyarrow as pa

    text, texts = pa.string(), pa.list_(pa.string())
    return pa.schema([
        ("pmid", pa.int64()), ("title", text), ("abstract", text), ("journal", text), ("year", pa.int32()),
        ("mesh_ui", texts), ("mesh_name", texts), ("mesh_major", texts), ("mesh_key", text), ("pub_types", texts),
        (ps.VECTOR_FIELD, pa.list_(pa.float32())),
    ])


def shard_name(f: Path) -> str:
    st = f.stat()
    h = hashlib.sha256(f"{f.resolve()}|{st.st_size}|{int(st.st_mtime)}".encode()).hexdigest()[:12]
    stem = f.name.split(".")[0][:40]
    return f"{stem}-{h}"


@dataclass
class ShardInfo:
    """A finished shard, as its sidecar describes it."""

    name: str
    file: str
    rows: int
    deletes: list[list[Any]] = field(default_factory=list)  # [row offset, [pmids]] in input order

    @property
    def parquet(self) -> str:
        return self.name + ".parquet"


def finished(out_dir: Path, name: str) -> ShardInfo | None:
    side = out_dir / f"{name}.json"
    if not side.exists() or not (out_dir / f"{name}.parquet").exists():
        return None
    try:
        d = json.loads(side.read_text())
        return ShardInfo(name=name, file=d["file"], rows=int(d["rows"]), deletes=d.get("deletes", []))
    except (ValueError, KeyError):
        return None


def read_manifest(out_dir: Path) -> dict[str, Any]:
    path = out_dir / MANIFEST
    if not path.exists():
        raise InputError(f"{out_dir}: no {MANIFEST}; make shards with `biorag index build --to-shards {out_dir}`")
    try:
        return json.loads(path.read_text())
    except ValueError as e:
        raise InputError(f"{path}: unreadable ({e})") from None


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    os.replace(tmp, path)


@dataclass
class ShardReport(RateFigures):
    out_dir: str
    files: int = 0
    files_skipped: int = 0  # finished shards found from an earlier run
    shards_written: int = 0
    rows: int = 0  # rows written by this run
    failed_files: dict[str, str] = field(default_factory=dict)
    read: int = 0
    kept: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    deleted: int = 0
    resumed_items: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    embedder: str = ""
    dim: int = 0
    device: str = ""
    read_workers: int = 0
    raw_rate: float = 0.0
    raw_sample: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed_files

    def written_rows(self) -> int:
        return self.rows

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["ok"] = self.ok
        d.update(self.rate_fields())
        return d


class ShardWriter(StageThread):
    """Appends embedded rows to their file's shard (one row group per window) and
    finishes a shard when its file's end arrives."""

    def __init__(self, out_dir: Path, names: dict[Path, str], report: ShardReport, on_progress=None):
        super().__init__("shard-writer")
        self.out_dir, self.names, self.report, self.on_progress = out_dir, names, report, on_progress
        self.open: dict[Path, Any] = {}  # file -> ParquetWriter on its temporary shard
        self.rows: dict[Path, int] = {}
        self.deletes: dict[Path, list] = {}
        self.schema = arrow_schema()

    def _writer(self, f: Path):
        import pyarrow.parquet as pq

        if f not in self.open:
            tmp = self._tmp(f)
            self.open[f] = pq.ParquetWriter(tmp, self.schema, compression="zstd")
            self.rows[f], self.deletes[f] = 0, []
        return self.open[f]

    def _tmp(self, f: Path) -> Path:
        # the writing process in the name: a retried file (a Ray actor restarted) never
        # shares a temporary file with the attempt that died
        return self.out_dir / f"{self.names[f]}.parquet.{os.getpid()}.tmp"

    def _append(self, f: Path, rows: list[dict]) -> None:
        import pyarrow as pa

        self._writer(f).write_table(pa.Table.from_pylist(rows, schema=self.schema))
        self.rows[f] += len(rows)
        self.report.rows += len(rows)

    def _finish(self, f: Path) -> None:
        self._writer(f).close()  # a file without kept records still gets its (empty) shard
        del self.open[f]
        name = self.names[f]
        os.replace(self._tmp(f), self.out_dir / f"{name}.parquet")
        for dead in self.out_dir.glob(f"{name}.parquet.*.tmp"):  # what a killed attempt left
            dead.unlink(missing_ok=True)
        _write_json(self.out_dir / f"{name}.json", {"file": str(f), "rows": self.rows[f], "deletes": self.deletes[f]})
        self.report.shards_written += 1

    def _discard(self, f: Path) -> None:
        w = self.open.pop(f, None)
        if w is not None:
            w.close()
        self._tmp(f).unlink(missing_ok=True)

    def apply(self, item: tuple) -> None:
        kind, payload, marks = item
        if kind == "batch":
            records, vecs, origins = payload
            by_file: dict[Path, list[dict]] = {}
            for rec, vec, f in zip(records, vecs if vecs is not None else [], origins, strict=True):
                by_file.setdefault(f, []).append(ps.row_from_record(rec, vec))
            for f, rows in by_file.items():
                self._append(f, rows)
        elif kind == "delete":
            f = marks[0].file
            self._writer(f)
            self.deletes[f].append([self.rows[f], [int(p) for p in payload]])
            self.report.deleted += len(payload)
        elif kind == "file_error":
            file, error = payload
            self._discard(file)
            self.report.failed_files[str(file)] = error
        for m in marks:
            if m.done:
                self._finish(m.file)
        if self.on_progress is not None:
            self.on_progress(self.report)

    def abort(self) -> None:
        for f in list(self.open):
            self._discard(f)


def plan_shards(settings: Settings, inputs: list[str | Path], out_dir: str | Path, embedder: Embedder
                ) -> tuple[Path, list[Path], dict[Path, str], list[Path]]:
    """(shard folder, input files, shard name per file, files still to embed); refuses a
    folder of another embedder's shards, and removes a killed run's unfinished shards."""
    from biorag.ml.embedder import identity as embedder_identity
    from indexing.reader import expand_inputs

    files = expand_inputs(inputs)
    out = Path(out_dir).expanduser()
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: not a directory; --to-shards takes a folder for the shards")
    out.mkdir(parents=True, exist_ok=True)
    if (out / MANIFEST).exists():
        old = read_manifest(out)
        if old.get("embedder_id") != embedder_identity(embedder.name):
            raise InputError(f"{out} holds shards embedded with {old.get('embedder')}, not {embedder.name}: "
                             "use another folder, or the same embedder")
    names = {f: shard_name(f) for f in files}
    if len(set(names.values())) != len(names):
        raise InputError("two inputs would share one shard name; give each file once")
    for tmp in out.glob("*.parquet.*.tmp"):  # a killed run's unfinished shards are redone
        tmp.unlink()
    return out, files, names, [f for f in files if finished(out, names[f]) is None]


def write_manifest(out: Path, embedder: Embedder, files: list[Path], names: dict[Path, str]) -> None:
    from biorag.ml.embedder import identity as embedder_identity

    _write_json(out / MANIFEST, {
        "schema": SHARD_SCHEMA_VERSION, "embedder": embedder.name, "embedder_id": embedder_identity(embedder.name),
        "query_embedder": embedder.query_name, "dim": embedder.dim,
        "inputs": [{"file": str(f), "shard": names[f]} for f in files]})


def embed_files(settings: Settings, todo: list[Path], names: dict[Path, str], out: Path, embedder: Embedder,
                report: ShardReport, batch_size: int, progress: bool, on_progress=None, workers: int | None = None,
                before=None) -> None:
    """Run the pipeline over `todo` into their shards (`before()`: called once the readers
    started, for work that overlaps their start-up)."""
    from indexing.embed_stage import EmbedStage, auto_read_workers, embed_all
    from indexing.pipeline import ReaderPool

    stage = EmbedStage(embedder, settings.index.batch_size)
    report.read_workers = auto_read_workers(settings.index.read_workers) if workers is None else workers
    reader = ReaderPool(todo, {}, settings.index.min_abstract_words, stage.spec, batch_size, report.read_workers)
    reader.start()
    try:
        if before is not None:
            before()
        embed_all(reader, stage, ShardWriter(out, names, report, on_progress), report, settings, batch_size,
                  progress)
    finally:
        reader.close()


def embed_to_shards(settings: Settings, inputs: list[str | Path], out_dir: str | Path, progress: bool = True,
                    embedder: Embedder | None = None, batch_size: int = 128, on_progress=None) -> ShardReport:
    """Embed `inputs` into Parquet shards in `out_dir`, skipping inputs whose shard is
    finished; see the module docstring."""
    from biorag.ml.embedder import Embedder

    t_start = time.perf_counter()
    embedder = embedder or Embedder.from_settings(settings)
    out, files, names, todo = plan_shards(settings, inputs, out_dir, embedder)
    report = ShardReport(out_dir=str(out), files=len(files), files_skipped=len(files) - len(todo),
                         embedder=embedder.name)

    def start() -> None:  # the model loads while the readers start
        write_manifest(out, embedder, files, names)
        report.dim = embedder.dim
        report.seconds["startup"] = time.perf_counter() - t_start

    embed_files(settings, todo, names, out, embedder, report, batch_size, progress, on_progress, before=start)
    report.seconds["wall"] = time.perf_counter() - t_start
    return report


def format_shard_report(r: ShardReport) -> str:
    s = r.seconds
    lines = [
        f"shards in {r.out_dir}: {r.shards_written} written, {r.files_skipped} already finished earlier, "
        f"{len(r.failed_files)} failed, of {r.files} input file(s); embedder {r.embedder} ({r.dim}-dim)",
        f"records read {r.read}, kept {r.kept}, dropped {sum(r.dropped.values())}; rows written {r.rows}; "
        f"DeleteCitation PMIDs recorded {r.deleted}",
        f"time: wall {s.get('wall', 0):.1f}s = start-up {s.get('startup', 0):.1f}s, pipeline {s.get('pipeline', 0):.1f}s "
        f"(embed {s.get('embed', 0):.1f}s, write {s.get('load', 0):.1f}s, overlapping), raw-rate sample "
        f"{s.get('raw_rate', 0):.1f}s",
    ]
    if rate := r.rate_line():
        lines.append(rate)
    for f, err in r.failed_files.items():
        lines.append(f"FAILED {f}: {err} (no shard; re-run to retry it)")
    if r.ok:
        lines.append(f"load them with: biorag index load {r.out_dir}")
    return "\n".join(lines)
