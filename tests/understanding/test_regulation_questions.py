"""Transcription-factor regulation from TRRUST v2 (bundled, loaded into the gene store):
every mode the rows record for a pair, with its PMID count, most-supported first; a pair
TRRUST lacks says so; the same answer in any wording, with the target named first or last.

Pairs are drawn from the bundled TRRUST file itself; the expected line is worked out here
from its rows, independently of the source's code."""

from __future__ import annotations

import gzip
import random
from collections import defaultdict

import pytest

from indexing.regulation import TRRUST_FILES
from retrievers.trrust.retriever import RegulationStore

MODE_RANK = {"Activation": 0, "Repression": 1, "Unknown": 2}


def _rows() -> tuple[dict[tuple[str, str], dict[str, int]], int]:
    """(TF, target) -> mode -> number of distinct PMIDs (a mode may be listed twice), and
    the number of rows."""
    pmids: dict[tuple[str, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    n = 0
    with gzip.open(TRRUST_FILES["human"], "rt") as f:
        for line in f:
            tf, target, mode, ids = line.rstrip("\n").split("\t")
            pmids[(tf, target)][mode].update(p for p in ids.split(";") if p)
            n += 1
    return {k: {m: len(p) for m, p in v.items()} for k, v in pmids.items()}, n


PAIRS, ROWS = _rows()


def expected_line(tf: str, target: str) -> str:
    modes = sorted(PAIRS[(tf, target)].items(), key=lambda m: (-m[1], MODE_RANK[m[0]]))
    def one(mode: str, n: int) -> str:
        count = f"{n} PMID{'s' if n != 1 else ''}"
        return f"Unknown: mode not stated ({count})" if mode == "Unknown" else f"{mode} ({count})"
    return "; ".join(one(m, n) for m, n in modes) + f" ({tf} -> {target})"


PHRASINGS = [
    "The regulatory relationship between transcription factor {tf} and gene {target} is",
    "What is the regulatory relationship between {tf} and {target}?",
    "How does {tf} regulate {target}?",
    "Does {tf} activate or repress {target}?",
    "what's the mode of regulation of {target} by {tf}",
    "Could you tell me whether transcription factor {tf} activates or represses {target}, please?",
    "The regulatory relationship between gene {target} and transcription factor {tf} is",
    "Is {target} activated or repressed by {tf}?",
    "Write a computer program that answers: what is the regulatory relationship between {tf} and {target}?",
]


def _first(answer: str) -> str:
    return next((ln.strip() for ln in answer.splitlines() if ln.strip()), "")


def _plain_symbol(lexicon, symbol: str) -> bool:
    """A symbol the question lexicon reads as that one gene only (no other gene's alias)."""
    hits = lexicon.lookup_spans([symbol], ("gene",))
    return bool(hits) and {h.canonical for h in hits} == {symbol} and all(h.how == "symbol" for h in hits)


@pytest.fixture(scope="module")
def drawn(lexicon):
    rnd = random.Random(39)
    keys = sorted(k for k in PAIRS if k[0] != k[1] and (k[1], k[0]) not in PAIRS)
    several = sorted(k for k in keys if len(PAIRS[k]) > 1)
    out: list[tuple[str, str]] = []
    for pool, n in ((several, 4), (keys, 8)):  # pairs with several modes, then any pairs
        taken = 0
        for k in rnd.sample(pool, len(pool)):
            if taken == n:
                break
            if k not in out and _plain_symbol(lexicon, k[0]) and _plain_symbol(lexicon, k[1]):
                out.append(k)
                taken += 1
    assert len(out) == 12
    return out


def test_the_store_holds_every_bundled_row(store_path):
    store = RegulationStore(store_path)
    try:
        n = len(store.rows("organism = ?", ["human"]))
        tp53 = store.rows("tf = ? AND target = ?", ["TP53", "CDKN1A"])
    finally:
        store.close()
    assert n == ROWS == 9396
    assert {r[3] for r in tp53} == {"Activation", "Repression", "Unknown"}


def test_every_mode_with_its_pmid_count_in_any_wording(agent, drawn):
    for tf, target in [("TP53", "CDKN1A"), *drawn]:
        want = expected_line(tf, target)
        for template in PHRASINGS:
            for question in (template.format(tf=tf, target=target),
                             template.format(tf=tf, target=target).lower()):
                answer = agent.answer(question)
                assert _first(answer.answer) == want, (question, answer.answer[:300])
                assert answer.sufficient
                assert any(c.source == "trrust" for c in answer.citations)


def test_a_pair_trrust_lacks_says_so(agent, lexicon):
    tfs = sorted({tf for tf, _ in PAIRS if _plain_symbol(lexicon, tf)})
    rnd = random.Random(7)
    checked = 0
    for _ in range(200):
        tf, other = rnd.sample(tfs, 2)
        if (tf, other) in PAIRS or (other, tf) in PAIRS:
            continue
        for question in (f"The regulatory relationship between transcription factor {tf} and gene {other} is",
                         f"Does {other} activate or repress {tf}?"):
            answer = agent.answer(question)
            assert not answer.sufficient, question
            assert "TRRUST v2 records no regulation between" in answer.answer, (question, answer.answer)
            assert not any(m in _first(answer.answer) for m in ("Activation", "Repression")), answer.answer
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_one_factor_lists_its_targets_by_mode(agent):
    activated = sorted(t for (tf, t), m in PAIRS.items() if tf == "HIF1A" and "Activation" in m)
    answer = agent.answer("Which genes does the transcription factor HIF1A activate?")
    assert answer.answer.startswith("HIF1A regulates (human) Activation:")
    assert activated[0] in answer.answer or len(activated) > 15
