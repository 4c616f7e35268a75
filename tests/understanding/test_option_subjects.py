"""Options that are the subjects: "Which of these genes is on chromosome 12? A) TP53 B) KRAS ...".
The stem names no gene; each option does, and the stem asks a field of a gene. Questions are
generated from real records of the gene store (a gene and three distractors whose records
differ from it in the asked field); the same question in another option order, letter style,
case, polite wrapping or without "genes" must choose the same option, at least 0.9 of them
rightly, and a stem whose value two options share must choose none."""

from __future__ import annotations

import random
import re
import sqlite3

import pytest

STYLES = ["A) {} B) {} C) {} D) {}", "(a) {} (b) {} (c) {} (d) {}", "\nA. {}\nB. {}\nC. {}\nD. {}",
          "1. {} 2. {} 3. {} 4. {}",
          # unlabelled, as people type a choice: "Which of these ...: A, B, C or D?" and
          # "Which of A, B, C or D ...?" (a stem that names no "these" gets the first)
          "colon", "inline"]
_THESE = re.compile(r"\bwhich\s+(?:one\s+)?of\s+these(?:\s+genes?)?\b", re.I)
_PLAIN_SYMBOL = re.compile(r"^[A-Z][A-Z0-9]{2,7}$")


def _genes(store_path) -> list[tuple[str, str, str, str]]:
    """(symbol, chromosome, map location, gene type) of human HGNC genes whose symbol reads as
    one (capitals and digits: no symbol that is also a word), in Gene ID order."""
    con = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT symbol, chromosome, map_location, gene_type FROM genes WHERE tax_id = 9606 "
                           "AND hgnc_id IS NOT NULL AND map_location != '' AND chromosome NOT LIKE '%|%' "
                           "ORDER BY gene_id").fetchall()
    finally:
        con.close()
    return [r for r in rows if _PLAIN_SYMBOL.match(r[0]) and r[1] in {*map(str, range(1, 23)), "X", "Y"}]


def _drawn(genes, n: int, seed: int, differs, stem) -> list[tuple[str, list[str]]]:
    """n (stem, four option symbols, the gold first) where `differs(gold, other)` holds for
    each distractor."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        gold = rng.choice(genes)
        others = [g for g in rng.sample(genes, 200) if g[0] != gold[0] and differs(gold, g)]
        if len(others) >= 3:
            out.append((stem(gold), [gold[0], *(g[0] for g in others[:3])]))
    return out


def _kinds(genes):
    protein = [g for g in genes if g[3] == "protein-coding"]
    band = re.compile(r"^(?:\d+|X|Y)[pq]\d+(?:\.\d+)?$")
    banded = [g for g in protein if band.match(g[2])]
    non_coding = [g for g in genes if g[3] in ("ncRNA", "pseudo")]
    return {
        "chromosome": _drawn(protein, 10, 1, lambda a, b: a[1] != b[1],
                             lambda g: f"Which of these genes is on chromosome {g[1]}?"),
        "band": _drawn(banded, 10, 2, lambda a, b: not (b[2].startswith(a[2]) or a[2].startswith(b[2])),
                       lambda g: f"Which gene is located at {g[2]}?"),
        "coding": _coding(protein, non_coding),
    }


def _coding(protein, non_coding):
    """Five questions asking for the protein-coding gene among non-coding ones, and five
    asking for the non-coding gene among protein-coding ones."""
    rng = random.Random(3)
    out = []
    for _ in range(5):
        for stem, gold, others in (("Which of these genes is protein coding?", protein, non_coding),
                                   ("Which of these genes is not protein coding?", non_coding, protein)):
            out.append((stem, [rng.choice(gold)[0], *(g[0] for g in rng.sample(others, 3))]))
    return out


def _chosen(agent, question: str, labels: str) -> int | None:
    first = agent.answer(question).answer.splitlines()[0]
    m = re.search(r"\(option ([A-Za-z0-9])\)", first)
    return labels.index(m.group(1).lower()) if m else None


def _ask(agent, stem: str, symbols: list[str], order: list[int], style: str) -> int | None:
    """The original index of the option chosen when the options stand in `order`."""
    ordered = [symbols[i] for i in order]
    if style in ("colon", "inline"):
        listed = f"{', '.join(ordered[:-1])} or {ordered[-1]}"
        if style == "inline" and _THESE.search(stem):
            question = _THESE.sub(lambda m: f"{m.group(0).split()[0]} of {listed}", stem, count=1)
        else:
            question = stem.replace("?", f": {listed}?", 1) if "?" in stem else f"{stem}: {listed}?"
        first = agent.answer(question).answer.splitlines()[0]
        return order[ordered.index(first)] if first in ordered else None
    labels = "1234" if style.startswith("1") else "abcd"
    chosen = _chosen(agent, f"{stem} " + style.format(*ordered), labels)
    return order[chosen] if chosen is not None else None


@pytest.fixture(scope="module")
def questions(store_path):
    return _kinds(_genes(store_path))


def right_however_written(agent, questions: list[tuple[str, list[str]]], seed: int) -> float:
    """The share of right choices over each (stem, options with the gold first) asked five
    ways: as written, lower case, wrapped politely, without "genes", each in a random option
    order and letter style. Each way must choose what the first did."""
    rng = random.Random(seed)
    right = asked = 0
    for stem, symbols in questions:
        first = _ask(agent, stem, symbols, [0, 1, 2, 3], STYLES[0])
        bare = re.sub(r" genes?\b", "", stem)  # "Which of these is on chromosome 12?"
        for wording in (stem, stem.lower(), f"hi, quick question: {stem[0].lower()}{stem[1:]} thanks", bare):
            order = list(range(4))
            rng.shuffle(order)
            chosen = _ask(agent, wording, symbols, order, rng.choice(STYLES))
            assert chosen == first, (wording, symbols, order, chosen, first)
            asked += 1
            right += chosen == 0
    return right / asked


@pytest.mark.parametrize("kind", ["chromosome", "band", "coding"])
def test_the_option_whose_record_states_the_stem_is_chosen_however_written(agent, questions, kind):
    assert right_however_written(agent, questions[kind], 7) >= 0.9, kind


def test_two_options_that_both_state_it_choose_none(agent, store_path):
    """A band two options share cannot tell them apart: no option, never the first."""
    genes = [g for g in _genes(store_path) if g[3] == "protein-coding"]
    by_band: dict[str, list[str]] = {}
    for symbol, _c, band, _t in genes:
        by_band.setdefault(band, []).append(symbol)
    shared = sorted((b, s) for b, s in by_band.items() if len(s) >= 2 and re.search(r"\d[pq]\d", b))[:5]
    others = [g[0] for g in genes if not re.search(r"^(?:1|2)", g[2])][:2]
    for band, symbols in shared:
        answer = agent.answer(f"Which gene is located at {band}? " + STYLES[0].format(*symbols[:2], *others))
        assert not answer.sufficient and "(option" not in answer.answer, (band, answer.answer)


def test_an_option_question_that_names_its_subject_reads_the_subject(agent):
    """"Which of these is an alias of PSMB10?": the stem's gene is asked about, the options are
    values (aliases), and the one its record lists is chosen."""
    answer = agent.answer("Which of these is an alias of PSMB10? A) LMP7 B) TAP1 C) LMP10 D) PSMB8")
    assert answer.sufficient and answer.answer.splitlines()[0] == "LMP10 (option C)"


@pytest.mark.parametrize(("wanted", "value", "expected"), [
    ("chromosome 12", "chr12", True),
    ("chromosome 1", "chr12", False),
    ("chromosome X", "chrX", True),
    ("17q21", "17q21.31", True),
    ("17q2", "17q21.31", False),  # 17q2 is no band of 17q21.31's
    ("17q21.31", "17q21.3", False),
    ("", "Yes", True),
    ("not", "No", True),
    ("not", "Yes", False),
    ("glycolysis", "hexokinase 1. Processes: canonical glycolysis (GO:0061621)", True),
    ("not glycolysis", "hexokinase 1. Processes: canonical glycolysis (GO:0061621)", False),
    ("mismatch repair", "Processes: DNA repair", False),
])
def test_a_value_states_what_is_wanted_only_in_full(wanted, value, expected):
    from biorag.understanding.options import states

    assert states(wanted, value) is expected


def test_a_listed_or_glossed_value_names_each_of_its_names():
    from biorag.understanding.options import Option, choose

    options = [Option("A", "LMP7", ("PSMB8",)), Option("B", "LMP10", ("PSMB10",)), Option("C", "TAP1", ("TAP1",))]
    assert choose(options, ["PSMB10, LMP10, MECL1"]).label == "B"
    assert choose(options, ["TAP1 (transporter 1, ATP binding cassette subfamily B member)"]).label == "C"
    assert choose(options, ["PSMB8, LMP7; TAP1"]) is None  # two options named: none chosen


def test_an_option_that_is_a_symbol_and_a_word_is_the_gene(agent):
    """"APP" is also a word; among options, in capitals, it is the gene."""
    for q, want in (("Which of these genes lies on chromosome 21? A) APOE B) APP C) PSEN1 D) MAPT", "APP (option B)"),
                    ("which one is on chr 19: (a) PSEN2 (b) APP (c) APOE", "APOE (option c)")):
        answer = agent.answer(q)
        assert answer.sufficient and answer.answer.splitlines()[0] == want, (q, answer.answer)


@pytest.mark.parametrize(("text", "band"), [
    ("Which gene is located at 17q21.31?", "17q21.31"),
    ("Which gene is located at 17q21.", "17q21"),  # a sentence's full stop is no decimal
    ("Which one maps to Xq28", "Xq28"),
    ("Which of these is XPA?", None),  # a symbol that opens like a band is none
])
def test_a_band_is_read_whole_and_only_as_a_band(text, band):
    from biorag.understanding.options import wanted_band

    assert wanted_band(text) == band


@pytest.mark.parametrize(("question", "stem", "options"), [
    ("Which of these is a tumour suppressor gene: MYC, RB1, KRAS or ERBB2?", "Which of these is a tumour suppressor gene",
     ["MYC", "RB1", "KRAS", "ERBB2"]),
    ("Which of these is a tumor suppressor: MYC, RB1, KRAS, ERBB2", "Which of these is a tumor suppressor",
     ["MYC", "RB1", "KRAS", "ERBB2"]),
    ("Which of MYC, TP53 or KRAS is a tumour suppressor?", "Which of these is a tumour suppressor?", ["MYC", "TP53", "KRAS"]),
    ("Which is on chromosome 17? TP53, KRAS or MYC", "Which is on chromosome 17", ["TP53", "KRAS", "MYC"]),
])
def test_a_choice_written_without_labels_is_read_as_options(question, stem, options):
    from biorag.understanding.options import split_options

    found_stem, found = split_options(question)
    assert (found_stem, [o.text for o in found], {o.label for o in found}) == (stem, options, {""})


@pytest.mark.parametrize("question", [
    "Which of these genes share a pathway: BRCA1, BRCA2 and PALB2?",  # "and": a set, not a choice
    "What do these genes have in common: BRCA1, BRCA2, PALB2?",
    "Which genes are linked to seizures, microcephaly or hypotonia?",  # a feature list, no choice stem
])
def test_a_list_that_offers_no_choice_is_no_options(question):
    from biorag.understanding.options import split_options

    assert split_options(question) == (question, [])


def test_an_unlabelled_choice_is_answered_with_the_option_itself(agent):
    """No letter to give back: the first line is the chosen option, as the question wrote it."""
    answer = agent.answer("Which of these genes encodes a kinase: TP53, BRAF, MYC or APOE?")
    assert answer.sufficient and answer.answer.splitlines()[0] == "BRAF", answer.answer
