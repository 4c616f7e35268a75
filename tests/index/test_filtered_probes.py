"""`index.filtered_probe_rows`: an IVF index searched through a MeSH filter probes enough
lists to hold about that many matching rows (at least `search_nprobe`, at most nlist), and
the trace says how many. Real Milvus Lite, real records, an IVF_SQ8 index; the recall this
buys at scale is measured by `benchmarks/index_scale.py`, not here."""

from __future__ import annotations

import math

import pytest
from index_helpers import sample_rows, settings_for, write_jsonl

from biorag.contracts.models import SearchFilters
from biorag.ml.embedder import Embedder
from biorag.understanding.search_request import SearchRequest
from indexing.build import build_index
from retrievers.pubmed.retriever import PubMedRetriever

pytestmark = pytest.mark.milvus

NLIST = 8


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ivf")
    rows = sample_rows(200)
    settings = settings_for(tmp, index_type="IVF_SQ8", index_params={"nlist": NLIST}, search_nprobe=1,
                            exact_filter_rows=0)
    assert build_index(settings, [write_jsonl(tmp / "in.jsonl", rows)], progress=False, embedder=Embedder()).ok
    return tmp, rows


def _retriever(tmp, probe_rows: int) -> PubMedRetriever:
    return PubMedRetriever.from_settings(settings_for(tmp, index_type="IVF_SQ8", index_params={"nlist": NLIST},
                                                      search_nprobe=1, exact_filter_rows=0,
                                                      filtered_probe_rows=probe_rows))


def _common_and_rare(r: PubMedRetriever) -> tuple[str, str]:
    counts = sorted(((n, ui) for ui, n in (r.mesh_counts or {}).items() if n >= 2), reverse=True)
    return counts[0][1], counts[-1][1]


def test_a_filtered_search_probes_more_lists_the_fewer_rows_match(built):
    tmp, rows = built
    r = _retriever(tmp, probe_rows=40)
    r.search(SearchRequest.of("warm-up", 1))
    common, rare = _common_and_rare(r)
    seen = {}
    for ui in (common, rare):
        hits = r.search(SearchRequest.of(rows[3]["title"], 5, SearchFilters(mesh=[ui])))
        matching = hits.info["matching_rows"]
        want = min(NLIST, max(1, math.ceil(40 * NLIST / matching)))
        assert hits.info["path"] == "ann" and hits.info["nprobe"] == want, hits.info
        assert f"{want} lists probed" in hits.info["note"] and "IVF_SQ8 over about" in hits.info["note"]
        assert all(ui in h.metadata["mesh_ui"] for h in hits if not h.metadata.get("widened"))
        seen[ui] = want
    assert seen[rare] >= seen[common] and seen[rare] > 1
    assert r.search(SearchRequest.of(rows[3]["title"], 5)).info.get("nprobe") == 1  # unfiltered: the base nprobe


def test_zero_probe_rows_keeps_the_base_nprobe_for_filtered_searches(built):
    tmp, rows = built
    r = _retriever(tmp, probe_rows=0)
    r.search(SearchRequest.of("warm-up", 1))
    _, rare = _common_and_rare(r)
    assert r.search(SearchRequest.of(rows[3]["title"], 5, SearchFilters(mesh=[rare]))).info["nprobe"] == 1
