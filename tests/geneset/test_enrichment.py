"""Hypergeometric enrichment with BH correction, checked by hand and against scipy on real
libraries (the bundled GO BP and Reactome) and real benchmark sets."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from scipy.stats import false_discovery_control, hypergeom

from biorag.knowledge.enrichment import (
    Enriched,
    benjamini_hochberg,
    broader_cover,
    enrich,
    hypergeom_sf,
)
from biorag.knowledge.gene_sets import (
    MAX_TERM_SIZE,
    MIN_TERM_SIZE,
    REACTOME_GMT,
    ancestors,
    bundled_library,
    read_gmt,
    term_parents,
)

DATA = Path(__file__).parents[1] / "data" / "geneset"


def test_hypergeometric_tail_by_hand():
    # 10 genes, 4 in the term, 3 drawn, at least 2 hits: (C(4,2)C(6,1) + C(4,3)C(6,0)) / C(10,3) = 40/120
    assert hypergeom_sf(2, 10, 4, 3) == pytest.approx(1 / 3, rel=1e-12)
    assert hypergeom_sf(0, 10, 4, 3) == pytest.approx(1.0)
    assert hypergeom_sf(4, 10, 4, 3) == 0.0  # more hits than draws: impossible


@pytest.mark.parametrize("k,N,K,n", [(5, 18842, 30, 10), (2, 11886, 500, 6), (47, 18842, 450, 99),
                                     (1, 20000, 3, 2), (60, 18000, 400, 100)])
def test_hypergeometric_tail_matches_scipy(k, N, K, n):
    assert hypergeom_sf(k, N, K, n) == pytest.approx(hypergeom.sf(k - 1, N, K, n), rel=1e-9)


def test_benjamini_hochberg_by_hand_and_scipy():
    p = [0.01, 0.04, 0.03, 0.2]
    assert benjamini_hochberg(p) == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.2])
    assert benjamini_hochberg(p) == pytest.approx(list(false_discovery_control(p)))


def _nest(set_id: str) -> list[str]:
    with open(DATA / "nest_sample.tsv", newline="") as fh:
        row = next(r for r in csv.DictReader(fh, delimiter="\t") if r["NEST ID"] == set_id)
    return row["Genes"].replace('"', "").split(",")


def test_real_mismatch_repair_set_against_go_bp():
    """NeST:125 (extended mismatch repair complex) is enriched in GO 'mismatch repair'; its
    p-value equals scipy's on the library's own counts, and the correction is BH over all
    tested terms."""
    genes = set(_nest("NEST:125"))
    go = bundled_library("go_bp")
    result = enrich(genes, go)
    top = result[0]
    assert top.name == "mismatch repair" and top.term == "GO:0006298"
    members = go.members(top.term)
    n = len(genes & go.universe)
    assert top.overlap == sorted(genes & members) and top.k == len(genes & members) >= 7
    assert (top.K, top.n, top.N) == (len(members), n, len(go.universe))
    assert top.p == pytest.approx(hypergeom.sf(top.k - 1, top.N, top.K, top.n), rel=1e-9)
    tested = go.terms_of(genes & go.universe)
    raw = {t: hypergeom.sf(len(h) - 1, len(go.universe), go.size(t), n) for t, h in tested.items()}
    adjusted = dict(zip(raw, false_discovery_control(list(raw.values())), strict=True))
    for e in result[:20]:
        assert e.p_adj == pytest.approx(adjusted[e.term], rel=1e-6)
    assert [e.p_adj for e in result] == sorted(e.p_adj for e in result)
    assert all(e.k >= 2 for e in result)


def test_library_sizes_and_universe():
    go = bundled_library("go_bp")
    assert len(go.universe) == 18842  # every gene of the file, whatever its terms' sizes
    assert all(MIN_TERM_SIZE <= go.size(t) <= MAX_TERM_SIZE for t in go.term_ids)
    assert "GO:0008150" not in go.names  # the root holds every gene: too broad to name anything
    reactome = read_gmt(REACTOME_GMT, 1, 0, name="reactome")
    assert reactome.names["R-HSA-5358508"] == "Mismatch Repair"
    assert {"MLH1", "MSH2", "PMS2"} <= reactome.members("R-HSA-5358508")


def test_library_cache_round_trip(tmp_path):
    fresh = bundled_library("reactome", tmp_path)
    cached = bundled_library.__wrapped__("reactome", tmp_path)  # read back from the array file
    assert list(tmp_path.glob("*.npz"))
    assert cached.term_ids == fresh.term_ids and cached.universe == fresh.universe
    t = "R-HSA-5358508"
    assert cached.members(t) == fresh.members(t)
    genes = set(_nest("NEST:125"))
    assert [(e.term, e.k, e.p) for e in enrich(genes, cached)] == [(e.term, e.k, e.p) for e in enrich(genes, fresh)]


def test_genes_outside_the_universe_do_not_count():
    go = bundled_library("go_bp")
    genes = set(_nest("NEST:125")) | {"NOTAGENE1", "NOTAGENE2"}
    top = enrich(genes, go)[0]
    assert top.n == len(genes) - 2
    assert not math.isnan(top.fold) and top.fold > 1


def test_the_bundled_term_graphs_read_broader_terms():
    go = term_parents("go_bp")
    # meiotic mismatch repair is_a mismatch repair, which is_a DNA repair (go-basic.obo)
    assert "GO:0006298" in go["GO:0000710"]
    up = ancestors("GO:0000710", go)
    assert {"GO:0006298", "GO:0006281"} <= up and "GO:0000710" not in up
    # "regulates" edges are not broader names: regulation of DNA repair is not DNA repair
    assert "GO:0006281" not in go.get("GO:0006282", frozenset())
    reactome = term_parents("reactome")
    assert "R-HSA-5358508" in ancestors("R-HSA-5358565", reactome)  # MutSalpha MMR -> Mismatch Repair
    assert term_parents("hpo") == {}


def test_a_broader_term_covering_every_gene_names_the_mismatch_repair_core():
    """MLH1, MSH2, MSH6, PMS2: the most significant GO term is "meiotic mismatch repair"
    (3/4 genes, a 3-gene term); its parent "mismatch repair" holds all 4 as significantly."""
    go = bundled_library("go_bp")
    genes = {"MLH1", "MSH2", "MSH6", "PMS2"}
    result = enrich(genes, go)
    best = result[0]
    assert best.term == "GO:0000710" and best.k == 3
    broader = ancestors(best.term, term_parents("go_bp"))
    for strength in (0.5, 1.0):  # 1.0, the default: as significant after correction
        chosen = broader_cover(best, result, broader, alpha=0.05, min_strength=strength)
        assert (chosen.term, chosen.name, chosen.k) == ("GO:0006298", "mismatch repair", 4)
    # above 1 the most significant term always stands; a term outside the graph never wins
    assert broader_cover(best, result, broader, alpha=0.05, min_strength=1.01) is best
    assert broader_cover(best, result, set(), alpha=0.05, min_strength=0.0) is best


def test_a_broader_term_must_be_comparably_significant():
    def term(tid, k, K, p_adj):
        return Enriched("go_bp", tid, tid, [f"G{i}" for i in range(k)], k, K, 10, 20000, p_adj, p_adj)

    best = term("narrow", 4, 5, 1e-10)
    weak = term("broad", 6, 400, 1e-4)  # strength 4 < 0.5 x 10
    strong = term("mid", 5, 40, 1e-8)  # strength 8 >= 5
    assert broader_cover(best, [best, weak], {"broad"}, 0.05, 0.5) is best
    assert broader_cover(best, [best, weak, strong], {"broad", "mid"}, 0.05, 0.5) is strong
    assert broader_cover(best, [best, weak, strong], {"broad", "mid"}, 0.05, 0.3) is weak
    not_significant = term("broad", 8, 400, 0.2)
    assert broader_cover(best, [best, not_significant], {"broad"}, 0.05, 0.0) is best
