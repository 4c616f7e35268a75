"""A gene's pooled profile (ScoringParams.gene_profile): all the annotations of its diseases
scored as one, each feature credited by whichever of its diseases explains it best. A patient
whose features are split between two entries of one gene (an OMIM and an Orphanet disease,
two allelic disorders) is explained by the gene, by neither entry alone. Works on a
`biorag.knowledge.phenotype_scoring.PhenotypeModel`'s arrays; the model mixes the result in."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from biorag.knowledge.phenotype_types import ScoringParams

if TYPE_CHECKING:
    from biorag.knowledge.phenotype_scoring import PhenotypeModel


def pooled_scores(model: PhenotypeModel, params: ScoringParams, left_out: list[int],
                  values: dict[int, np.ndarray], context: np.ndarray) -> np.ndarray:
    """Per gene (the model's gene order): each observed term, the excluded terms and the
    onset/sex check credited by the disease of the gene that fits best (`left_out`: disease
    indices not counted), less annotation_size x log(distinct terms annotated to its
    diseases), waived as for a disease (named_size) when one of its diseases is named after
    every feature."""
    ids, flat, starts = model._gene_index()

    def per_gene_best(v: np.ndarray) -> np.ndarray:
        v = v.copy()
        v[left_out] = -np.inf
        return np.maximum.reduceat(v[flat], starts)

    total = sum((per_gene_best(v) for v in values.values()), np.zeros(len(ids)))
    total += per_gene_best(context)
    size = params.annotation_size * np.log(pooled_sizes(model, left_out))
    named = model._named_after(values, params)
    if len(named):
        is_named = np.zeros(len(model.disease_ids))
        is_named[named] = 1.0
        size = size * (1 - params.named_size * per_gene_best(is_named).clip(0, 1))
    return total - size


def pooled_sizes(model: PhenotypeModel, left_out: list[int]) -> np.ndarray:
    """Per gene: how many distinct terms its diseases are annotated with, the diseases left
    out not counted (kept on the model when none is)."""
    ids, _, _ = model._gene_index()

    def size(g: int, left: set[int]) -> int:
        return max(len({t for d in model.gene_links[g] if d not in left for t, _ in model.annotated[d]}), 1)

    if not hasattr(model, "_pool_size"):
        model._pool_size = np.array([size(g, set()) for g in ids], dtype=float)
    left = set(left_out)
    if not left:
        return model._pool_size
    sizes = model._pool_size.copy()  # only the genes of a left-out disease change
    for i, g in enumerate(ids):
        if left.intersection(model.gene_links[g]):
            sizes[i] = size(g, left)
    return sizes
