"""MeSH tagger examples: question-like text -> validated MeSH descriptor names.

Labels come from real annotations: the MeSH headings of PubMed records (their titles stand
in for questions) and the MESHES of PubMedQA items (real questions). Every label is
resolved against the bundled MeSH vocabulary (by UI first, then by name or older alias)
and written with its current preferred name; anything unresolvable is dropped and
counted, check tags (Humans, Male, Mice...) are left out because a question filter on
them is useless.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from biorag.knowledge.mesh import MeshVocabulary
from training.pairs import CHECK_TAGS, clean_title, topical_mesh
from training.records import QAItem, TrainRecord


@dataclass
class MeshExample:
    id: str
    source: str  # "title" (PubMed record) | "pubmedqa" (real question)
    text: str
    labels: list[str]

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class LabelStats:
    kept: int = 0
    unresolved: Counter = field(default_factory=Counter)
    check_tags: int = 0

    def as_dict(self) -> dict:
        return {
            "labels_kept": self.kept,
            "labels_unresolved": sum(self.unresolved.values()),
            "labels_check_tags_dropped": self.check_tags,
            "unresolved_examples": [n for n, _ in self.unresolved.most_common(5)],
        }


def _validated(names_or_refs: Iterable[tuple[str, str]], vocab: MeshVocabulary, stats: LabelStats) -> list[str]:
    out: list[str] = []
    for ui, name in names_or_refs:
        d = (vocab.by_ui.get(ui) if ui else None) or (vocab.get(name) if name else None)
        if d is None:
            stats.unresolved[name or ui] += 1
            continue
        if d.name.casefold() in CHECK_TAGS:
            stats.check_tags += 1
            continue
        if d.name not in out:
            out.append(d.name)
            stats.kept += 1
    return out


def record_example(rec: TrainRecord, vocab: MeshVocabulary, stats: LabelStats) -> MeshExample | None:
    text = clean_title(rec.title)
    labels = _validated(((m.ui, m.name) for m in topical_mesh(rec.mesh)), vocab, stats)
    if not text or not labels:
        return None
    return MeshExample(id=rec.pmid, source="title", text=text, labels=labels)


def pubmedqa_example(item: QAItem, vocab: MeshVocabulary, stats: LabelStats) -> MeshExample | None:
    labels = _validated((("", n) for n in item.mesh_names), vocab, stats)
    if not item.question or not labels:
        return None
    return MeshExample(id=item.pmid, source="pubmedqa", text=item.question, labels=labels)


def label_counts(examples: Iterable[MeshExample]) -> Counter:
    return Counter(label for ex in examples for label in ex.labels)


def top_labels(examples: Iterable[MeshExample], n: int, min_count: int = 2) -> list[str]:
    """The n most frequent labels (ties by name, so the order is deterministic)."""
    counts = label_counts(examples)
    ranked = sorted((c for c in counts.items() if c[1] >= min_count), key=lambda kv: (-kv[1], kv[0]))
    return [name for name, _ in ranked[:n]]


def write_examples(path: Path, examples: Iterable[MeshExample]) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for ex in examples:
            f.write(json.dumps(ex.to_json(), ensure_ascii=False) + "\n")
            n += 1
    return n


def read_examples(path: Path) -> list[MeshExample]:
    with path.open(encoding="utf-8") as f:
        return [MeshExample(**json.loads(line)) for line in f if line.strip()]
