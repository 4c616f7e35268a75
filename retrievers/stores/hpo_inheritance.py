"""A disease's inheritance in the HPO store: its annotations of aspect I (phenotype.hpoa's
"Mode of inheritance" sub-ontology, HP:0000005), modes first. A term under "Inheritance
qualifier" (HP:0034335: incomplete penetrance, anticipation, somatic mosaicism) says how a
mode shows, not which mode it is, so it is marked as such: a disease annotated with
qualifiers alone has no mode of inheritance in HPO."""

from __future__ import annotations

import sqlite3
from typing import Any

#: HP:0034335, "Inheritance qualifier", as the store numbers terms
_QUALIFIER = 34335


def inheritance_of(con: sqlite3.Connection, disease_id: str) -> list[dict[str, Any]]:
    """The disease's inheritance annotations (not negated), as dicts with id, name and
    qualifier (a term under "Inheritance qualifier"), modes first, each group by HP id."""
    rows = con.execute(
        "SELECT DISTINCT t.id, t.name, EXISTS (SELECT 1 FROM ancestors a WHERE a.term = t.term "
        f"AND a.ancestor = {_QUALIFIER}) FROM disease_terms d JOIN terms t ON t.term = d.term "
        "WHERE d.disease_id = ? AND d.aspect = 'I' AND d.negated = 0", (disease_id,)).fetchall()
    return sorted(({"id": r[0], "name": r[1], "qualifier": bool(r[2])} for r in rows),
                  key=lambda t: (t["qualifier"], t["id"]))
