"""Which HPO terms a disease's name names: "Aniridia 2" names Aniridia (HP:0000526),
"Aniridia-cerebellar ataxia-intellectual disability syndrome" names Aniridia, Cerebellar
ataxia and Intellectual disability.

A disease named after a feature shows it by definition, whatever else it is annotated with:
the phenotype ranking (`biorag.knowledge.phenotype_scoring`, ``named_size``) does not charge such a
disease for its many annotations when its name names every feature the patient has (in
practice: a single feature). Without it, a single feature ties every disease that carries
it, and their size alone ranks them: the small ones win (HPO 2025-11-24 gives no annotation
frequencies, so "Aniridia", obligate in PAX6's Aniridia 1, reads as any other annotation of
a 24-term disease).

Only every feature: waived for a disease that names one of several features (by the share
it names), it moved 8-feature development ranks both ways (top-1 -0.001 on HPO 2025-11-24,
+0.001 on 2025-01-16, shipped constants), and there the features themselves separate the
diseases; for every feature, 8-feature ranks are unchanged (benchmarks/results/2026-11-26/
prioritise/README.md, "named").

Names are compared as the HPO store keeps them normalised (`biorag.knowledge.phenotype_names`:
lower case, words only, singular): a term is named when its label or a synonym is a run of
whole words of the disease's name.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

#: the longest term name (in words) looked for in a disease name
MAX_WORDS = 8


def named_terms(disease_names: dict[str, str], term_names: Iterable[tuple[str, int]]) -> dict[str, set[int]]:
    """Disease id -> the terms its name names. `disease_names`: id -> normalised name;
    `term_names`: (normalised label or synonym, term number)."""
    by_name: dict[str, set[int]] = {}
    for name, term in term_names:
        if name and len(name.split()) <= MAX_WORDS:
            by_name.setdefault(name, set()).add(term)
    out: dict[str, set[int]] = {}
    for did, name in disease_names.items():
        ws = name.split()
        found = {t for n in range(1, min(MAX_WORDS, len(ws)) + 1) for i in range(len(ws) - n + 1)
                 for t in by_name.get(" ".join(ws[i:i + n]), ())}
        if found:
            out[did] = found
    return out


def named_postings(named: dict[str, set[int]], term_index: dict[int, int],
                   disease_index: dict[str, int]) -> dict[int, np.ndarray]:
    """`named_terms` turned around for the model's arrays: term index -> the indices of the
    diseases named after it (`term_index`: term number -> index; `disease_index`: id -> index)."""
    out: dict[int, list[int]] = {}
    for did, terms in named.items():
        if did in disease_index:
            for t in terms:
                if t in term_index:
                    out.setdefault(term_index[t], []).append(disease_index[did])
    return {t: np.array(sorted(ds), dtype=np.int64) for t, ds in out.items()}
