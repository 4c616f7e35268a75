"""Collections a store holds besides the one an alias serves, and `biorag index gc`.

Every fresh build and rebuild writes a new collection `<alias>_<UTC timestamp>`. The one
the alias points to serves; the others were left by
- a replaced build: the alias moved on from it (labelled when the alias switched);
- a failed build: it never served (input files failed, verification failed, the rebuild
  was too small, or the build was killed). Re-running the same build resumes into it;
- a running build: its job file says so and its process is alive on this host.

`gc` removes replaced and failed ones (and a failed build's job file, so the next build
starts clean). It never touches the collection an alias points to, a running build, or a
collection whose name was not made by `biorag index build` for this alias. It keeps the
previous collection (the one the alias moved from to the one it serves, status
`previous`) for `rollback` unless `keep_previous=False`. It only reads the alias and drops
other collections, so it runs beside a server that searches the alias (with Milvus Lite,
through the server: one process owns the file).

`rollback` points the alias back at the previous collection and marks the one it leaves as
replaced by it, so a second rollback undoes the first.
"""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.ml import pubmed_schema as ps
from indexing.lexical_build import remove_lexical_index
from indexing.loader import REPLACED_PROPERTY, mark_replaced, switch_alias

if TYPE_CHECKING:
    from biorag.settings import Settings

REMOVABLE = ("replaced", "failed")


@dataclass
class CollectionInfo:
    name: str
    status: str  # serving | previous | replaced | failed | building | other-alias | other
    rows: int | None = None
    note: str = ""


@dataclass
class GcReport:
    alias: str
    dry_run: bool
    removed: list[CollectionInfo] = field(default_factory=list)
    kept: list[CollectionInfo] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"alias": self.alias, "dry_run": self.dry_run, "removed": [asdict(c) for c in self.removed],
                "kept": [asdict(c) for c in self.kept]}


def _job_files(settings: Settings, alias: str) -> dict[str, Path]:
    """Build job files of this alias, by the collection they write into."""
    out: dict[str, Path] = {}
    for path in (Path(settings.data_dir) / "index_jobs").glob(f"{alias}-*.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(data, dict) and data.get("target"):
            out[str(data["target"])] = path
    return out


def _running(job_file: Path) -> bool:
    try:
        data = json.loads(job_file.read_text())
        pid = int(data.get("pid", 0))
    except (OSError, ValueError, TypeError):
        return False
    if not data.get("running") or data.get("host") != socket.gethostname() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def classify(client, settings: Settings, alias: str) -> list[CollectionInfo]:
    serving = ps.alias_target(client, alias)
    listed = client.list_aliases()
    alias_names = listed.get("aliases", []) if isinstance(listed, dict) else list(listed or [])
    others = {ps.alias_target(client, a): a for a in alias_names if a != alias}
    jobs = _job_files(settings, alias)
    own = re.compile(rf"^{re.escape(alias)}_\d{{8}}_\d{{6}}_\d{{6}}$")
    out = []
    for name in sorted(client.list_collections()):
        info = CollectionInfo(name=name, status="other", rows=_rows(client, name))
        if name == serving:
            info.status = "serving"
        elif name in others:
            info.status, info.note = "other-alias", f"alias '{others[name]}' points to it"
        elif not own.match(name):
            info.note = f"not built for alias '{alias}'"
        elif name in jobs and _running(jobs[name]):
            info.status, info.note = "building", f"a build is writing it (job file {jobs[name]})"
        elif (by := (client.describe_collection(name).get("properties") or {}).get(REPLACED_PROPERTY)):
            info.status, info.note = "replaced", f"the alias moved to {by}"
            if by == serving:
                info.status, info.note = "previous", f"the alias moved from it to {by}: `biorag index rollback` returns"
        else:
            info.status = "failed"
            info.note = (f"an unfinished build (job file {jobs[name]}): re-running it resumes here"
                         if name in jobs else "left by a build that did not switch the alias")
        out.append(info)
    return out


def _rows(client, name: str) -> int | None:
    """Row count without loading the collection (Milvus servers count deleted rows until
    compaction, so this is approximate there)."""
    try:
        return int(client.get_collection_stats(name).get("row_count", 0))
    except Exception:  # noqa: BLE001 - a count for display only
        return None


def collect_garbage(client, settings: Settings, alias: str, dry_run: bool = False,
                    keep_previous: bool = True) -> GcReport:
    report = GcReport(alias=alias, dry_run=dry_run)
    jobs = _job_files(settings, alias)
    removable = REMOVABLE if keep_previous else (*REMOVABLE, "previous")
    infos = classify(client, settings, alias)
    previous = [c for c in infos if c.status == "previous"]
    for stale in previous[:-1]:  # only the newest previous collection is the rollback target
        stale.status = "replaced"
    for info in infos:
        if info.status not in removable:
            report.kept.append(info)
            continue
        if not dry_run:
            client.drop_collection(info.name)
            remove_lexical_index(settings, info.name)
            if info.name in jobs:
                jobs[info.name].unlink(missing_ok=True)
                jobs[info.name].with_suffix(".pmids").unlink(missing_ok=True)
        report.removed.append(info)
    return report


@dataclass
class RollbackReport:
    alias: str
    rolled_back_from: str
    serving: str
    rows: int | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class NoPrevious(Exception):
    """Nothing to roll back to."""


def rollback(client, settings: Settings, alias: str) -> RollbackReport:
    """Point `alias` at its previous collection (see the module docstring)."""
    infos = classify(client, settings, alias)
    serving = next((c for c in infos if c.status == "serving"), None)
    previous = [c for c in infos if c.status == "previous"]
    if serving is None:
        raise NoPrevious(f"'{alias}' serves no collection: build one first (`biorag index build`)")
    if not previous:
        raise NoPrevious(f"'{alias}' has no previous collection to roll back to (it serves {serving.name}; "
                         "`biorag index gc --no-keep-previous` removes it, and the first build has none)")
    target = previous[-1]
    client.load_collection(target.name)
    switch_alias(client, alias, target.name)
    mark_replaced(client, serving.name, target.name)
    return RollbackReport(alias=alias, rolled_back_from=serving.name, serving=target.name,
                          rows=ps.row_count(client, target.name))


def format_gc(report: GcReport) -> str:
    verb = "would remove" if report.dry_run else "removed"
    lines = [f"{verb} {c.name} ({c.status}, {c.rows} rows): {c.note}" for c in report.removed]
    lines += [f"kept {c.name} ({c.status}, {c.rows} rows){': ' + c.note if c.note else ''}" for c in report.kept]
    if not report.removed:
        lines.append(f"nothing to remove for alias '{report.alias}'")
    return "\n".join(lines)
