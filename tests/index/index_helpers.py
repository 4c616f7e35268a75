"""Real records for the index tests: the bundled PubMed sample, as JSONL rows and files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from biorag.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample"


def sample_rows(n: int, start: int = 0) -> list[dict]:
    with gzip.open(SAMPLE / "alzheimers_records.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in f]
    return rows[start : start + n]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def settings_for(tmp: Path, **index):
    return load_settings(overrides={"data_dir": str(tmp), "index": index} if index else {"data_dir": str(tmp)})
