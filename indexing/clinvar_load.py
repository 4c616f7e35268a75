"""ClinVar's variants from every release BioRAG bundles, written into the gene store.

Three releases, newest first (`RELEASES`); each row of the store's ``variants`` table names
the release it comes from, and ``variant_releases`` lists them with their counts, so an
answer can say which release it read and a miss can say which releases were searched:

- the ClinVar GRCh38 VCF of 2026-02-26, restricted to 34 hereditary-cancer genes (or the
  VCF given with ``--clinvar-vcf``, under its own ``##fileDate``);
- ClinVar's ``variant_summary`` of January 2021, the rows of AlleleIDs 15041-76255 (the
  oldest records, every chromosome; GRCh38 and GRCh37 positions; rsIDs);
- all of ClinVar of 2016-05-05 as the MacArthur lab flattened it (GRCh37, HGVS c./p., no
  rsIDs).

The two older ones are bundled reduced (`indexing.clinvar_bundle`). A variant is looked up
by rsID, or by gene and protein change; the read side (`retrievers.stores.clinvar_lookup`) prefers
the newest release that holds it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError
from biorag.host.textfile import open_text
from indexing.clinvar_bundle import BUNDLE_COLUMNS, BUNDLE_DIR, MACARTHUR_2016, SUMMARY_2021

#: the columns of the store's ``variants`` table, in order (biorag.storage.gene_store_schema)
VARIANT_COLUMNS = ("rsid", "variation_id", "gene_id", "symbol", "chromosome", "position", "ref", "alt",
                   "significance", "conditions", "assembly", "review_status", "grch37_position", "hgvs_c",
                   "hgvs_p", "release")


@dataclass(frozen=True)
class Release:
    """One bundled ClinVar release: its date (``release`` in the store) and what it covers."""

    release: str
    label: str
    path: Path


SUMMARY_RELEASE = Release("2021-01", "ClinVar variant_summary of January 2021 (AlleleIDs 15041-76255, all genes)",
                          BUNDLE_DIR / SUMMARY_2021)
MACARTHUR_RELEASE = Release("2016-05-05", "ClinVar of 2016-05-05 (all genes, GRCh37, no rsIDs)",
                            BUNDLE_DIR / MACARTHUR_2016)
#: the bundled tables after the VCF, newest first
OLDER_RELEASES = (SUMMARY_RELEASE, MACARTHUR_RELEASE)


def vcf_release(path: Path) -> str:
    """A ClinVar VCF's ``##fileDate`` as YYYY-MM-DD ("" when it has none)."""
    with open_text(path) as fh:
        for line in fh:
            if not line.startswith("##"):
                break
            if line.startswith("##fileDate="):
                d = line.split("=", 1)[1].strip()
                return f"{d[:4]}-{d[4:6]}-{d[6:8]}" if len(d) == 8 and d.isdigit() else d
    return ""


def read_bundle(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a bundled table (`indexing.clinvar_bundle.BUNDLE_COLUMNS`), typed for the store."""
    with open_text(path) as fh:
        header = tuple(fh.readline().rstrip("\r\n").split("\t"))
        if header != BUNDLE_COLUMNS:
            raise InputError(f"{path} is not a bundled ClinVar table (expected columns {', '.join(BUNDLE_COLUMNS)})")
        for line in fh:
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) != len(BUNDLE_COLUMNS):
                continue
            r: dict[str, Any] = dict(zip(BUNDLE_COLUMNS, cols, strict=True))
            for key in ("gene_id", "position", "grch37_position"):
                r[key] = int(r[key]) if r[key].isdigit() else None
            for key in ("rsid", "symbol", "chromosome", "ref", "alt", "hgvs_c", "hgvs_p", "review_status"):
                r[key] = r[key] or None
            r["assembly"] = "GRCh38" if r["position"] is not None else "GRCh37"
            yield r


def _insert(con: sqlite3.Connection, rows: Iterator[dict[str, Any]], release: str) -> tuple[int, int]:
    """Rows written and distinct rsIDs among them."""
    sql = f"INSERT INTO variants VALUES ({','.join('?' * len(VARIANT_COLUMNS))})"
    n, rsids, batch = 0, set(), []
    for row in rows:
        row = {**row, "release": release}
        batch.append(tuple(row.get(c) for c in VARIANT_COLUMNS))
        n += 1
        if row.get("rsid"):
            rsids.add(row["rsid"])
        if len(batch) >= 10_000:
            con.executemany(sql, batch)
            batch = []
    con.executemany(sql, batch)
    return n, len(rsids)


def add_clinvar_releases(con: sqlite3.Connection, vcf: Path, vcf_rows: Iterator[dict[str, Any]],
                         older: tuple[Release, ...] = OLDER_RELEASES) -> dict[str, Any]:
    """The VCF's rows (read by `indexing.gene_annotations.read_clinvar_vcf`) and the bundled
    older releases into ``variants``; ``variant_releases`` says what each holds."""
    for rel in older:
        if not rel.path.is_file():
            raise InputError(f"ClinVar: {rel.path} not found")
    vcf_date = vcf_release(vcf) or "undated"
    bundled = vcf.name == "clinvar_20260226_GRCh38_hereditary_cancer_genes_subset.vcf.gz"
    label = (f"ClinVar VCF of {vcf_date} (GRCh38, 34 hereditary-cancer genes)" if bundled
             else f"ClinVar VCF of {vcf_date} ({vcf.name}, GRCh38)")
    counts: dict[str, Any] = {}
    releases = []
    for rel, rows in ((Release(vcf_date, label, vcf), vcf_rows),
                      *((r, read_bundle(r.path)) for r in older)):
        n, rsids = _insert(con, rows, rel.release)
        releases.append((rel.release, rel.label, n, rsids))
    con.executemany("INSERT INTO variant_releases VALUES (?,?,?,?)", releases)
    counts["clinvar_variants"] = sum(r[2] for r in releases)
    counts["clinvar_rsids"] = con.execute("SELECT COUNT(DISTINCT rsid) FROM variants WHERE rsid IS NOT NULL").fetchone()[0]
    counts["clinvar_releases"] = [r[0] for r in releases]
    return counts
