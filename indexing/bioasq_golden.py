"""BioASQ task B golden files (`*_golden.json`): their questions and gold documents.

The files carry snippets, not abstracts: a gold document's text is its PMID's snippets
joined (each distinct snippet once, in file order), with no title and no MeSH. Questions
without a snippet are skipped. Readers of these files (`biorag eval retrieval`, the hybrid
benchmark, `biorag train prepare --bioasq`) share this one reading and one split rule, so
a document is the same text wherever it is embedded and 12B stays unseen by training.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from biorag.contracts.errors import InputError

#: the batch kept for measurement: never tuned on, never trained on
TEST_BATCH = "12B"


@dataclass(frozen=True)
class GoldenQuestion:
    qid: str
    body: str
    gold: tuple[str, ...]  # PMIDs with a snippet, sorted


def _open(path: Path):
    return gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)


def read_golden(paths: list[Path]) -> tuple[list[GoldenQuestion], list[dict]]:
    """Questions and gold documents (dicts as PubMed JSONL records) of the files or folders."""
    qs: list[GoldenQuestion] = []
    docs_by_pmid: dict[str, dict] = {}
    for p in paths:
        files = sorted(p.rglob("*.json")) if p.is_dir() else [p]
        for f in files:
            for q in json.loads(_open(f).read()).get("questions", []):
                snippets: dict[str, list[str]] = {}
                for s in q.get("snippets") or []:
                    pmid = str(s.get("document", "")).rstrip("/").rsplit("/", 1)[-1]
                    if pmid.isdigit():
                        snippets.setdefault(pmid, []).append(s.get("text", ""))
                if not snippets:
                    continue
                for pmid, texts in snippets.items():
                    d = docs_by_pmid.setdefault(pmid, {"pmid": pmid, "title": "", "abstract": "", "mesh": [],
                                                       "languages": ["eng"], "_parts": []})
                    d["_parts"].extend(t for t in texts if t not in d["_parts"])
                qs.append(GoldenQuestion(q["id"], q["body"], tuple(sorted(snippets))))
    docs = []
    for d in docs_by_pmid.values():
        d["abstract"] = " ".join(d.pop("_parts"))
        docs.append(d)
    return qs, docs


def golden_files(folder: Path) -> list[Path]:
    files = sorted(Path(folder).rglob("*_golden.json"))
    if not files:
        raise InputError(f"no BioASQ *_golden.json files under {folder}: give the folder of task B golden files "
                         "(e.g. ../shared/data/bioasq_taskb_golden)")
    return files


def split_files(folder: Path, train_batches: tuple[str, ...] = ()) -> tuple[list[Path], list[Path]]:
    """(train files, test files): the test batch's files, and the others (only `train_batches`'
    files, e.g. ("10B", "11B"), when given)."""
    train, test = [], []
    for f in golden_files(folder):
        if f.name.startswith(TEST_BATCH):
            test.append(f)
        elif not train_batches or f.name.startswith(train_batches):
            train.append(f)
    return train, test


def unseen(train: list[GoldenQuestion], test: list[GoldenQuestion]) -> list[GoldenQuestion]:
    """Training questions without the test's: a question asked again in the test batch (same
    id or same text) is test, never training data; a repeated id is kept once."""
    test_ids = {q.qid for q in test}
    test_text = {q.body.strip().casefold() for q in test}
    seen: set[str] = set()
    kept = []
    for q in train:
        if q.qid in test_ids or q.body.strip().casefold() in test_text or q.qid in seen:
            continue
        seen.add(q.qid)
        kept.append(q)
    return kept
