"""Answer extraction on tricky free-text answers."""

import pytest

from evaluation.extract import (
    extract_choice,
    extract_factoid_list,
    extract_short_answer,
    extract_yes_no,
    strip_citations,
)


def test_strip_citations_keeps_text():
    assert strip_citations("PSMB10 [gene:5699] is it [1, 2].") == "PSMB10 is it."
    assert strip_citations("see [pubmed:123, dbsnp:rs1]") == "see"
    assert strip_citations("chr15:91950805-91950932") == "chr15:91950805-91950932"
    assert strip_citations("[not a citation here]") == "[not a citation here]"


def test_short_answer_first_line_verbatim():
    assert extract_short_answer("\n  **PSMB10** [gene:5699]\nBecause...") == "PSMB10"
    assert extract_short_answer("Yes.") == "Yes."  # no punctuation stripping
    assert extract_short_answer("") == ""


@pytest.mark.parametrize("text,expected", [
    ("B", "B"), ("(C)", "C"), ("D.", "D"),
    ("The answer is C.", "C"),
    ("Answer: (B) Paris", "B"),
    ("C. Southern blotting", "C"),
    ("Option B is tempting, but the answer is D.", "D"),  # answer statement beats an option mention
    ("I would pick option A.", "A"),
    ("a gene is a unit of heredity", None),    # lower-case 'a' is not option A
    ("The answer is a deletion", None),
    ("The answer is Cytochrome c", None),      # a word starting with C is not a letter
    ("E", None),                               # out of range for 4 options
    ("", None),
])
def test_extract_choice(text, expected):
    assert extract_choice(text) == expected


def test_extract_choice_by_unique_option_text():
    opts = ["polymerase chain reaction.", "single strand conformational polymorphism analysis.",
            "Southern blotting.", "Western blotting."]
    assert extract_choice("They are detected by Southern blotting.", opts) == "C"
    assert extract_choice("Southern blotting. or Western blotting.", opts) is None  # ambiguous
    assert extract_choice("E. something", n_options=5) == "E"


@pytest.mark.parametrize("text,maybe,expected", [
    ("Yes, it does.", False, "yes"),
    ("No. There is no evidence.", False, "no"),
    ("NO", False, "no"),
    ("Maybe; the results are mixed.", True, "maybe"),
    ("Maybe; but overall yes.", False, "yes"),
    ("The study says nothing.", False, None),
    ("Nobody knows; yes", False, "yes"),       # 'Nobody' is not 'no'
    ("[pubmed:1] yes", False, "yes"),
    ("The answer is no.", False, "no"),
    ("No evidence supports it.", False, "no"),
    ("There is no evidence that it does; yes in mice.", False, "yes"),  # a determiner is no answer
    ("The answer is no because the trial failed.", False, "no"),
    # a declined answer states neither
    ("Insufficient evidence after 1 round(s): the evidence does not say: no cited sentence mentions "
     "measles and states what the question asks.", False, None),
])
def test_extract_yes_no(text, maybe, expected):
    assert extract_yes_no(text, allow_maybe=maybe) == expected


def test_extract_factoid_list():
    assert extract_factoid_list("BDCA2, CD303 and CLEC4C.") == ["BDCA2", "CD303", "CLEC4C"]
    assert extract_factoid_list("1. XIa\n2. factor XI\n3. XIa") == ["XIa", "factor XI"]
    assert extract_factoid_list("- \"TP53\"\n- MDM2 [gene:4193]") == ["TP53", "MDM2"]
    assert extract_factoid_list("a, b, c, d, e, f, g") == ["a", "b", "c", "d", "e"]
    assert extract_factoid_list("first line only\nsecond, line") == ["first line only"]
    assert extract_factoid_list("") == []
