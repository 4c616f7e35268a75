"""Hybrid PubMed search: the vector hits fused with BM25 hits from the lexical side index.

`PubMedRetriever` calls `fuse_hits` for a search without a MeSH filter when the collection
it serves has a lexical index (`biorag.ml.lexical_index`, written by the build beside each
physical collection; the alias switch moves both). Three ranked lists are fused by
reciprocal rank fusion (`biorag.ml.fusion.rrf`):

1. the vector search's top `depth`;
2. BM25 over the question's words and the initialisms abstracts write for its names
   ("amyloid-beta 42": Aβ42, Abeta42; `biorag.knowledge.initialisms`);
3. BM25 over the other names of the question's MeSH descriptors and genes
   (`biorag.ml.query_expansion`), when it names any.

A document only the lexical side found is read from Milvus by PMID (with its vector), so
every hit's `score` stays the cosine similarity to the query, as in a dense search: what
reads scores downstream (topicality, the trace) keeps its meaning; the order is the fused one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from biorag.ml import pubmed_schema as ps
from biorag.ml.fusion import rrf
from biorag.ml.lexical_index import LexicalIndex, query_terms
from biorag.ml.query_expansion import expand


@dataclass(frozen=True)
class FusionParams:
    k: float = 60.0
    lexical_weight: float = 1.0
    expansion_weight: float = 0.0
    depth: int = 50


def fuse_hits(client, collection: str, query: str, vec, dense: list[dict], lexical: LexicalIndex, k: int,
              params: FusionParams, gene_names: Callable[[str], Iterable[str]] | None = None,
              years: tuple[int | None, int | None] = (None, None)) -> tuple[list[dict], dict[str, Any]]:
    """(the fused top k as hit dicts like the dense ones, what the fusion did for the trace)."""
    lex = [p for p, _ in lexical.search(query_terms(query), params.depth)]
    ex = expand(query, gene_names=gene_names) if params.expansion_weight > 0 else None
    exp = [p for p, _ in lexical.search(ex.terms, params.depth)] if ex and ex.terms else []
    by_id = {str(h["id"]): h for h in dense}
    fused = rrf([list(by_id), lex, exp], k=params.k, depth=params.depth,
                weights=[1.0, params.lexical_weight, params.expansion_weight])
    # read what the lexical side alone found, in fused order, until k pass the year bounds
    out: list[dict] = []
    lo, hi = years
    pending = list(fused)
    while pending and len(out) < k:
        step, pending = pending[: 2 * k], pending[2 * k:]
        missing = [int(h.id) for h in step if h.id not in by_id]
        if missing:
            fields = list(dict.fromkeys([*ps.OUTPUT_FIELDS, ps.VECTOR_FIELD]))
            for e in client.get(collection, ids=missing, output_fields=fields):
                v = np.asarray(e.pop(ps.VECTOR_FIELD), dtype=np.float32)
                q = np.asarray(vec, dtype=np.float32)
                cos = float(v @ q / ((np.linalg.norm(v) * np.linalg.norm(q)) or 1.0))
                by_id[str(e["pmid"])] = {"id": int(e["pmid"]), "distance": cos, "entity": e}
        for h in step:
            hit = by_id.get(h.id)
            if hit is None:  # in the lexical file but no longer in the collection
                continue
            y = hit["entity"].get("year") or 0
            if (lo is not None and y < lo) or (hi is not None and y > hi):
                continue
            out.append(hit)
            if len(out) == k:
                break
    dense_ids = {str(d["id"]) for d in dense}
    info = {"fusion": "rrf", "rrf_k": params.k, "lexical_hits": len(lex), "dense_hits": len(dense),
            "lexical_only": sum(1 for h in out if str(h["id"]) not in dense_ids)}
    if ex and ex.terms:
        info["expansion"] = ex.terms
    return out, info


def open_lexical(root, collection: str) -> LexicalIndex | None:
    """The lexical index of a physical collection, or None (hybrid off, or an index built
    before the build wrote one: then the search is dense only, and says so in no hit)."""
    from pathlib import Path

    from biorag.ml.lexical_index import path_for

    if root is None:
        return None
    path = path_for(Path(root), collection)
    return LexicalIndex(path) if path.exists() else None


def hybrid_options(settings) -> dict[str, Any]:
    """`PubMedRetriever` keyword arguments from the settings: where the lexical indexes live
    (None when `index.hybrid` is off), the fusion constants, and gene-name expansion from the
    local gene store when one is built (opened at the first question that names a gene)."""
    ix = settings.index
    if not ix.hybrid:
        return {"lexical_root": None}
    from retrievers.stores.gene_store import gene_store_path

    path = gene_store_path(settings)
    names: dict[str, Callable[[str], list[str]]] = {}

    def gene_names(word: str) -> list[str]:
        if "f" not in names:
            if not path.exists():
                names["f"] = lambda w: []
            else:
                from retrievers.stores.gene_aliases import gene_names_from
                from retrievers.stores.gene_store import GeneStore

                names["f"] = gene_names_from(GeneStore(path))
        return names["f"](word)

    return {"lexical_root": str(settings.data_dir), "gene_names": gene_names,
            "fusion": FusionParams(k=ix.rrf_k, lexical_weight=ix.lexical_weight,
                                   expansion_weight=ix.expansion_weight, depth=ix.fusion_depth)}
