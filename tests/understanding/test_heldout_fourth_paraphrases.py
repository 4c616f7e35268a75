"""The fourth held-out set (heldout_fourth_phrasings.py), never used to tune understanding:
two genes in one question, possessive/British/colloquial disease names, where the genes for a
disease map, symbols with digits and hyphens, trailing context. A miss may be
"insufficient", never a wrong value; its score through the real Agent must not fall below
what it was when the set was last measured (see the module docstring and
benchmarks/understanding_cost.py)."""

from __future__ import annotations

from tests.understanding.heldout_fourth_phrasings import HELDOUT_FOURTH, TWO_GENES, judge, judge_two
from tests.understanding.heldout_phrasings import verdicts

#: the score this set must keep: 83/91 = 0.912 before any change (3 "insufficient", 5 wrong
#: values marked sufficient); 88/91 = 0.967 after the session's fixes (2 "insufficient", 1 wrong)
FLOOR = 0.95
#: wrong values marked sufficient when last measured (not read, so not fixed): never more
WRONG_AT_MOST = 1


def test_fourth_heldout_phrasings_score(agent):
    found = verdicts(agent, HELDOUT_FOURTH + TWO_GENES, judge)
    n = len(HELDOUT_FOURTH) + len(TWO_GENES)
    score = len(found["right"]) / n
    assert n >= 80
    assert score >= FLOOR, (score, found["miss"] + found["wrong"])
    assert len(found["wrong"]) <= WRONG_AT_MOST, found["wrong"]  # "I don't know" beats a wrong answer


def test_judges_can_fail():
    """The judges reject one gene's value for two genes, a symbol for a band, and a wrong value."""
    assert judge_two(("chr12", "chr1"), "chr12", True) == "wrong"
    assert judge_two(("chr12", "chr1"), "KRAS: chr12; NRAS: chr1", True) == "right"
    assert judge_two(("chr12", "chr1"), "insufficient evidence", False) == "miss"
    assert judge("chromosome", "x", ("chr12", "chr1"), "chr12, chr12", True) == "wrong"
    band_q = next(q for f, q, _ in HELDOUT_FOURTH if f == "map_location" and "Wilson" in q)
    assert judge("map_location", band_q, "13q14.3", "ATP7B", True) == "wrong"
    assert judge("map_location", band_q, "13q14.3", "ATP7B: 13q14.3", True) == "right"
    assert judge("chromosome", "x", "chr1", "chr12", True) == "wrong"
