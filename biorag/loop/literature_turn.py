"""When the records do not answer, the literature may: a gene asked about in a disease.

"What is the role of tau in Alzheimer disease?", "Is MAPT involved in Alzheimer disease?",
"What does APOE do in Huntington disease?" are first read as the gene's record checked
against the disease's genes (`biorag.loop.links`). When a curated source links the two,
that record answers. When none does, the record is no answer to "what role" or "is it
involved": the catalogues' silence is not the literature's. The question then turns to the
literature (`turned`), asked as the claim or the context it is, and the records' line ("no
link between MAPT and Alzheimer disease in ... — absent from these catalogues only") is
kept as a lead for an answer the literature does not give either.
"""

from __future__ import annotations

from dataclasses import replace

from biorag.contracts.sources import accepting
from biorag.loop.links import LinkStatement, gene_disease_link
from biorag.loop.rules_planner import pending_checks
from biorag.loop.state import LoopState
from biorag.understanding.analysis import Analysis
from biorag.understanding.literature_asks import LiteratureAsk, claims_yes_no


def turned(state: LoopState) -> tuple[Analysis, LinkStatement] | None:
    """The question read as a literature question, and the records' line that made it
    turn; None while checks are pending, when the records link the gene to the disease,
    when the question asks no such check or has options, or when no literature source is
    enabled (the records' answer then stands as it is)."""
    a = state.analysis
    if a.intent is None or not a.intent.checks or a.options or not accepting(state.retrievers, ["free_text"]):
        return None
    if pending_checks(state):
        return None
    link = gene_disease_link(a, state.evidence, state.retrievers, state.tried)
    if link is None or link.linked:
        return None
    ask = LiteratureAsk(("yes_no",), ()) if claims_yes_no(a.core) else LiteratureAsk(("context",), ())
    return replace(a, intent=None, free_text=True, asks=a.asks or ask), link
