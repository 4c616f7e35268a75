"""Contrastive pairs from BioASQ task B: (question, gold document) of the training batches.

Users type questions, and BioASQ's are real ones, written by biomedical experts, each with
the documents that answer it. A pair's positive is the gold document as the golden files
give it (its training batches' snippets joined: `indexing.bioasq_golden`), kind "bioasq".

Nothing of the test batch (12B) enters: not its questions (a 7B-11B question asked again in
12B is dropped) and not its gold documents (a PMID that answers a 12B question gives no
pair), so 12B retrieval measures a model that never saw its questions or its answers.
"""

from __future__ import annotations

from pathlib import Path

from indexing.bioasq_golden import read_golden, split_files, unseen
from training.pairs import Pair

KIND = "bioasq"


def bioasq_pairs(folder: Path, max_per_question: int = 0) -> tuple[list[Pair], dict]:
    """Pairs of every training question and each of its gold documents (the first
    `max_per_question` by PMID when > 0: a question with 40 documents would otherwise weigh 40
    times one with a single answer), and counts for the manifest."""
    train_files, test_files = split_files(folder)
    test, _ = read_golden(test_files)
    train_all, docs = read_golden(train_files)
    train = unseen(train_all, test)
    test_gold = {p for q in test for p in q.gold}
    text = {d["pmid"]: d["abstract"] for d in docs}
    pairs: list[Pair] = []
    dropped_test_docs = 0
    for q in train:
        gold = [p for p in q.gold if p not in test_gold]
        dropped_test_docs += len(q.gold) - len(gold)
        if max_per_question > 0:
            gold = gold[:max_per_question]
        pairs.extend(Pair(pmid, KIND, q.body, text[pmid]) for pmid in gold if text[pmid].strip())
    counts = {"bioasq_files": [f.name for f in train_files], "bioasq_questions": len(train),
              "bioasq_questions_also_in_test": len(train_all) - len(train),
              "bioasq_pairs_dropped_test_documents": dropped_test_docs, "bioasq_pairs": len(pairs)}
    return pairs, counts
