"""Real PubMed records for reading tests (tests/data/literature, see its PROVENANCE.md), handed
over as a retrieval would hand them, and the wordings a question is asked in."""

from __future__ import annotations

import json
from pathlib import Path

from biorag.contracts.models import Evidence
from biorag.loop.extractive import ScoredSentence, split_sentences

FOLDER = Path(__file__).resolve().parents[1] / "data" / "literature"


def records(name: str) -> dict[str, dict]:
    """The rows of one JSON-lines file of the folder, by PMID."""
    return {r["pmid"]: r for r in map(json.loads, (FOLDER / name).read_text().splitlines())}


def evidence(row: dict) -> Evidence:
    return Evidence(source="pubmed", id=row["pmid"], title=row["title"], text=row["abstract"], year=row["year"],
                    metadata={"pmid": row["pmid"], "year": row["year"]})


def ranked(ev: Evidence, top: float = 0.7) -> list[ScoredSentence]:
    """The title, then every sentence in its order, each a little less similar than the last."""
    return [ScoredSentence(s, ev, round(top - 0.01 * i, 4)) for i, s in enumerate([ev.title, *split_sentences(ev.text)])]


def wordings(question: str) -> list[str]:
    """The question as written, lower-cased, and wrapped politely three ways: one answer for all."""
    bare = question.rstrip("?")
    low = bare[0].lower() + bare[1:]
    return [question, question.lower(), f"Quick question: {low}?", f"{bare}? thanks", f"Could you tell me: {low}?"]
