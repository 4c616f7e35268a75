"""Opening the text files users hand to BioRAG's builders, gzip or not."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from biorag.errors import InputError


def open_text(path: Path) -> io.TextIOBase:
    """`path` as UTF-8 text (``.gz`` decompressed on the fly; newlines kept as written for
    the csv module); a one-line InputError when it does not exist."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"file not found: {path}")
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")
