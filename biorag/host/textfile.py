"""Opening the text files users hand to BioRAG's builders, gzip or not."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from biorag.contracts.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"


def unreadable(e: OSError | UnicodeDecodeError) -> str:
    """What is wrong with a file that could not be read, worded to follow its name in a
    one-line error: 'is not a text file (not UTF-8)', 'is a directory', 'cannot be read (...)'."""
    if isinstance(e, UnicodeDecodeError):
        return "is not a text file (not UTF-8)"
    if isinstance(e, IsADirectoryError):
        return "is a directory"
    return f"cannot be read ({e.strerror or type(e).__name__})"


def open_text(path: Path) -> io.TextIOBase:
    """`path` as UTF-8 text, decompressed when it is gzip (decided by its first bytes, not
    its name: a server may send either under any name); newlines kept as written for the
    csv module. A one-line InputError when it does not exist."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"file not found: {path}")
    with open(path, "rb") as fh:
        compressed = fh.read(2) == GZIP_MAGIC
    if compressed:
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")
