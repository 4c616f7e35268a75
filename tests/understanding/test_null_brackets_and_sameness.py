"""Two readings of findings, from PubMedQA's labelled questions outside its test split:

- 11500608 (tests/data/training/pubmedqa_sample.json): symptom scores "21.5 and 17.6,
  respectively (not significant)". A bracket that holds only the verdict on a difference is
  what the finding says (a bracket that defines a group still denies nothing): the answer
  to whether the treatment causes rebound is No (gold "no"; it was read Yes).
- 16414216 (ori_pqal.json, not in the test split): "Are endometrial polyps from
  pre-menopausal women similar to post-menopausal women?" is a claim of sameness: its
  finding of "significant differences" denies it (gold "no"; it was read Yes), and a
  finding of no difference would confirm it.
"""

from __future__ import annotations

import pytest

from biorag.loop.findings import null_finding
from biorag.loop.literature_question import read_question
from biorag.loop.literature_reading import finding_polarity
from biorag.understanding.analysis import analyse
from tests.understanding.literature_records import wordings
from tests.understanding.pubmedqa_sample import ITEMS, evidence, reader

POLYPS = "Are endometrial polyps from pre-menopausal women similar to post-menopausal women?"


@pytest.mark.parametrize("text, null", [
    ("reflux score, 21.5 and 17.6, respectively (not significant); total score, 11.2 and 10.3", True),
    ("Serum levels rose after treatment (NS).", True),
    ("Serum levels rose after treatment (n.s.).", True),
    ("Serum levels rose after treatment (p < 0.01).", False),
    ("Patients (no prior surgery) improved markedly.", False),
])
def test_a_bracket_holding_only_the_verdict_is_the_finding(text, null):
    assert null_finding(text) is null


@pytest.mark.parametrize("question", wordings(ITEMS["11500608"]["QUESTION"]))
def test_scores_that_differ_not_significantly_deny_a_rebound(agent, question):
    got = reader(agent)(question, evidence("11500608"))
    assert got.first_line == "No.", (question, got.first_line, got.reason)


@pytest.mark.parametrize("question", wordings(POLYPS))
def test_a_difference_denies_a_claim_of_sameness(agent, question):
    q = read_question(analyse(question, agent.retrievers, agent.lexicon))
    assert q.sameness
    said = "Endometrial polyps from pre- and post-menopausal women had significant differences in their " \
           "expression of hormone receptors and Ki67."
    assert finding_polarity(said, q) == "No"
    assert finding_polarity("Expression of hormone receptors did not differ between the groups.", q) == "Yes"
    assert finding_polarity("Endometrial polyps were collected from 60 women.", q) is None


def test_a_difference_still_confirms_a_claim_of_one(agent):
    q = read_question(analyse("Do endometrial polyps of pre-menopausal women differ from those of post-menopausal "
                              "women?", agent.retrievers, agent.lexicon))
    said = "Endometrial polyps from pre- and post-menopausal women had significant differences in their " \
           "expression of hormone receptors and Ki67."
    assert not q.sameness and finding_polarity(said, q) == "Yes"
