"""Gene-set naming benchmarks (GeneAgent's): read the sets, score proposed names.

Layouts read (found from the header):
- NeST (tsv): ``NEST ID``, ``name_new``, ``Genes`` (comma-separated, quoted);
- GO (csv): ``GO``, ``Genes`` (space-separated), ``Gene_Count``, ``Term_Description``;
- MSigDB (csv): ``"ID","Name","Count","Genes"`` (space-separated, quoted fields).

Scores follow GeneAgent's evaluate notebook: ROUGE-1/2/L F-measure from Google's
``rouge_score`` with the Porter stemmer, after the same clean-up of both names ('/', ',',
'"' and '-' become spaces; parenthesised text is dropped from the proposal). Semantic
similarity is the cosine of the two names' embeddings; GeneAgent used MedCPT, BioRAG uses
the embedder it ships (all-MiniLM-L6-v2), so that column is not comparable one to one.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from biorag.contracts.errors import InputError

#: published figures (GeneAgent, Wang et al., Nature Methods 2025), as given in the issue;
#: None where the sources at hand do not state the number
ANCHORS = {
    "msigdb": {"GeneAgent": {"rougeL": 0.310}, "GPT-4": {"rougeL": 0.239}},
    "nest": {"GeneAgent": {"rougeL": None}, "GPT-4": {"rougeL": None}},
    "go": {"GeneAgent": {"rougeL": None}, "GPT-4": {"rougeL": None}},
}
#: libraries a benchmark must not be scored with: its own sets are in them
HELD_OUT_LIBRARIES = {"go": ["go_bp"], "nest": [], "msigdb": []}


@dataclass
class NamedSet:
    id: str
    genes: list[str]
    gold: str


def read_benchmark(path: Path) -> tuple[str, list[NamedSet]]:
    """(layout, sets): layout is "nest", "go" or "msigdb"."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"benchmark file not found: {path}")
    with open(path, encoding="utf-8", newline="") as fh:
        first = fh.readline()
        fh.seek(0)
        delimiter = "\t" if "\t" in first else ","
        rows = list(csv.DictReader(fh, delimiter=delimiter))
    cols = set(rows[0]) if rows else set(next(csv.reader([first], delimiter=delimiter)))
    if {"NEST ID", "name_new", "Genes"} <= cols:
        return "nest", [NamedSet(r["NEST ID"], _genes(r["Genes"], ","), r["name_new"]) for r in rows]
    if {"GO", "Genes", "Term_Description"} <= cols:
        return "go", [NamedSet(r["GO"], _genes(r["Genes"], " "), r["Term_Description"]) for r in rows]
    if {"ID", "Name", "Genes"} <= cols:
        return "msigdb", [NamedSet(r["ID"], _genes(r["Genes"], " "), r["Name"]) for r in rows]
    raise InputError(
        f"{path}: unknown layout (columns {', '.join(sorted(cols))}); expected NeST (NEST ID, name_new, Genes), "
        'GO (GO, Genes, Gene_Count, Term_Description) or MSigDB ("ID","Name","Count","Genes")')


def _genes(value: str, sep: str) -> list[str]:
    return [g.strip().strip('"') for g in value.replace('"', "").split(sep) if g.strip()]


def clean_name(text: str, proposal: bool = False) -> str:
    if proposal:
        text = re.sub(r"\([^)]*\)", "", text)
    return text.replace("/", " ").replace(",", " ").replace('"', "").replace("-", " ").strip()


class NameScorer:
    """ROUGE-1/2/L F-measures and embedding cosine similarity of proposed vs gold names."""

    def __init__(self, embedder=None):
        from rouge_score import rouge_scorer

        self._rouge = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
        self._embedder = embedder

    def rouge(self, gold: str, proposed: str) -> dict[str, float]:
        s = self._rouge.score(clean_name(gold), clean_name(proposed, proposal=True))
        return {k: round(v.fmeasure, 4) for k, v in s.items()}

    def similarity(self, golds: list[str], proposed: list[str]) -> list[float]:
        if self._embedder is None:
            return []
        a = self._embedder.embed_documents([clean_name(g) for g in golds])
        b = self._embedder.embed_documents([clean_name(p, proposal=True) or "none" for p in proposed])
        return [round(float((x * y).sum()), 4) for x, y in zip(a, b, strict=True)]
