"""What step 5 composed (`Composition`): the answer's text and what it rests on, typed, so the
agent never reads its decisions back from a trace event's `details`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from biorag.contracts.models import Evidence

ComposeMode = Literal["none", "structured", "extractive", "llm"]


@dataclass
class Composition:
    """The text step 5 composed from the evidence, before the loop's verdict is added."""

    text: str = ""
    #: the evidence the text quotes or reads (what the answer cites)
    used: list[Evidence] = field(default_factory=list)
    #: claims of generated text that no evidence supports (removed from `text`)
    unsupported: list[str] = field(default_factory=list)
    mode: ComposeMode = "none"
    #: names the question asks about that no record answers for: the answer is incomplete
    missing: list[str] = field(default_factory=list)
    #: why the records hold the asked field but do not answer; `text` is then a lead
    refused: str = ""

    @property
    def answers(self) -> bool:
        """Whether the text can stand as the answer: there is one, it is whole, and no
        record refused it."""
        return bool(self.text) and not self.missing and not self.refused
