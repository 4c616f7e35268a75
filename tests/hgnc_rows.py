"""The approved rows of the HGNC complete set bundled with BioRAG, read here independently of
the code under test (tests generate questions from them and check answers against them)."""

from __future__ import annotations

import csv
import gzip

from indexing.gene_store_build import snapshot_paths


def approved_hgnc_rows() -> list[dict[str, str]]:
    with gzip.open(snapshot_paths()["hgnc"], "rt", encoding="utf-8", newline="") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r.get("status", "Approved") == "Approved"]
