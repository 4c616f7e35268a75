"""A real Milvus server for tests, started without Docker from the `milvus` wheel (2.3.5,
the last Linux x86_64 build of Milvus's embedded server; see the README's note).

The wheel's own wait loop runs for 180 s even after the server died, so this polls
`/healthz` itself and fails at once, with the server's log tail, if the process exits.
Only one can run per host: its embedded etcd takes port 2380.
"""

from __future__ import annotations

import platform
import time
import urllib.request
from pathlib import Path


def unavailable() -> str | None:
    """Why no server can be started here (a skip reason), or None."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"the milvus 2.3.5 server wheel exists for Linux x86_64 only, not {platform.system()} {platform.machine()}"
    try:
        import milvus  # noqa: F401
    except ImportError:
        return "the milvus server wheel is not installed (pip install milvus==2.3.5; dev extra)"
    return None


def enable_mmap(config, mmap_dir: Path) -> None:
    """Add `queryNode.mmapDirPath` to the wheel's config template (the template has no such
    line, and the wheel's `set` only replaces lines that exist). 2.3 memory-maps every loaded
    field's raw data when the path is set; 2.4+ has per-field `mmap.enabled` instead."""
    mmap_dir.mkdir(parents=True, exist_ok=True)
    text = config.template_text
    if "\nqueryNode:\n" not in text:
        raise RuntimeError("the milvus wheel's config template has no queryNode section: cannot enable mmap")
    config.template_text = text.replace("\nqueryNode:\n", f"\nqueryNode:\n  mmapDirPath: {mmap_dir}\n", 1)


class MilvusTestServer:
    def __init__(self, base_dir: Path, timeout_s: float = 120.0, mmap_dir: Path | None = None):
        """mmap_dir: memory-map loaded field data there (2.3's global `queryNode.mmapDirPath`):
        text, scalars and raw vectors live in the page cache instead of the server's heap."""
        from milvus import MilvusServer

        self.base_dir = base_dir
        self.timeout_s = timeout_s
        self.server = MilvusServer(wait_for_started=False)
        self.server.set_base_dir(str(base_dir))
        if mmap_dir is not None:
            enable_mmap(self.server.config, mmap_dir)

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.server.listen_port}"

    def _log_tail(self) -> str:
        log = self.base_dir / "logs" / "milvus-stderr.log"
        return log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"

    def start(self) -> MilvusTestServer:
        self.server.start()
        proc = self.server.server_proc
        url = f"http://127.0.0.1:{self.server.webservice_port}/healthz"
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.stop()
                raise RuntimeError(f"milvus server exited with {proc.returncode} while starting: {self._log_tail()}")
            try:
                with urllib.request.urlopen(url, timeout=2) as r:
                    if b"OK" in r.read():
                        return self
            except OSError:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"milvus server not healthy after {self.timeout_s:.0f}s: {self._log_tail()}")

    def stop(self) -> None:
        self.server.stop()
