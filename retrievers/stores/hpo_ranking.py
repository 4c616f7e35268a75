"""The phenotype model (biorag.knowledge.phenotype_scoring) loaded from the HPO store, once per store
file and process (HPO's gene-disease links and, from schema 3, those NCBI mim2gene_medgen
and ClinVar add, each with its catalogue), and the store-side checks of a patient's HPO ids
(obsolete ids mapped to their replacement, unknown ones reported)."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

from biorag.knowledge.phenotype_names import term_number
from biorag.knowledge.phenotype_naming import named_terms
from biorag.knowledge.phenotype_scoring import PhenotypeModel

_LOCK = threading.Lock()
_MODELS: dict[tuple[str, float], PhenotypeModel] = {}


def phenotype_model(con: sqlite3.Connection, path: Path) -> PhenotypeModel:
    """The model of the store at `path` (read through `con`), cached by path and mtime."""
    key = (str(Path(path).resolve()), Path(path).stat().st_mtime)
    with _LOCK:
        if key not in _MODELS:
            _MODELS[key] = _load(con)
        return _MODELS[key]


def _load(con: sqlite3.Connection) -> PhenotypeModel:
    terms = con.execute("SELECT term, id, name, ic_disease FROM terms").fetchall()
    ancestors = con.execute("SELECT term, ancestor FROM ancestors").fetchall()
    annotations = con.execute(
        "SELECT disease_id, term, frequency FROM disease_terms WHERE aspect='P' AND negated=0").fetchall()
    names = {d: n for d, n in con.execute("SELECT disease_id, name FROM diseases")}
    genes = con.execute("SELECT gene_id, symbol, disease_id FROM gene_diseases").fetchall()
    if con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='linked_gene_diseases'").fetchone():
        # schema 3: links other catalogues give (a store built before has HPO's only)
        genes += con.execute("SELECT gene_id, symbol, disease_id, source FROM linked_gene_diseases").fetchall()
    modifiers = con.execute(
        "SELECT x.disease_id, t.id FROM disease_terms x JOIN terms t ON t.term=x.term "
        "WHERE x.aspect IN ('C','I') AND x.negated=0").fetchall()
    # a broad synonym is no name of the term: a disease called so is not named after it
    named = named_terms(dict(con.execute("SELECT disease_id, name_norm FROM diseases").fetchall()),
                        con.execute("SELECT name_norm, term FROM term_names WHERE kind != 'broad'").fetchall())
    return PhenotypeModel(*(list(map(tuple, rows)) for rows in (terms, ancestors, annotations)), names,
                          *(list(map(tuple, rows)) for rows in (genes, modifiers)), named=named)


@dataclass
class ResolvedTerms:
    """A patient's HPO ids after the store's checks: live ids kept in order, obsolete or
    alternative ids mapped to the live term, the rest dropped with a warning."""

    ids: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def resolve_terms(con: sqlite3.Connection, ids: list[str], what: str = "feature") -> ResolvedTerms:
    out = ResolvedTerms()
    has_obsolete = bool(con.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='obsolete_terms'").fetchone())
    for hp in ids:
        n = term_number(hp)
        row = con.execute("SELECT id FROM terms WHERE term=?", (n,)).fetchone() if n is not None else None
        if row:
            out.ids.append(row[0])
            continue
        alt = con.execute("SELECT t.id FROM alt_ids a JOIN terms t ON t.term=a.term WHERE a.alt=?", (n,)).fetchone()
        if alt:
            out.ids.append(alt[0])
            out.warnings.append(f"{what} {hp} is an alternative id of {alt[0]}: read as {alt[0]}")
            continue
        obs = con.execute("SELECT replaced_by FROM obsolete_terms WHERE term=?", (n,)).fetchone() if has_obsolete else None
        if obs and obs[0]:
            new = con.execute("SELECT id FROM terms WHERE term=?", (obs[0],)).fetchone()
            if new:
                out.ids.append(new[0])
                out.warnings.append(f"{what} {hp} is obsolete, replaced by {new[0]}: read as {new[0]}")
                continue
        why = "obsolete with no replacement" if obs else "not in this HPO release"
        out.warnings.append(f"{what} {hp} skipped: {why}")
    out.ids = list(dict.fromkeys(out.ids))
    return out
