"""The noisy-presentation benchmark's cases (benchmarks/noisy_presentations.py), on the real
HPO store: each keeps half its disease's features (rounded up) and adds two the disease is
not annotated with, and its genes are those HPO links to the disease."""

from __future__ import annotations

import math
import random

from benchmarks.noisy_presentations import presentations
from biorag.knowledge.phenotype_types import HPO_LINK


def test_a_presentation_is_half_the_disease_plus_two_unrelated_features(hpo_store):
    model = hpo_store.model()
    cases = presentations(model, 200, random.Random(5))
    assert len(cases) == 200 and len({d for d, _, _ in cases}) == 200
    for did, terms, genes in cases:
        di = model.dindex[did]
        own = {model.term_ids[t] for t, _ in model.annotated[di]}
        assert len(set(terms)) == len(terms) == math.ceil(len(own) / 2) + 2, (did, terms)
        assert len(set(terms) - own) == 2
        linked = {model.symbols[g] for (g, d), src in model.link_sources.items() if d == di and HPO_LINK in src}
        assert genes == linked and genes
