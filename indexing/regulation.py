"""TRRUST v2's transcription factor -> target regulation, written into the local gene store
while it is built (`add_regulation`, part of the CLI's `build_gene_store` extend step).

The bundled files (`resources/trrust/`, PROVENANCE there) have four tab-separated columns
and no header: TF, target, mode (Activation, Repression, Unknown) and ';'-separated PMIDs,
one row per (TF, target, mode). Rows are kept as they are, with their PMID count; the
table is `biorag.storage.gene_store_schema.REGULATION_SCHEMA`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from biorag.contracts.errors import InputError
from biorag.host.textfile import open_text
from biorag.storage.gene_store_schema import REGULATION_SCHEMA

TRRUST_DIR = Path(__file__).parent / "resources" / "trrust"
TRRUST_FILES = {"human": TRRUST_DIR / "trrust_rawdata.human.tsv.gz",
                "mouse": TRRUST_DIR / "trrust_rawdata.mouse.tsv.gz"}
MODES = ("Activation", "Repression", "Unknown")


def read_trrust(path: Path) -> Iterator[tuple[str, str, str, list[str]]]:
    """(TF, target, mode, PMIDs) per row; `InputError` naming the line of a malformed row."""
    with open_text(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) != 4 or cols[2] not in MODES or not cols[0] or not cols[1]:
                raise InputError(f"{path}: line {n} is not 'TF, target, mode, PMIDs' with a TRRUST mode")
            pmids = [p.strip() for p in cols[3].split(";") if p.strip()]
            yield cols[0].strip(), cols[1].strip(), cols[2], pmids


def add_regulation(con: sqlite3.Connection, files: dict[str, Path] | None = None) -> dict[str, int]:
    """The `regulation` table from TRRUST files (organism -> path; the bundled ones by
    default); its row counts per organism."""
    files = TRRUST_FILES if files is None else files
    for path in files.values():
        if not Path(path).exists():
            raise InputError(f"TRRUST regulation: {path} not found")
    con.executescript(REGULATION_SCHEMA)
    counts: dict[str, int] = {}
    for organism, path in files.items():
        rows = [(tf, target, organism, mode, ";".join(pmids), len(pmids))
                for tf, target, mode, pmids in read_trrust(Path(path))]
        con.executemany("INSERT INTO regulation VALUES (?, ?, ?, ?, ?, ?)", rows)
        counts[f"trrust_{organism}_rows"] = len(rows)
    return counts
