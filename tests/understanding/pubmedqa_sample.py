"""The 80 real PubMedQA items of tests/data/training/pubmedqa_sample.json (PQA-L, MIT) as
records to read yes/no claims against: shared by test_findings_reading and test_verdict.
A record's text is written as `biorag eval pubmedqa --with-context` indexes it
(`indexing.pubmedqa_items`); its sentences are handed over in order, as a retrieval would."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from biorag.contracts.models import Evidence
from biorag.loop.extractive import ScoredSentence, split_sentences
from biorag.loop.literature_reading import LiteratureReading, read_literature
from biorag.understanding.analysis import analyse
from indexing.pubmedqa_items import abstract_text

DATA = Path(__file__).resolve().parents[1] / "data" / "training"
ITEMS = json.loads((DATA / "pubmedqa_sample.json").read_text())


def evidence(pmid: str, labelled: bool = True) -> Evidence:
    """The item's abstract as a record; without its section labels when not `labelled`."""
    item = ITEMS[pmid]
    text = abstract_text(item) if labelled else "\n".join(item["CONTEXTS"])
    return Evidence(source="pubmed", id=pmid, title="", text=text, year=int(item["YEAR"]) if item.get("YEAR") else None)


def ranked(ev: Evidence) -> list[ScoredSentence]:
    """Every sentence of the abstract in its order, as a retrieval would hand them over."""
    return [ScoredSentence(s, ev, round(0.6 - 0.01 * i, 4)) for i, s in enumerate(split_sentences(ev.text))]


def reader(agent) -> Callable[[str, Evidence], LiteratureReading]:
    """Read a question against one record with the agent's retrievers and lexicon."""
    def read(question: str, ev: Evidence) -> LiteratureReading:
        return read_literature(analyse(question, agent.retrievers, agent.lexicon), ranked(ev), lexicon=agent.lexicon)
    return read
