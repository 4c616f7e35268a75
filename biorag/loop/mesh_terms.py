"""The MeSH terms of a rewrite step: the planner's proposals when it made some, else the
configured tagger's (built on first use), checked against the bundled MeSH vocabulary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from biorag.contracts.models import TraceEvent

if TYPE_CHECKING:
    from biorag.settings import Settings


class MeshTerms:
    def __init__(self, settings: Settings, tagger: Any | None = None):
        self.settings = settings
        self._tagger = tagger

    def pick(self, question: str, proposed: list[str], event: TraceEvent) -> list[str]:
        """Validated MeSH descriptor names: the planner's proposals when it made some,
        else the configured tagger's. Unknown names are dropped and reported."""
        from biorag.knowledge.mesh import vocabulary
        from biorag.ml.mesh_classifier import build_tagger

        vocab = vocabulary()
        terms: list[str] = []
        rejected: list[str] = []
        candidates = proposed
        if not candidates:
            if self._tagger is None:
                self._tagger = build_tagger(self.settings)
            candidates = self._tagger.tag(question, self.settings.mesh.max_terms)
            event.details["mesh_source"] = "tagger"
        else:
            event.details["mesh_source"] = "planner"
        for term in candidates:
            d = vocab.get(term) if isinstance(term, str) else None
            if d is None:
                rejected.append(term)
            elif d.name not in terms:
                terms.append(d.name)
        if rejected:
            event.details["mesh_rejected"] = rejected
        return terms[: self.settings.mesh.max_terms]
