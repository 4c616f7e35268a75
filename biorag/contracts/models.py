"""Typed records shared by every layer: evidence, trace events, citations, answers."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, field_serializer

from biorag.contracts.redaction import scrub_obj

Step = Literal["select", "rewrite", "retrieve", "evaluate", "generate"]


class StepOutcome(StrEnum):
    """How a step ended; the trace records it (`TraceEvent.outcome`)."""

    #: the step did its work: the loop goes on to the next step
    DONE = "done"
    #: select: the planner has nothing left to try; answer now
    STOP = "stop"
    #: the step failed (its event says why); the next round tries again
    FAILED = "failed"
    #: evaluate: the evidence answers the question (or self-evaluation is off); answer now
    ENOUGH = "enough"
    #: evaluate: not yet; another round
    NOT_ENOUGH = "not_enough"
    #: generate: a sufficient answer
    ANSWERED = "answered"
    #: generate: an answer marked insufficient (with its best attempt, when there is one)
    INSUFFICIENT = "insufficient"


class SearchFilters(BaseModel):
    """Optional constraints a retriever may honour (PubMed uses all; NCBI tools ignore).
    Part of a search request (biorag.understanding.search_request.SearchRequest), which carries the
    query's typed entities beside them."""

    mesh: list[str] = Field(default_factory=list, description="MeSH descriptor names or UIs")
    #: how `mesh` is used: `filter` keeps only records carrying one of the descriptors (the
    #: BioRAG paper); `boost` searches without it and ranks records that carry them higher
    mesh_mode: Literal["filter", "boost"] = "filter"
    year_from: int | None = None
    year_to: int | None = None


class SearchHits(list):
    """A retriever's hits (a list of Evidence, best first) plus `info`: what the search
    did (e.g. the filter expression, exact or approximate path, widening, batch size), for
    the trace. A plain list where callers only want the hits."""

    def __init__(self, hits=(), info: dict[str, Any] | None = None):
        super().__init__(hits)
        self.info: dict[str, Any] = info or {}


class Evidence(BaseModel):
    """One retrieved record. `id` is stable per source: PMID, Gene ID, rsID, MIM, URL."""

    source: str
    id: str
    title: str = ""
    text: str = ""
    url: str | None = None
    score: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: the record's own catalogue and id ("medgen:C0343073", "orphanet:558", "gene:3064") when
    #: it is not the source that found it (the omim source's local answers come from ClinVar,
    #: MedGen, HPO/Orphanet and MeSH records; the hpo source's disease records are OMIM,
    #: Orphanet and DECIPHER diseases); None when `source:id` already says what it is
    cite_as: str | None = None
    #: the catalogues whose links gave the record's genes ("ClinVar", "NCBI mim2gene_medgen",
    #: "HPO annotations"), for records that link genes offline; empty otherwise
    linked_by: list[str] = Field(default_factory=list)
    #: the asked genes the record covers (a gene-set term's supporting genes); empty for
    #: every other kind of record
    covers: list[str] = Field(default_factory=list)
    #: the record's publication year, where its source gives one (PubMed); literature answers
    #: print it beside each cited sentence
    year: int | None = None

    @property
    def key(self) -> str:
        """The record within the source that found it (unique per run)."""
        return f"{self.source}:{self.id}"

    @property
    def cited(self) -> str:
        """How answers, citations and the trace name the record: `catalogue:id`."""
        return self.cite_as or self.key

    def render(self, max_chars: int = 1200) -> str:
        """Compact text shown to the LLM (never a raw JSON dump)."""
        body = self.text if len(self.text) <= max_chars else self.text[: max_chars - 1] + "…"
        head = f"[{self.cited}] {self.title}".strip()
        return f"{head}\n{body}" if body else head


class Citation(BaseModel):
    #: the catalogue that holds the cited record ("pubmed", "gene", "omim", "medgen",
    #: "orphanet", "mondo", "mesh", "hp", "decipher", …) and the record's id there
    source: str
    id: str
    title: str = ""
    url: str | None = None
    #: the BioRAG source (retriever) that found the record; differs from `source` when it
    #: answered with another catalogue's record (the omim source's local disease answers,
    #: the hpo source's disease records)
    found_by: str = ""
    #: the offline catalogues whose gene links the record carries (a local disease answer:
    #: "ClinVar", "NCBI mim2gene_medgen", "HPO annotations"); empty for every other record
    linked_by: list[str] = Field(default_factory=list)
    #: the asked genes this record covers (`Evidence.covers`: a gene-set term's supporting
    #: genes); empty for every other kind of record
    genes: list[str] = Field(default_factory=list)

    @classmethod
    def from_evidence(cls, ev: Evidence) -> Citation:
        source, _, rid = ev.cited.partition(":")
        return cls(source=source, id=rid, title=ev.title, url=ev.url, found_by=ev.source,
                   linked_by=list(ev.linked_by), genes=list(ev.covers))


class TraceEvent(BaseModel):
    """One step of the agent loop, as streamed by the API and stored by evaluation."""

    step: Step
    round: int
    ms: float = 0.0
    #: model time of the calls made in this step (biorag/llm/meter.py)
    llm_ms: float = 0.0
    retriever: str | None = None
    query: str | None = None
    mesh: list[str] = Field(default_factory=list)
    hits: list[str] = Field(default_factory=list, description="the records found, as catalogue:id (Evidence.cited)")
    decision: str | None = None
    ok: bool = True
    error: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    #: how the step ended, which alone decides what the loop does next (None: not ended yet)
    outcome: StepOutcome | None = None

    @field_serializer("error", "details")
    def _scrubbed(self, value: Any) -> Any:
        """Errors and details may carry an upstream's words (an echoed key): every dump of
        the trace (API, SSE, --json, stored runs) is scrubbed."""
        return scrub_obj(value)


class Timings(BaseModel):
    total_ms: float = 0.0
    #: model time of this run's own calls (the sum of its trace events' `llm_ms`), not of
    #: other runs sharing the model; a call's time includes waiting for a busy model
    llm_ms: float = 0.0


class Answer(BaseModel):
    """What `biorag ask --json` prints and `POST /v1/answer` returns."""

    question: str
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    rounds: int = 0
    sufficient: bool = False
    best_attempt: bool = Field(
        False, description="True when rounds ran out: the answer is the best attempt, not verified"
    )
    unsupported_claims: list[str] = Field(default_factory=list)
    #: listed features of the question that no HPO term matched: not used by the phenotype
    #: ranking, named in the answer (biorag.understanding.unmatched_features)
    unmatched_features: list[str] = Field(default_factory=list)
    config: dict[str, Any] = Field(default_factory=dict)
    trace: list[TraceEvent] = Field(default_factory=list)
    timings: Timings = Field(default_factory=Timings)
