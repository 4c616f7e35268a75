"""What the gene-set source answers, and how each answer is read from its records.

The word a question uses picks the library that answers it (figures in
benchmarks/results/2026-11-26/README.md, "Gene sets: when is an answer sufficient"):

- "process" (GO's "biological process") or a GO word: the GO BP term ranked first;
- "Reactome": its most significant pathway that explains the set;
- anything else ("pathway", "have in common", "links", a bare list): the consensus name of
  the set (a "pathway" question keeps the consensus: on the issue's cell-cycle set Reactome's
  first pathway is the narrow "Phosphorylation of Emi1", and the full grid that would
  decide it was not finished, see the README).

Whatever the field, a term that does not explain enough of the set (biorag.knowledge.set_rule) is no
answer: the reading is refused, and the term is given below the refusal as a lead only.

A pathway, process or gene group asked by name for its genes ("Which genes are in the Wnt
signaling pathway?") is another question: no set is given, the library term the name matches
is read (`member_genes`; which term answers when several match: biorag.knowledge.pathway_names).
"""

from __future__ import annotations

from collections.abc import Sequence

from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.knowledge.gene_sets import LIBRARY_LABELS
from biorag.knowledge.pathway_names import name_key
from retrievers.geneset.record import EnrichedTermRecord, TermMembersRecord, enriched_terms

ENRICHED_TERM = AnswerField(
    "enriched_term", "the term most enriched in a gene set, with its supporting genes",
    ("enriched", "enrichment", "enriched term", "pathway", "pathways", "share", "shared", "in common", "together", "common function",
     "have in common", "links", "link", "linking", "connects", "connect", "unites", "overrepresented",
     "over represented", "theme", "function together", "do together"),
    ("gene_list",), default_for=("gene_list",))
GO_TERM = AnswerField(
    "go_term", "the GO Biological Process term an enrichment ranks first (lowest p, the more specific on a tie)",
    ("gene ontology", "gene ontology term", "go term", "go terms", "go process", "go biological process",
     "go bp", "go bp term", "go annotation", "ontology term", "process", "processes", "biological process"),
    ("gene_list",))
PATHWAY = AnswerField(
    "pathway", "the Reactome pathway an enrichment ranks first (lowest p, the more specific on a tie)",
    ("reactome", "reactome pathway", "reactome pathways"), ("gene_list",))
PROCESS_NAME = AnswerField(
    "process_name", "a name for the process a gene set shares",
    ("process name", "name the process", "name of the process", "name this gene set", "name the gene set",
     "name for these genes", "what would you call"), ("gene_list",))
SUPPORTING_GENES = AnswerField(
    "supporting_genes", "the genes of the set that support its enriched term",
    ("supporting genes", "which of these genes", "genes support", "support the", "supported by"), ("gene_list",))
MEMBER_GENES = AnswerField(
    "member_genes", "the genes a named pathway, process or gene group holds, as its library lists them",
    # "genes" covers "genes in", "genes of", "genes involved in", "list the genes": written as
    # cues of their own, those phrases would hide the cue "genes" by which other fields are asked
    # ("genes of Marfan syndrome": a question reads the longest cue at a place)
    ("genes", "which genes", "what genes", "members of", "member genes", "component genes"),
    ("pathway",))
GENESET_FIELDS = (ENRICHED_TERM, GO_TERM, PATHWAY, PROCESS_NAME, SUPPORTING_GENES, MEMBER_GENES)
#: a term's genes listed in the answer's first line; a larger term's count is given for the rest
LISTED_MEMBERS = 40

#: field -> (which record answers it, what the reading says it is, what a refusal says)
_FIRST_RANKED = {
    "go_term": (lambda r: r.go_first, "the GO Biological Process term ranked first by p-value",
                "the first-ranked GO Biological Process term does not explain these genes",
                "no GO Biological Process term holds two or more of these genes"),
    "pathway": (lambda r: r.reactome_first, "the Reactome pathway ranked first by p-value",
                "the first-ranked Reactome pathway does not explain these genes",
                "no Reactome pathway holds two or more of these genes"),
}
_SHARED_REFUSAL = "no enriched term explains what these genes share"


def _stats(r: EnrichedTermRecord, with_p: bool) -> str:
    p = f"p {r.p:.2g}, " if with_p else ""
    return (f"{r.term}, {LIBRARY_LABELS[r.library]}, {len(r.supporting_genes)}/{r.asked or r.query_size} genes, "
            f"{p}adjusted p {r.p_adj:.2g}")


def _term_reading(e: Evidence, r: EnrichedTermRecord, name: str, explanation: str, refusal: str,
                  with_p: bool = False, refuse: bool = False) -> Reading:
    """The term as the answer, or, when it does not explain the set (or `refuse`), a refusal
    with the term as a lead below it."""
    stats = _stats(r, with_p)
    if r.why_not or refuse:
        why = f"; {r.why_not}" if r.why_not else ""
        return Reading([], [e], explanation, text=f"closest term, a lead only: {r.name} ({stats}){why}",
                       refused=refusal)
    return Reading([name], [e], explanation, text=f"{name} ({stats})\nsupporting genes: {', '.join(r.supporting_genes)}")


def _members_reading(evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
    """The genes of the term that answers for the name asked (all of them as values; the first
    `LISTED_MEMBERS` on the answer's line, then how many more), with the term's name, id,
    library and size; the other terms the name matched on "also:" lines. Only records of the
    name asked are read: a term is the answer only when it matched that name."""
    asked = {name_key(a) for a in about}
    records = [(e, r) for e, r in TermMembersRecord.all_of(evidence) if not asked or name_key(r.asked) in asked]
    e, r = next(((e, r) for e, r in records if r.answers), (None, None))
    if e is None or r is None:
        return None
    more = f" and {len(r.genes) - LISTED_MEMBERS} more" if len(r.genes) > LISTED_MEMBERS else ""
    lines = [f"{r.name} ({r.term}, {LIBRARY_LABELS[r.library]}): {len(r.genes)} genes: "
             f"{', '.join(r.genes[:LISTED_MEMBERS])}{more}"]
    lines += [f"also: {o.name} ({o.term}, {LIBRARY_LABELS[o.library]}): {len(o.genes)} genes"
              for _, o in records if o.term != r.term]
    how = "its whole name" if r.whole else "its name without the words that say it is a pathway"
    return Reading(list(r.genes), [e], f"the genes {LIBRARY_LABELS[r.library]} lists under the term the name "
                   f"matches ({how})", text="\n".join(lines))


def read_geneset_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
    """The answering record's term (first line of the answer) with its id, library, overlap
    and adjusted p, then the supporting genes; or only the genes. A question naming GO or a
    process reads the first-ranked GO BP term, one asking for a pathway the first-ranked
    Reactome pathway, any other the term that names the set. The genes of a pathway named in
    the question are read from the term its name matched (`_members_reading`)."""
    if field.name == MEMBER_GENES.name:
        return _members_reading(evidence, about)
    records = enriched_terms(evidence)
    if field.name in _FIRST_RANKED:
        pick, explanation, refusal, none_holds = _FIRST_RANKED[field.name]
        e, r = next(((e, r) for e, r in records if pick(r)), (None, None))
        if e is not None and r is not None:
            return _term_reading(e, r, r.name, explanation, refusal, with_p=True)
        # the library asked for holds none of the set: the term of another is a lead only
        e, r = next(((e, r) for e, r in records if r.names_the_set), (None, None))
        if e is None or r is None:
            return None
        return _term_reading(e, r, r.name, explanation, none_holds, refuse=True)
    e, r = next(((e, r) for e, r in records if r.names_the_set), (None, None))
    if e is None or r is None:
        return None
    if field.name == "supporting_genes":
        if r.why_not:
            return _term_reading(e, r, r.name, "enrichment against the term libraries", _SHARED_REFUSAL)
        return Reading(r.supporting_genes, [e], f"genes of the set in {r.name} ({_stats(r, False)})")
    return _term_reading(e, r, r.process_name or r.name, "enrichment against the term libraries", _SHARED_REFUSAL)
