"""Follow-up questions (`biorag.understanding.followup`) against the local gene store's dictionaries: real
symbols from the bundled snapshot, read the way the agent reads them. A reference is filled
in only when the earlier question names exactly one subject; every other case leaves the
question as asked, with the reason."""

from __future__ import annotations

import random
import sqlite3

import pytest

from biorag.understanding.followup import resolve


@pytest.fixture(scope="module")
def symbols(store_path) -> list[str]:
    """12 protein-coding symbols of the snapshot, drawn with a fixed seed, that the store
    links as themselves (a symbol that is also an English word would say nothing here)."""
    con = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    rows = [r[0] for r in con.execute(
        "SELECT symbol FROM genes WHERE gene_type='protein-coding' AND symbol GLOB '[A-Z]*[0-9]*' ORDER BY gene_id")]
    con.close()
    return random.Random(28).sample(rows, 12)


FIRST = ["What is the official full name of {g}?", "which chromosome is {g} on", "Tell me the aliases of {g}, please."]
FOLLOW = [
    ("and where is it located?", "and where is {g} located?"),
    ("What is its Ensembl ID?", "What is {g}'s Ensembl ID?"),
    ("Could you tell me what this gene does, please?", "Could you tell me what {g} does, please?"),
    ("IS IT PROTEIN CODING?", "IS {g} PROTEIN CODING?"),
    ("it's on which chromosome?", "{g} is on which chromosome?"),
]


def test_a_reference_takes_the_one_gene_the_earlier_question_named(lexicon, symbols):
    for i, g in enumerate(symbols):
        first = FIRST[i % len(FIRST)].format(g=g)
        for asked, expected in FOLLOW:
            f = resolve(asked, [first], lexicon)
            assert f.resolved and f.subject == g, (first, asked, f)
            assert f.question == expected.format(g=g) and f.asked == asked


def test_the_subject_comes_from_the_latest_question_that_names_one(lexicon, symbols):
    a, b = symbols[:2]
    f = resolve("where is it located?", [f"What is {a}?", f"And {b}?", "thanks!"], lexicon)
    assert f.subject == b
    # the user's questions only: an answer naming other records changes nothing
    f = resolve("where is it located?", [f"What is {a}?"], lexicon)
    assert f.subject == a


def test_never_a_guess_when_the_earlier_question_names_no_single_subject(lexicon, symbols):
    a, b = symbols[2:4]
    cases = [
        ("where is it located?", [f"How do {a} and {b} interact?"], "2 possible subjects"),
        ("where is it located?", ["hello", "thanks"], "no earlier question names a subject"),
        ("where is it located?", [], "no earlier question"),
        ("Which genes cause this disease?", [f"What does {a} do?"], "no subject of that kind"),
        (f"Is {b} near it?", [f"What does {a} do?"], "names its own subject"),
        ("Is this gene linked to this disease?", [f"What does {a} do?"], "different things"),
        ("What is a good textbook?", [f"What does {a} do?"], "no reference"),
    ]
    for asked, earlier, why in cases:
        f = resolve(asked, earlier, lexicon)
        assert not f.resolved and f.question == asked and why in f.reason, (asked, earlier, f)


def test_the_order_of_the_two_names_does_not_matter(lexicon, symbols):
    """Two genes in the earlier question stay ambiguous whichever comes first."""
    for a, b in zip(symbols[::2], symbols[1::2], strict=True):
        for first in (f"Compare {a} with {b}", f"Compare {b} with {a}"):
            assert not resolve("where is it located?", [first], lexicon).resolved
