"""Extractive free-text answers: the evidence sentences closest in meaning to the question,
each cited with its record id ([pubmed:PMID]), instead of generated prose.

Why: a 135M model cannot summarise without inventing (shared/DESIGN.md); a sentence copied
from an abstract can only say what the abstract says. The same ranking tells whether the
evidence is on topic at all: `SentenceRanker.rank` scores every sentence of the evidence
against the question with the embedder (cosine of L2-normalised vectors), and the agent
treats evidence whose best sentence falls below `generation.min_similarity` as
insufficient (see `biorag/settings.py` for how that threshold was measured).

Sentences are verbatim substrings of `Evidence.text` (only a leading section label such as
"RESULTS:" is left out), so a reader can find each one in the cited record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from biorag.contracts.models import Evidence

if TYPE_CHECKING:
    import numpy as np

    from biorag.ml.embedder import Embedder

#: sentences shorter than this (in words) are labels or fragments, not statements
MIN_WORDS = 5
#: a sentence longer than this (characters) is cut by the embedder anyway; skip run-ons
MAX_CHARS = 1200

_BOUNDARY = re.compile(r"[.!?](?=\s+[A-Z0-9(\[\"'])")
_LABEL = re.compile(r"^\s*[A-Z][A-Za-z /&-]{1,40}:\s+")
# words that end with a full stop without ending a sentence
_ABBREVIATIONS = {
    "e.g", "i.e", "al", "fig", "figs", "vs", "dr", "no", "nos", "approx", "ca", "cf", "resp",
    "incl", "etc", "mr", "mrs", "ms", "st", "vol", "ref", "refs", "sp", "spp", "var", "min", "max",
}


@dataclass(frozen=True)
class ScoredSentence:
    text: str
    evidence: Evidence
    similarity: float

    def cited(self) -> str:
        return f"{self.text} [{self.evidence.cited}]"


def split_sentences(text: str) -> list[str]:
    """Sentences of an abstract, each a verbatim substring of `text` (section labels such
    as 'BACKGROUND:' at a line start are left out)."""
    out: list[str] = []
    for line in (text or "").splitlines():
        line = _LABEL.sub("", line.strip(), count=1)
        start = 0
        for m in _BOUNDARY.finditer(line):
            word = line[start : m.start()].rsplit(None, 1)[-1].lower() if line[start : m.start()].strip() else ""
            if word.lstrip("(") in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue  # "e.g.", "et al.", an initial
            out.append(line[start : m.end()].strip())
            start = m.end()
        out.append(line[start:].strip())
    return [s for s in out if len(s.split()) >= MIN_WORDS and len(s) <= MAX_CHARS]


class SentenceRanker:
    """Scores evidence sentences against a question. Sentence vectors are cached per
    evidence record, so re-ranking after each round embeds only the new records."""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder
        self._cache: dict[str, tuple[list[str], np.ndarray]] = {}

    def _sentences(self, ev: Evidence) -> tuple[list[str], np.ndarray]:
        if ev.key not in self._cache:
            sentences = split_sentences(ev.text)
            self._cache[ev.key] = (sentences, self.embedder.embed_documents(sentences))
        return self._cache[ev.key]

    def rank(self, question: str, evidence: list[Evidence]) -> list[ScoredSentence]:
        """Every sentence of the evidence, most similar to the question first."""
        q = self.embedder.embed_query(question)
        scored: list[ScoredSentence] = []
        for ev in evidence:
            sentences, vecs = self._sentences(ev)
            if not sentences:
                continue
            for sentence, sim in zip(sentences, (vecs @ q).tolist(), strict=True):
                scored.append(ScoredSentence(sentence, ev, round(float(sim), 4)))
        scored.sort(key=lambda s: -s.similarity)
        return scored


def best_sentences(ranked: list[ScoredSentence], min_similarity: float, limit: int) -> list[ScoredSentence]:
    """The top `limit` sentences at or above `min_similarity`, each said once."""
    chosen: list[ScoredSentence] = []
    seen: set[str] = set()
    for s in ranked:
        if s.similarity < min_similarity or len(chosen) >= limit:
            break
        key = " ".join(s.text.lower().split())
        if key not in seen:
            seen.add(key)
            chosen.append(s)
    return chosen


def extractive_text(chosen: list[ScoredSentence]) -> str:
    return " ".join(s.cited() for s in chosen)
