"""What the loop knows so far (`LoopState`): the question's analysis, the evidence and the
attempts, and the reading of the evidence kept once per retrieval. Planners read it; the agent
writes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from biorag.contracts.errors import BioragError, InputError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import Lexicon, Reading
from biorag.loop.grounding import StructuredAnswer, hop_readings, inputs_of, structured_answer
from biorag.loop.links import LinkStatement
from biorag.understanding.analysis import Analysis

if TYPE_CHECKING:
    from biorag.retrieval.retriever import Retriever


@dataclass
class Attempt:
    round: int
    retriever: str
    query: str
    hits: int
    error: str | None = None


@dataclass
class LoopState:
    """What the loop knows so far; planners read it, the agent writes it."""

    question: str
    analysis: Analysis
    retrievers: dict[str, Retriever]
    evidence: list[Evidence] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the entity-linking dictionaries the question was read with (a model-written query is
    #: read with them too: `search_request`)
    lexicon: Lexicon | None = None
    #: what the records said before the question turned to the literature
    #: (`biorag.loop.literature_turn`): shown, cited, under an answer the literature does not give
    record_lead: LinkStatement | None = None
    #: the reading of the evidence (`grounding.structured_answer`) and each hop's reading
    #: (`grounding.hop_readings`), kept from `read_evidence` with the (evidence, attempts)
    #: counts they were read at; no evidence reads as nothing
    _reading: StructuredAnswer | None = None
    _hops: list[Reading | None] = field(default_factory=list)
    _read_at: tuple[int, int] | None = (0, 0)

    def tried(self, retriever: str, query: str) -> bool:
        q = query.strip().lower()
        return any(a.retriever == retriever and a.query.strip().lower() == q for a in self.attempts)

    def read_evidence(self) -> StructuredAnswer | None:
        """Read what the evidence answers (each hop's field, the asked field, the gene–disease
        link line) and keep it: the agent calls this once after each retrieval."""
        self._hops = hop_readings(self.analysis, self.evidence, self.retrievers)
        self._reading = structured_answer(self.analysis, self.evidence, self.retrievers, self.tried, self._hops)
        self._read_at = (len(self.evidence), len(self.attempts))
        return self._reading

    def _fresh(self) -> None:
        """Read again when the evidence or the attempts changed since the last reading (a
        state a test or a caller outside the loop filled by hand)."""
        if self._read_at != (len(self.evidence), len(self.attempts)):
            self.read_evidence()

    @property
    def reading(self) -> StructuredAnswer | None:
        """The kept reading, which the planner, the sufficiency check and the answer step share."""
        self._fresh()
        return self._reading

    def hop_reading(self, hop: int) -> Reading | None:
        """The kept reading of hop `hop` (`grounding.hop_readings`), which routing shares."""
        self._fresh()
        return self._hops[hop] if hop < len(self._hops) else None

    def hop_inputs(self, hop: int) -> list[str]:
        """The queries hop `hop` needs (`grounding.hop_inputs`), from the kept readings."""
        return inputs_of(self.analysis, hop, self.hop_reading(hop - 1) if hop > 0 else None)


def source_error(name: str, e: BioragError) -> str:
    """One line naming the source and its reason: 'blast rejected the query: ...'."""
    msg = str(e)
    if msg.startswith(f"{name}: "):
        msg = msg[len(name) + 2 :]
    if isinstance(e, InputError):
        return f"{name} rejected the query: {msg}"
    return f"{name}: {msg}"


def retrieval_note(name: str, query: str, hits: list[Evidence], error: str | None) -> str:
    """What a retrieval found, as the planner's notes say it."""
    if error:
        return f"{name}('{query[:60]}') failed: {error[:160]}"
    if not hits:
        return f"{name}('{query[:60]}') found nothing"
    tops = "; ".join(h.title[:60] for h in hits[:3])
    return f"{name}('{query[:60]}') found {len(hits)}: {tops}"
