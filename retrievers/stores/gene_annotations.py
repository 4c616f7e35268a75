"""The gene store's annotation tables, the read side (written by indexing/gene_annotations.py,
tables in `biorag.storage.gene_store_schema.ANNOTATION_SCHEMA`): what a gene does (GO BP terms and
Reactome pathways, best-ranked first), the diseases the store links to it, and ClinVar's
variants by rsID. A store built before these tables existed answers with nothing.
"""

from __future__ import annotations

import sqlite3
from typing import Any

#: how many of each a gene card shows
MAX_PROCESSES = 6
MAX_PATHWAYS = 4
MAX_DISEASES = 5


def _tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def gene_annotations(con: sqlite3.Connection, gene_id: int, tables: set[str] | None = None) -> dict[str, list[dict[str, str]]]:
    """``processes`` ([{id, name, evidence}]), ``pathways`` ([{id, name}]) and ``diseases``
    ([{id, name}]) of one gene, each best first and cut to what a card shows."""
    tables = _tables(con) if tables is None else tables
    out: dict[str, list[dict[str, str]]] = {"processes": [], "pathways": [], "diseases": []}
    if "gene_go" in tables:
        out["processes"] = [
            {"id": r[0], "name": r[1], "evidence": r[2]} for r in con.execute(
                "SELECT g.go_id, t.name, g.evidence FROM gene_go g JOIN go_terms t USING (go_id) "
                "WHERE g.gene_id=? ORDER BY g.rank LIMIT ?", (gene_id, MAX_PROCESSES))]
    if "gene_pathways" in tables:
        out["pathways"] = [
            {"id": r[0], "name": r[1]} for r in con.execute(
                "SELECT g.pathway_id, p.name FROM gene_pathways g JOIN pathways p USING (pathway_id) "
                "WHERE g.gene_id=? ORDER BY g.rank LIMIT ?", (gene_id, MAX_PATHWAYS))]
    if "disease_genes" in tables:
        # diseases more sources link the gene to first; ClinVar's "related" (a gene near the
        # variant, not its cause) and NCBI's "question" links are left out
        out["diseases"] = [
            {"id": r[0], "name": r[1]} for r in con.execute(
                "SELECT g.disease_id, d.name, COUNT(DISTINCT g.source) AS n FROM disease_genes g "
                "JOIN diseases d USING (disease_id) WHERE g.gene_id=? "
                "AND COALESCE(g.note, '') NOT IN ('related', 'question') "
                "GROUP BY g.disease_id ORDER BY n DESC, g.disease_id LIMIT ?", (gene_id, MAX_DISEASES))]
    return out


def variants_by_rsid(con: sqlite3.Connection, rsid: str) -> list[dict[str, Any]]:
    """ClinVar's records of one rsID ("rs121913343"), one per (variation, gene)."""
    if "variants" not in _tables(con):
        return []
    cur = con.execute("SELECT * FROM variants WHERE rsid=? ORDER BY variation_id", (rsid.lower(),))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
