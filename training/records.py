"""Training inputs: PubMed records and PubMedQA items, normalised to small dataclasses.

PubMed inputs are the same files `biorag index build` reads (XML/XML.gz exports,
baseline/update files, MEDLINE text, JSONL records), read and cleaned by the index's own
reader and cleaner (`indexing.reader`, `indexing.clean`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError


@dataclass(frozen=True)
class MeshRef:
    ui: str
    name: str
    major: bool = False
    qualifiers: tuple[str, ...] = ()


@dataclass
class TrainRecord:
    pmid: str
    title: str
    abstract: str
    mesh: list[MeshRef] = field(default_factory=list)
    year: int | None = None
    drop_reason: str | None = None  # why the index would drop it (abstract then empty)


@dataclass
class QAItem:
    """A PubMedQA question with its gold context (the abstract without its conclusion)."""

    pmid: str
    question: str
    context: str
    mesh_names: list[str]


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _mesh_ref(m: Any) -> MeshRef:
    quals = _get(m, "qualifiers", []) or []
    qual_major = any(bool(_get(q, "major", False)) for q in quals if not isinstance(q, str))
    return MeshRef(
        ui=str(_get(m, "ui", "") or ""),
        name=str(_get(m, "name", "") or ""),
        major=bool(_get(m, "major", False)) or qual_major,
        qualifiers=tuple(q if isinstance(q, str) else str(_get(q, "name", "")) for q in quals),
    )


def normalise(raw: Any) -> TrainRecord:
    """Any record-like object (dict from JSONL, the index reader's record) -> TrainRecord."""
    year = _get(raw, "year")
    try:
        year = int(year) if year not in (None, "") else None
    except (TypeError, ValueError):
        year = None
    return TrainRecord(
        pmid=str(_get(raw, "pmid", "")).strip(),
        title=" ".join(str(_get(raw, "title", "") or "").split()),
        abstract=str(_get(raw, "abstract", "") or "").strip(),
        mesh=[_mesh_ref(m) for m in (_get(raw, "mesh", []) or [])],
        year=year,
    )


def read_records(paths: Iterable[str | Path], min_abstract_words: int = 40) -> Iterator[TrainRecord]:
    """Records from the files/folders `biorag index build` accepts, through the index's
    own reader and cleaner, so training sees the text the index stores.

    A record the index would drop (retracted, no/short/non-English/gibberish abstract) is
    still yielded, with `drop_reason` set and its abstract emptied: its title and MeSH
    headings remain good tagger examples. The first version of a PMID wins; deletions in
    update files are ignored (they matter to a live index, not to training data).
    """
    from indexing.clean import Cleaner, clean_text
    from indexing.reader import expand_inputs, read_file
    from indexing.records import DeleteCitations

    cleaner = Cleaner(min_words=min_abstract_words)
    seen: set[str] = set()
    for path in expand_inputs(paths):
        for item in read_file(path):
            if isinstance(item, DeleteCitations) or str(item.pmid) in seen:
                continue
            seen.add(str(item.pmid))
            cleaned = replace(item, title=clean_text(item.title), abstract=clean_text(item.abstract))
            rec = normalise(cleaned)
            reason = cleaner.reason_to_drop(cleaned)
            if reason:
                rec.abstract, rec.drop_reason = "", reason
            yield rec


def read_pubmedqa(path: str | Path) -> list[QAItem]:
    """PubMedQA `ori_pqal.json`-style file: {pmid: {QUESTION, CONTEXTS, MESHES, ...}}."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"PubMedQA file {p} does not exist (expected ori_pqal.json or test_set.json)")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"PubMedQA file {p} is not valid JSON: {e}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) and "QUESTION" in v for v in data.values()):
        raise InputError(f"PubMedQA file {p} must map PMIDs to objects with QUESTION, CONTEXTS, MESHES")
    return [
        QAItem(
            pmid=str(pmid),
            question=" ".join(v["QUESTION"].split()),
            context=" ".join(v.get("CONTEXTS") or []),
            mesh_names=list(v.get("MESHES") or []),
        )
        for pmid, v in data.items()
    ]
