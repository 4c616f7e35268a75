"""The HPO store's phrases one word short of a phenotype name (`biorag.knowledge.phenotype_gaps`),
indexed once per store file and process: the store and the question dictionary each hold a
connection to the same file, and a phrase is looked up per question."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from biorag.knowledge.phenotype_gaps import OneWordShort, holds, most_general

_LOCK = threading.Lock()
_INDEXES: dict[tuple[str, float], OneWordShort] = {}
#: a phenotype term's own names and synonyms: a broad synonym names more than the term, and
#: only terms under "Phenotypic abnormality" (HP:0000118) are features
_NAMES = ("SELECT name_norm, term FROM term_names WHERE kind != 'broad' "
          "AND term IN (SELECT term FROM ancestors WHERE ancestor = 118)")
#: those of them that hold given words in order (`holds` checks the order of whole words)
_HOLDING = ("SELECT name_norm, term FROM term_names n WHERE name_norm GLOB ? AND kind != 'broad' "
            "AND EXISTS (SELECT 1 FROM ancestors a WHERE a.term = n.term AND +a.ancestor = 118)")


def one_word_short(con: sqlite3.Connection, phrases: Sequence[str]) -> dict[str, int]:
    """Normalised phrase -> the term (number) whose name it is with one inner word left out
    (`most_general` of those it fits); a phrase that fits none, or says too little to tell
    which, is left out. The names that hold the phrase are scanned only for a phrase that
    fits one term."""
    out: dict[str, int] = {}
    if not phrases:
        return out
    index = _index(con)
    for p in phrases:
        if not (short_of := index.terms(p)) or most_general(short_of, (), _ancestors(con, short_of)) is None:
            continue
        words = p.split()
        holding = {t for name, t in con.execute(_HOLDING, (f"*{'*'.join(words)}*",)) if holds(name.split(), words)}
        if (term := most_general(short_of, holding, _ancestors(con, {*short_of, *holding}))) is not None:
            out[p] = term
    return out


def _ancestors(con: sqlite3.Connection, terms: Iterable[int]) -> dict[int, set[int]]:
    """term -> those of `terms` that are its ancestors (itself included)."""
    terms = sorted(set(terms))
    if len(terms) == 1:
        return {terms[0]: {terms[0]}}
    marks = ",".join("?" * len(terms))
    out: dict[int, set[int]] = {}
    for t, a in con.execute(f"SELECT term, ancestor FROM ancestors WHERE term IN ({marks}) AND ancestor IN ({marks})",
                            [*terms, *terms]):
        out.setdefault(t, set()).add(a)
    return out


def _index(con: sqlite3.Connection) -> OneWordShort:
    """The index of the store `con` reads, cached by its file and mtime."""
    file = next((r[2] for r in con.execute("PRAGMA database_list") if r[1] == "main"), "")
    key = (str(Path(file).resolve()), Path(file).stat().st_mtime) if file else (f"memory:{id(con)}", 0.0)
    with _LOCK:
        if key not in _INDEXES:
            _INDEXES[key] = OneWordShort((r[0], r[1]) for r in con.execute(_NAMES))
        return _INDEXES[key]
