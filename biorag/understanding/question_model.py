"""The question model: what understanding finds in a question (`Entity`), the lookups that
answer it (`Hop`), the answer field it asks for (`Intent`), and all of it together
(`Analysis`), which the planner, grounding and the agent read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from biorag.contracts.sources import AnswerField, EntityKind
from biorag.understanding.options import Option, SubjectOptions
from biorag.understanding.typed_entities import Member

if TYPE_CHECKING:
    from biorag.understanding.literature_asks import LiteratureAsk


@dataclass(frozen=True)
class Entity:
    kind: EntityKind
    text: str
    confident: bool = True
    #: what a dictionary says the name means (official symbols, disease names); several
    #: entries mean the name is ambiguous
    canonical: tuple[str, ...] = ()
    #: "pattern", or the kind of dictionary name that matched ("symbol", "alias", ...)
    how: str = "pattern"
    #: the words of the question that name it, when they differ from `text` (a dictionary
    #: name found through a case or hyphen variant: "card-15" for CARD15)
    span: str = ""
    #: "subject": the gene (or, unsure, the phrase) a question asks about in the context of a
    #: disease it also names ("What does huntingtin do in Huntington disease?")
    role: str = ""
    #: the record's identifier when the name means one record (a gene's NCBI Gene ID)
    ident: str = ""
    #: a set-valued entity's members: a gene list's resolved genes, a symptom list's HPO
    #: terms with their polarity (biorag.understanding.typed_entities)
    members: tuple[Member, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.canonical) > 1


@dataclass(frozen=True)
class Hop:
    """One lookup: `source` answers `field`; its query is an entity of kind `takes` from
    the question, or (`from_previous`) a value the previous hop's field yielded."""

    source: str
    field: AnswerField
    takes: tuple[EntityKind, ...] = ()
    from_previous: bool = False


@dataclass(frozen=True)
class Intent:
    kind: str  # the answer field's name
    hops: tuple[Hop, ...]
    description: str
    #: records the answer is checked against, read after the hops: a gene asked about in the
    #: context of a disease is checked against the disease's genes (checks taking the
    #: disease) and, when they do not link it, against the gene's own diseases (checks
    #: taking the gene) (`context_checks`)
    checks: tuple[Hop, ...] = ()


@dataclass
class Analysis:
    question: str
    core: str  # the question without boilerplate such as "Let's decompose ..."
    entities: list[Entity] = field(default_factory=list)
    intent: Intent | None = None
    #: multiple-choice options (biorag.understanding.options): the answer is one of them or insufficient
    options: list[Option] = field(default_factory=list)
    #: set when the options are what the stem asks about (biorag.understanding.option_subjects)
    subject_options: SubjectOptions | None = None
    #: the question asks the literature, not a database: a relation between the genes it
    #: names ("Does TP53 bind MDM2?")
    free_text: bool = False
    #: gene-like names asked about that no dictionary holds, with close symbols
    #: (biorag.understanding.unknown_names): asked once, then refused
    unknown: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: what the literature is asked, when the question goes there because of what it asks
    #: (biorag.understanding.literature_asks: effect, mechanism, yes/no, ...); None otherwise
    asks: LiteratureAsk | None = None
    #: the asker requested a yes/no answer ("Answer yes, no or maybe."; `requests_yes_no`):
    #: the request is cut from `core`, its kind is kept here
    yes_no_requested: bool = False
    #: the value a yes/no question claims for the asked field, in the record's words ("Is
    #: Marfan syndrome autosomal dominant?": "autosomal dominant"; biorag.understanding.inheritance_claims):
    #: the answer leads with Yes when a value the records state holds it, else with No
    claimed: str = ""

    def first(self, kind: EntityKind) -> Entity | None:
        return next((e for e in self.entities if e.kind == kind), None)

    def kinds(self, confident_only: bool = True) -> set[str]:
        return {e.kind for e in self.entities if e.confident or not confident_only}

    def texts(self, kinds: Sequence[str]) -> list[str]:
        """Names of the entities of `kinds`, confident ones (all when none is confident)."""
        of_kind = [e for e in self.entities if e.kind in kinds]
        sure = [e.text for e in of_kind if e.confident]
        return list(dict.fromkeys(sure or [e.text for e in of_kind]))
