"""Opening the vector store: the one place that makes a MilvusClient, for builds,
searches, stats and verification alike.

Why a helper rather than `MilvusClient(uri)` everywhere:
- Keepalive. pymilvus pings every 10 s even on an idle connection, and Milvus Lite's
  in-process gRPC server (grpc's default policy: no ping more often than every 5 minutes
  without data, two strikes) answers an idle connection with GOAWAY `too_many_pings`
  after about 30 s. pymilvus health-checks a shared connection that was idle for over
  30 s and reconnects through the same poisoned subchannel: `Fail connecting to server`.
  That is how an API rebuild job started after a quiet minute failed to open the store.
  Lite connections therefore ping only during calls, within the server's policy.
- Lock errors. A Milvus Lite store is opened by one process at a time (an flock on
  `<store>/LOCK`). milvus_lite logs the refusal with a traceback and pymilvus then says
  only "Open local milvus failed". Here the refusal is one line that names the process
  holding the store and what to do.
- A missing store. A reader must not invent an empty index: without `create` a missing
  Lite store is `StoreMissing`, one line that says how to build it.
- Closing. `open_store(..., owner=obj)` closes the client when `obj` is garbage
  collected, so a retriever dropped while a search may still use it (after an index
  rebuild) closes its client once its last user is done.

`open_index(settings)` opens the store the settings name (URI and token): builds, stats,
verification and the PubMed retriever all go through it.
"""

from __future__ import annotations

import logging
import os
import re
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import NotBuilt, SourceUnavailable

if TYPE_CHECKING:
    from biorag.settings import Settings

# Lite runs in this process: keepalive pings buy nothing and break the server's policy
# (see the module docstring). Pings only while calls are in flight, at most every 6 min.
LITE_GRPC_OPTIONS = {"grpc.keepalive_time_ms": 360_000, "grpc.keepalive_permit_without_calls": 0}


#: how to make the index a reader found missing
BUILD_HINT = ("build it with `biorag index build --input FILES_OR_DIRS` "
              "(or `biorag index build --sample`: the bundled PubMed sample)")


class StoreBusy(SourceUnavailable):
    """Another process holds the Milvus Lite store."""


class StoreMissing(NotBuilt):
    """No Lite store at the path, and the caller may not create one: the index was never
    built here."""


def backend_of(uri: str) -> str:
    """'server' for http(s)/tcp/grpc URIs, 'lite' for a local file."""
    return "server" if re.match(r"^(https?|tcp|grpc|unix)://", uri) else "lite"


def index_token(settings: Settings) -> str | None:
    """The `index.token` secret in the clear, for the client; None without one."""
    return settings.index.token.get_secret_value() if settings.index.token else None


def open_index(settings: Settings, *, create: bool = False, source: str = "pubmed", owner: object | None = None):
    """`open_store` for the store the settings name (`milvus_uri`, `index.token`)."""
    return open_store(settings.milvus_uri, index_token(settings), create=create, source=source, owner=owner)


def open_store(uri: str, token: str | None = None, *, create: bool = False, source: str = "pubmed",
               owner: object | None = None):
    """A MilvusClient for `uri` (a Milvus Lite store path or a server URL).

    create=False: a missing Lite store raises StoreMissing. A store held by another process
    raises StoreBusy; any other failure SourceUnavailable, each with one line. `owner`:
    close the client when it is collected."""
    from pymilvus import MilvusClient

    kwargs: dict[str, Any] = {}
    if backend_of(uri) == "lite":
        p = Path(uri).expanduser()
        if not p.exists():
            if not create:
                raise StoreMissing(source, f"no PubMed index at {p}; {BUILD_HINT}")
            p.parent.mkdir(parents=True, exist_ok=True)
        uri = str(p)
        holder = lock_holder(p / "LOCK")
        if holder is not None and holder != os.getpid():
            raise StoreBusy(source, busy_message(p, holder))
        kwargs["grpc_options"] = dict(LITE_GRPC_OPTIONS)
    if token:
        kwargs["token"] = token
    captured: list[str] = []
    try:
        with _captured_lite_errors(captured):
            client = MilvusClient(uri=uri, **kwargs)
    except Exception as e:  # noqa: BLE001 - one line for the user, whatever pymilvus raised
        if backend_of(uri) == "lite":
            holder = lock_holder(Path(uri) / "LOCK")
            if holder is not None and holder != os.getpid():  # lost a race with another opener
                raise StoreBusy(source, busy_message(Path(uri), holder)) from None
        why = captured[-1] if captured else _one_line(e)
        raise SourceUnavailable(source, f"cannot open the vector store at {uri}: {why}") from None
    if owner is not None:
        weakref.finalize(owner, client.close)
    return client


def busy_message(store: Path, pid: int) -> str:
    what = _command_of(pid)
    return (
        f"the index store {store} is in use by process {pid}{f' ({what})' if what else ''}. A Milvus Lite "
        "store is opened by one process at a time: wait for that process to finish or stop it, or send "
        "rebuilds and searches to the server that holds it (POST /v1/jobs/index-rebuild, GET /v1/search/pubmed)"
    )


def lock_holder(lock_file: Path) -> int | None:
    """The pid holding an flock on `lock_file`, from /proc/locks (Linux); None if nobody
    holds it or it cannot be told."""
    try:
        st = lock_file.stat()
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return None
    want = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    for line in lines:
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; waiters read "1: -> FLOCK ..."
        if len(parts) < 6 or parts[1] != "FLOCK":
            continue
        try:
            major, minor, inode = parts[5].split(":")
            if (int(major, 16), int(minor, 16), int(inode)) == want:
                return int(parts[4])
        except ValueError:
            continue
    return None


def _command_of(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words = [w for w in raw.decode(errors="replace").split("\0") if w]
    words[:1] = [Path(words[0]).name] if words else []
    text = " ".join(" ".join(words).split())
    return text if len(text) <= 100 else text[:99] + "…"


def _one_line(e: BaseException) -> str:
    msg = getattr(e, "message", None) or str(e) or type(e).__name__
    return " ".join(str(msg).split())


class _Capture(logging.Filter):
    """Keeps what milvus_lite logs (with a traceback) when it cannot open a store, and
    stops it from being printed: the caller raises it as one line instead."""

    def __init__(self, into: list[str]):
        super().__init__()
        self.into = into

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR:
            exc = record.exc_info[1] if record.exc_info else None
            self.into.append(_one_line(exc) if exc is not None else record.getMessage())
            return False
        return True


class _captured_lite_errors:
    def __init__(self, into: list[str]):
        self.filter = _Capture(into)
        self.logger = logging.getLogger("milvus_lite.server_manager")

    def __enter__(self):
        self.logger.addFilter(self.filter)

    def __exit__(self, *exc):
        self.logger.removeFilter(self.filter)
        return False
