"""The genes of a named pathway, process or gene group: every library term the name matches
(biorag.knowledge.pathway_names), one record each, the term that answers first, with all the
genes its library lists. A name that matches no term is no record: nothing is made up."""

from __future__ import annotations

from biorag.contracts.errors import NoRecord
from biorag.contracts.models import Evidence
from biorag.knowledge.gene_sets import term_url
from biorag.knowledge.pathway_names import match
from retrievers.geneset.record import TermMembersRecord

#: how the libraries are named when none of them holds the name
_LIBRARIES = "GO Biological Process, Reactome or HGNC gene groups"
#: genes written into a record's text: a process of thousands ("signaling") would swamp what a
#: model or a reader is shown; the record's metadata keeps them all
_TEXT_GENES = 200


def member_records(name: str, source: str, k: int) -> list[Evidence]:
    """The terms `name` names, best first (at most `k`), each with its genes; NoRecord when
    it names none."""
    terms = match(name)[:max(1, k)]
    if not terms:
        raise NoRecord(source, f"no term of {_LIBRARIES} is named '{name.strip()}'")
    out = []
    for rank, t in enumerate(terms):
        genes = t.genes()
        more = f" and {len(genes) - _TEXT_GENES} more" if len(genes) > _TEXT_GENES else ""
        out.append(Evidence(
            source=source, id=t.term, title=t.name, url=term_url(t.library, t.term),
            text=f"{t.name} ({t.term}, {t.label}): {len(genes)} genes: {', '.join(genes[:_TEXT_GENES])}{more}",
            score=float(rank),
            metadata=TermMembersRecord(library=t.library, term=t.term, name=t.name, asked=name.strip(),
                                       whole=t.whole, answers=rank == 0, genes=genes).as_metadata()))
    return out
