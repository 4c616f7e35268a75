"""The rules planner: the recognised answer field's hops decide (biorag.understanding.analysis),
then any source that accepts a recognised entity, then the free-text sources in settings
order. Deterministic, and the natural ablation baseline."""

from __future__ import annotations

from biorag.contracts.sources import accepting
from biorag.loop.links import gene_check_queries, gene_disease_link
from biorag.loop.plans import PlanExhausted, Planner, Rewrite, Selection, Verdict
from biorag.loop.state import LoopState
from biorag.loop.sufficiency import unsure_names
from biorag.understanding.analysis import Entity
from biorag.understanding.record_questions import asks_record_of_identifier
from biorag.understanding.unknown_names import refusal, still_unknown

#: at most this many values of one hop are followed up (e.g. the genes of a disease)
MAX_FOLLOW_UPS = 5


def admissible(state: LoopState) -> list[str]:
    """Enabled sources that accept an entity kind the question names, or free text."""
    return accepting(state.retrievers, state.analysis.kinds(confident_only=False) | {"free_text"})


def ambiguity(state: LoopState) -> str | None:
    """Why the question cannot be answered as asked: a name that fits several records, or
    the name the asked field needs is one the dictionary reads several ways (asked back at
    once, instead of searching the literature for it)."""
    a = state.analysis
    # an eponym the dictionary reads as several diseases is asked back with or without an
    # asked field; any other unsure name only where the field needs one of its kind
    unsure = unsure_names(a, a.intent.hops[0].takes if a.intent else None, eponyms_only=a.intent is None)
    if unsure:
        return unsure
    if a.intent is None:
        return None
    found = state.reading
    return found.text if found is not None and found.ambiguous else None


def pending_checks(state: LoopState) -> list[tuple[str, str]]:
    """(source, query) of the intent's checks (biorag.understanding.analysis.context_checks) not
    asked yet, enabled sources only: the genes of the disease a gene is asked about in;
    once those are asked and do not link the two, the gene's own diseases (asked by its
    symbol), so the answer can say what the gene is linked to (biorag.loop.links)."""
    a = state.analysis
    if a.intent is None:
        return []
    pending = [(h.source, q) for h in a.intent.checks if h.takes != ("gene",) and h.source in state.retrievers
               for q in a.texts(h.takes)[:1] if not state.tried(h.source, q)]
    if pending or not (gene_checks := gene_check_queries(a)):
        return pending
    link = gene_disease_link(a, state.evidence, state.retrievers)
    if link is None or link.linked:  # nothing to say about the disease, or the records link them
        return []
    return [(h.source, q) for h, q in gene_checks.items() if h.source in state.retrievers and not state.tried(h.source, q)]


def unknown_name_step(state: LoopState) -> Selection | None:
    """A name no dictionary holds (`Analysis.unknown`) is asked once of each enabled source
    that takes genes (a layered gene source asks its store, then E-utilities); if none knows
    it, the loop ends at once (`PlanExhausted` with the refusal) whatever the planner. None
    when there is no such name, or a source knew it (the planner goes on as usual)."""
    unknown = state.analysis.unknown
    if not unknown:
        return None
    for name in unknown:
        for source in accepting(state.retrievers, ["gene"]):
            if not state.tried(source, name):
                return Selection(source, f"'{name}' is in no dictionary: ask {source} once", "rules", query=name)
    if left := still_unknown(unknown, state.evidence, state.retrievers):
        raise PlanExhausted(refusal(left))
    return None


class RulesPlanner(Planner):
    name = "rules"

    def route(self, state: LoopState) -> tuple[str, str, str] | None:
        """(retriever, query, reason) when the rules know what to do, else None."""
        a = state.analysis
        enabled = state.retrievers
        if a.free_text:
            return None  # a relation between the named genes: the literature, not their records
        if a.intent:
            for i, hop in enumerate(a.intent.hops):
                if hop.source not in enabled:
                    break  # the chain needs a disabled source: fall back to generic routing
                inputs = state.hop_inputs(i)[:MAX_FOLLOW_UPS]
                pending = [c for c in inputs if not state.tried(hop.source, c)]
                if pending:
                    return hop.source, pending[0], f"{a.intent.description}: ask {hop.source}"
                if state.hop_reading(i) is None:
                    break  # this hop gave nothing: the chain cannot go further
            else:
                if check := pending_checks(state)[:1]:
                    source, query = check[0]
                    return source, query, f"whether the records link the gene to {query}: ask {source}"
                if a.subject_options is not None:
                    return None  # each option's record was read for the field: other records hold no more
        if asks_record_of_identifier(a):
            return None  # only the sources of the asked field hold this record
        for ent in a.entities:
            if not ent.confident:
                continue
            for source in accepting(enabled, [ent.kind]):
                if not state.tried(source, ent.text):
                    return source, ent.text, f"recognised {ent.kind} '{_short(ent)}'"
        return None

    def fallback(self, state: LoopState) -> tuple[str, str, str] | None:
        if asks_record_of_identifier(state.analysis):
            return None  # the record's sources were asked: no paper holds it
        for source in accepting(state.retrievers, ["free_text"]):
            if not state.tried(source, state.analysis.core):
                return source, state.analysis.core, "no specific entity: search the literature/web"
        return None

    def select(self, state: LoopState) -> Selection:
        why = ambiguity(state)
        if why:
            raise PlanExhausted(why)
        if first := unknown_name_step(state):
            return first
        choice = self.route(state) or self.fallback(state)
        if choice is None:
            raise PlanExhausted("every applicable source has been tried")
        return Selection(choice[0], choice[2], "rules", query=choice[1])

    def rewrite(self, state: LoopState, selection: Selection, with_mesh: bool) -> Rewrite:
        query = selection.query if selection.by == "rules" and selection.query else state.analysis.core
        return Rewrite(query, [], "rules")

    def evaluate(self, state: LoopState) -> Verdict:
        """YES once a record holds the asked-for field (for every value a chain follows
        up); for open questions, once anything was found (the rules cannot judge relevance:
        that is the LLM's job in hybrid)."""
        a = state.analysis
        if a.intent:
            found = state.reading
            if found is not None and found.ambiguous:
                return Verdict(False, found.text, "rules")
            if found is not None:
                last = len(a.intent.hops) - 1
                inputs = state.hop_inputs(last)[:MAX_FOLLOW_UPS]
                pending = [c for c in inputs if not state.tried(a.intent.hops[last].source, c)]
                if not pending or a.intent.hops[last].source not in state.retrievers:
                    if checks := pending_checks(state):
                        return Verdict(False, f"still to check: {', '.join(f'{s} ({q})' for s, q in checks)}", "rules")
                    return Verdict(True, "", "rules")
                return Verdict(False, f"still to look up: {', '.join(pending)}", "rules")
            return Verdict(False, f"no record yet gives the {a.intent.description}", "rules")
        if state.evidence:
            return Verdict(True, "", "rules")
        return Verdict(False, "no evidence yet", "rules")


def _short(e: Entity) -> str:
    return e.text if len(e.text) <= 24 else e.text[:21] + "..."
