"""The second held-out set (heldout_new_phrasings.py), never used to tune understanding:
its score through the real Agent must stay at or above 0.90 (71/72 = 0.986 when first
measured; the miss was "I don't know", not a wrong value). A miss may be "insufficient",
never a wrong value."""

from __future__ import annotations

from tests.understanding.heldout_new_phrasings import HELDOUT_NEW
from tests.understanding.heldout_phrasings import matches


def test_new_heldout_phrasings_score(agent):
    misses, wrong = [], []
    for field, question, expected in HELDOUT_NEW:
        ans = agent.answer(question)
        if not matches(field, ans.answer, expected):
            misses.append((question, ans.answer[:80], expected))
            if ans.sufficient:
                wrong.append(misses[-1])
    score = 1 - len(misses) / len(HELDOUT_NEW)
    assert len(HELDOUT_NEW) >= 60
    assert score >= 0.90, (score, misses)
    assert wrong == [], wrong  # "I don't know" beats a wrong answer
