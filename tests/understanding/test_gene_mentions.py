"""Gene and protein names in a quoted sentence, or "No gene": measured on real PubMed
sentences labelled by hand (tests/data/gene_mentions, PROVENANCE there: how they were
drawn, the labelling rule and the scoring rule), and asked in any wording."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from biorag.understanding.analysis import analyse
from biorag.understanding.name_extraction import gene_mentions

DEV = Path(__file__).resolve().parents[1] / "data" / "gene_mentions" / "pubmed_sentences_dev.jsonl"
ROWS = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines()]


def _matches(predicted: list[str], gold: list[str]) -> int:
    """Predicted names matched to gold names (one contains the other, lower-cased), each gold once."""
    used: set[int] = set()
    for p in predicted:
        hit = next((i for i, g in enumerate(gold) if i not in used and (p.lower() in g.lower() or g.lower() in p.lower())), None)
        if hit is not None:
            used.add(hit)
    return len(used)


def test_the_development_set_is_as_described():
    assert len(ROWS) >= 200
    assert sum(not r["genes"] for r in ROWS) >= len(ROWS) / 3
    assert all(g in r["sentence"] for r in ROWS for g in r["genes"])


def test_precision_and_recall_on_real_sentences(lexicon):
    tp = predicted = gold = right_none = nones = 0
    for r in ROWS:
        names = gene_mentions(r["sentence"], lexicon)
        tp += _matches(names, r["genes"])
        predicted += len(names)
        gold += len(r["genes"])
        if not r["genes"]:
            nones += 1
            right_none += not names
    precision, recall = tp / predicted, tp / gold
    print(f"\ngene mentions: precision {precision:.3f}, recall {recall:.3f} ({tp} of {gold} gold, {predicted} "
          f"predicted); 'No gene' right for {right_none} of {nones} sentences")
    assert precision >= 0.8
    assert recall >= 0.7


WRAPPERS = [
    "The gene and protein names in the sentence '{s}' is",
    "the gene and protein names in the sentence '{s}' are",
    'What are the gene and protein names in this sentence: "{s}"?',
    'Which genes or proteins are mentioned in the following sentence? "{s}"',
    "Please list the gene names in the sentence '{s}', thanks!",
    'Write a computer program that answers: what are the gene and protein names in the sentence "{s}"?',
]


def test_the_same_names_in_any_wording(agent, lexicon):
    rnd = random.Random(2)
    with_genes = [r for r in ROWS if r["genes"] and "'" not in r["sentence"] and '"' not in r["sentence"]]
    without = [r for r in ROWS if not r["genes"] and "'" not in r["sentence"] and '"' not in r["sentence"]]
    for r in rnd.sample(with_genes, 4) + rnd.sample(without, 3):
        expected = ", ".join(gene_mentions(r["sentence"], lexicon)) or "No gene"
        for wrapper in WRAPPERS:
            answer = agent.answer(wrapper.format(s=r["sentence"]))
            assert answer.answer.splitlines()[0] == expected, (wrapper, r["sentence"], answer.answer[:200])
            assert answer.sufficient


@pytest.mark.parametrize(("question", "source"), [
    ('Which genes are linked to "hereditary breast and ovarian cancer"?', "omim"),
    ("What is the official symbol of 'tumor protein p53'?", "gene"),
    ("Which chromosome is BRCA1 on?", "gene"),
])
def test_a_quoted_name_is_not_a_sentence_to_read(agent, question, source):
    analysis = analyse(question, agent.retrievers, agent.lexicon)
    assert not any(e.kind == "passage" for e in analysis.entities)
    assert analysis.intent is not None and analysis.intent.hops[0].source == source
