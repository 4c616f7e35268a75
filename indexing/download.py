"""Fetch bulk files over HTTP(S) with a progress bar, replacing local copies atomically.

`download_all` fetches every file to a hidden temporary name beside its target first
(same folder, same suffix, so ``.gz`` files are still read as gzip), lets the caller check
them (e.g. build a store from them), and only then renames them over the old copies. A
failed download or a failed check leaves the previous files untouched and removes the
partial ones.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from biorag.contracts.errors import BioragError, InputError

T = TypeVar("T")


class DownloadError(BioragError):
    """A file could not be fetched (network, HTTP status, short read)."""

    exit_code = 4


def file_name(url: str) -> str:
    """The file name a URL's path ends with."""
    name = Path(urlsplit(url).path).name
    if not name:
        raise InputError(f"download URL {url!r} does not end with a file name")
    return name


def fetch(url: str, dest: Path, timeout_s: float = 60.0, progress: bool = True) -> int:
    """Stream `url` into `dest` (overwritten); returns the bytes written."""
    import httpx
    from tqdm import tqdm

    try:
        with httpx.stream("GET", url, timeout=timeout_s, follow_redirects=True) as r:
            if r.status_code != 200:
                raise DownloadError(f"download of {url} failed: HTTP {r.status_code}")
            encoded = r.headers.get("Content-Encoding", "identity") not in ("", "identity")
            total = None if encoded else int(r.headers.get("Content-Length") or 0) or None
            written = 0
            with open(dest, "wb") as fh, tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024,
                                              desc=file_name(url), disable=not progress) as bar:
                for chunk in r.iter_bytes(1 << 16):
                    fh.write(chunk)
                    written += len(chunk)
                    bar.update(len(chunk))
    except httpx.HTTPError as e:
        raise DownloadError(f"download of {url} failed: {type(e).__name__}: {e}") from e
    if total is not None and written != total:
        raise DownloadError(f"download of {url} stopped after {written:,} of {total:,} bytes")
    return written


def download_all(urls: dict[str, str], folder: Path, check: Callable[[dict[str, Path]], T],
                 timeout_s: float = 60.0, progress: bool = True) -> tuple[dict[str, Path], T]:
    """Download each ``key -> url`` into `folder`, call ``check(temp paths)`` and, when both
    succeed, move the files into place. Returns (final paths, what `check` returned)."""
    folder = Path(folder).expanduser()
    folder.mkdir(parents=True, exist_ok=True)
    final = {key: folder / file_name(url) for key, url in urls.items()}
    temp = {key: path.with_name(".partial-" + path.name) for key, path in final.items()}
    try:
        for key, url in urls.items():
            fetch(url, temp[key], timeout_s, progress)
        result = check(temp)
        for key in urls:
            os.replace(temp[key], final[key])
    finally:
        for path in temp.values():
            path.unlink(missing_ok=True)
    return final, result
