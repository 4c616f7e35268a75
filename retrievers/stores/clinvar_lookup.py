"""ClinVar's variants in the gene store, the read side: by rsID or by gene and protein change,
newest release first (written by `indexing.clinvar_load`).

A protein change is read as people write it: one-letter ("V600E", "p.V600E", "R1443*",
"R1443X") or three-letter ("Val600Glu", "p.(Val600Glu)", "Arg1443Ter"), and matched to the
HGVS p. name ClinVar gives. A variant the newest release lacks is still answered from an
older one, which the answer names: the 2016 table has no rsIDs, so its rows are tied to an
rsID through the 2021 release's GRCh37 position and alleles when that release holds them.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from biorag.understanding.protein_changes import PROTEIN_CHANGE, protein_change

__all__ = ["PROTEIN_CHANGE", "by_protein", "by_rsid", "newest_first", "protein_change", "releases"]

def _tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def _dicts(cur: sqlite3.Cursor) -> list[dict[str, Any]]:
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def releases(con: sqlite3.Connection) -> list[tuple[str, str]]:
    """(release, what it covers) of the ClinVar releases in the store, newest first; empty for a
    store built before releases were recorded."""
    if "variant_releases" not in _tables(con):
        return []
    return [(r, label) for r, label in con.execute("SELECT release, label FROM variant_releases ORDER BY release DESC")]


def newest_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`rows` grouped by release, the newest release first (a store without releases keeps its order)."""
    return sorted(rows, key=lambda r: str(r.get("release") or ""), reverse=True)


def by_rsid(con: sqlite3.Connection, rsid: str) -> list[dict[str, Any]]:
    """Every release's records of one rsID, newest release first."""
    if "variants" not in _tables(con):
        return []
    return newest_first(_dicts(con.execute("SELECT * FROM variants WHERE rsid=? ORDER BY variation_id", (rsid.lower(),))))


def by_protein(con: sqlite3.Connection, symbol: str, hgvs_p: str) -> list[dict[str, Any]]:
    """Every release's records of a gene's protein change ("BRAF", "p.Val600Glu"), newest first:
    the rows naming it, and the rows of the rsID they share (rows without an rsID are tied to
    one by GRCh37 position and alleles)."""
    if "variants" not in _tables(con) or "hgvs_p" not in {r[1] for r in con.execute("PRAGMA table_info(variants)")}:
        return []
    rows = _dicts(con.execute("SELECT * FROM variants WHERE symbol=? AND hgvs_p=?", (symbol.upper(), hgvs_p)))
    rsids = {r["rsid"] for r in rows if r["rsid"]}
    for r in rows:
        if not r["rsid"] and r["grch37_position"]:
            rsids |= {x for (x,) in con.execute(
                "SELECT rsid FROM variants WHERE chromosome=? AND grch37_position=? AND ref=? AND alt=? "
                "AND rsid IS NOT NULL", (r["chromosome"], r["grch37_position"], r["ref"], r["alt"]))}
    seen = {(r["release"], r["variation_id"], r["symbol"]) for r in rows}
    # an rsID names a position, not an allele: its other alleles are other protein changes
    alleles = {(r["ref"], r["alt"]) for r in rows if r["ref"] and r["alt"]}
    for rs in sorted(rsids):
        for r in by_rsid(con, rs):
            if alleles and (r["ref"], r["alt"]) not in alleles:
                continue
            if (r["release"], r["variation_id"], r["symbol"]) not in seen and r["symbol"] in (None, symbol.upper()):
                seen.add((r["release"], r["variation_id"], r["symbol"]))
                rows.append(r)
    return newest_first(rows)
