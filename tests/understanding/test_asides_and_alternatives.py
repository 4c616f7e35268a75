"""What a finding denies, and questions that ask which of two things holds, read on two real
PubMed records (tests/data/literature/asides_records.jsonl, see its PROVENANCE.md):

- 27989536 (cloacal exstrophy): "Pelvic osteotomy reduces failure rates *without* a
  significant rise in complications" and "24.0% versus 45.9% *without* osteotomy (p=0.018)"
  both say yes to whether osteotomy reduces failure; the "without" spares a side effect or
  names the comparison group. Asked about complications, the same "without" denies.
  Its conclusions decide over a model reading the results again.
- 17287515 (dementia with Lewy bodies), titled "Presynaptic alpha-synuclein aggregates, *not*
  Lewy bodies, cause neurodegeneration in dementia with Lewy bodies": yes to whether the
  aggregates cause it. Asked whether it is caused "by Lewy bodies or by presynaptic
  aggregates", neither "Yes" nor "No" answers.
"""

from __future__ import annotations

import pytest

from biorag.contracts.models import Evidence
from biorag.loop.literature_question import read_question
from biorag.loop.literature_reading import finding_polarity, read_literature
from biorag.understanding.analysis import analyse
from biorag.understanding.literature_asks import asks_alternatives
from tests.understanding.literature_records import evidence, ranked, records, wordings

ROWS = records("asides_records.jsonl")


def _evidence(pmid: str) -> Evidence:
    return evidence(ROWS[pmid])


@pytest.fixture(scope="module")
def read(agent):
    def _read(question: str, ev: Evidence):
        return read_literature(analyse(question, agent.retrievers, agent.lexicon), ranked(ev), lexicon=agent.lexicon)
    return _read


@pytest.fixture(scope="module")
def question(agent):
    return lambda text: read_question(analyse(text, agent.retrievers, agent.lexicon))


OSTEOTOMY = "Does pelvic osteotomy reduce bladder closure failure in cloacal exstrophy?"
SPARED = "Pelvic osteotomy reduces failure rates without a significant rise in complications, which are often minor."
GROUP = "For closures with pelvic osteotomy, failure rate was 24.0% versus 45.9% without osteotomy (p=0.018)."


@pytest.mark.parametrize("wording", wordings(OSTEOTOMY))
def test_a_spared_side_effect_or_a_comparison_group_denies_nothing(question, wording):
    q = question(wording)
    assert finding_polarity(SPARED, q) == "Yes"
    # "without osteotomy" names the other group; the finding states no effect in words
    # ("p=0.018" is not read as one: a bare "p =" beside another finding made a wrong "Yes")
    assert finding_polarity(GROUP, q) is None


def test_without_denies_what_the_claim_asks_about(question):
    """Asked whether osteotomy raises complications, the same sentence says no."""
    q = question("Does pelvic osteotomy increase complications of bladder closure in cloacal exstrophy?")
    assert finding_polarity(SPARED, q) == "No"


@pytest.mark.parametrize("wording", wordings(OSTEOTOMY))
def test_the_conclusions_decide_the_record(read, wording):
    """The results hold null findings on complication rates beside the failure rates; the
    conclusion that names the claim states it."""
    got = read(wording, _evidence("27989536"))
    assert got.first_line == "Yes." and got.sufficient, (wording, got.text)
    assert any(s.text == SPARED for s in got.support), got.text


@pytest.mark.parametrize("wording", wordings(
    "Is neurodegeneration in dementia with Lewy bodies caused by presynaptic alpha-synuclein aggregates?"))
def test_a_contrast_denies_only_the_alternative(read, wording):
    got = read(wording, _evidence("17287515"))
    assert got.first_line == "Yes." and got.sufficient, (wording, got.text)


ALTERNATIVE = "Is neurodegeneration in dementia with Lewy bodies caused by Lewy bodies or by presynaptic alpha-synuclein aggregates?"


@pytest.mark.parametrize("wording", wordings(ALTERNATIVE))
def test_which_of_two_is_not_answered_yes_or_no(read, question, wording):
    assert asks_alternatives(wording)
    assert question(wording).kind != "yes_no"
    got = read(wording, _evidence("17287515"))
    assert got.first_line not in ("Yes.", "No."), got.text


@pytest.mark.parametrize("claim", [
    # PubMedQA's titles join alternatives that are one claim about either of them
    "Does surgery or radiation therapy impact survival for patients with extrapulmonary small cell cancers?",
    "Is vitamin D insufficiency or deficiency related to the development of osteochondritis dissecans?",
    "Does blood pressure change depending on whether it is measured by a physician or a nurse?",
    "Do patients with or without diabetes heal alike?",
])
def test_one_claim_about_either_stays_a_yes_no_question(question, claim):
    assert not asks_alternatives(claim)
    assert question(claim).kind == "yes_no"
