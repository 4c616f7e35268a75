"""Train the yes/no verdict model (`biorag.loop.verdict`) on PubMedQA's labelled questions.

PubMedQA's 1,000 expert-labelled questions (PQA-L) each come with the abstract they were
written from, its conclusions left out, and a gold "yes", "no" or "maybe". The official
test split (test_ground_truth.json, 500 PMIDs) is what `biorag eval pubmedqa` measures, so
only the other 500 train: the script refuses a training item whose PMID is in the test
split. It prints five-fold cross-validated accuracy (all answered, and answered only when a
finding agrees, as the reader uses it) before fitting on all 500 and writing the model.

    python -m training.yes_no_verdict --pubmedqa ../shared/data/pubmedqa

writes biorag/resources/yes_no_verdict.json (with the command, split, seed and figures
in its "about"). Takes about ten seconds on 2 cores; needs scikit-learn (a dependency of
sentence-transformers).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from biorag.contracts.models import Evidence
from biorag.loop.findings import record_findings
from biorag.loop.verdict import (
    LABELS,
    RESOURCE,
    VerdictModel,
    cue_features,
    save_model,
)
from indexing.pubmedqa_items import abstract_text

SEED = 13
C = 0.3  # inverse regularisation: 0.3 read better than 3 in cross-validation (0.472 against 0.458 right)


def items(folder: Path) -> list[tuple[str, str, list[str], str]]:
    """(pmid, question, findings, gold) of every labelled question outside the test split."""
    test = set(json.loads((folder / "test_ground_truth.json").read_text()))
    out = []
    for pmid, item in json.loads((folder / "ori_pqal.json").read_text()).items():
        if pmid in test:
            continue
        ev = Evidence(source="pubmed", id=pmid, title="", text=abstract_text(item))
        out.append((pmid, item["QUESTION"], record_findings(ev), item["final_decision"]))
    return out


def fit(rows: list[tuple[str, str, list[str], str]]) -> VerdictModel:
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer()
    x = vec.fit_transform([cue_features(q, f) for _p, q, f, _g in rows])
    clf = LogisticRegression(C=C, max_iter=3000, random_state=SEED).fit(x, [g for *_, g in rows])
    order = [list(clf.classes_).index(label) for label in LABELS]
    weights = {name: tuple(round(float(clf.coef_[i, j]), 5) for i in order) for name, j in vec.vocabulary_.items()}
    return VerdictModel(weights, tuple(round(float(clf.intercept_[i]), 5) for i in order))


def cross_validate(rows: list[tuple[str, str, list[str], str]], folds: int = 5) -> dict:
    """Accuracy of models fitted on the other folds: answering every question, and answering
    only where a finding's word-list polarity agrees (`findings.finding_polarity` needs the
    parsed claim, so here a finding "agrees" when it is negated or null for "no" and states
    an effect for "yes": close to, not the same as, the reader's test)."""
    from sklearn.model_selection import StratifiedKFold

    from biorag.loop.findings import null_finding, states_effect
    from biorag.loop.sentence_cues import negated

    gold = [g for *_, g in rows]
    right = answered = right_answered = 0
    for train, held in StratifiedKFold(folds, shuffle=True, random_state=SEED).split(rows, gold):
        model = fit([rows[i] for i in train])
        for i in held:
            _p, q, f, g = rows[i]
            label = model.read(q, f)
            right += label == g
            says = {"no" if null_finding(s) or negated(s) else "yes" if states_effect(s) else "" for s in f}
            if label in says:
                answered += 1
                right_answered += label == g
    n = len(rows)
    return {"folds": folds, "accuracy_all_answered": round(right / n, 3),
            "answered_where_a_finding_agrees": answered, "right_of_those": right_answered,
            "accuracy_of_those": round(right_answered / max(answered, 1), 3),
            "accuracy_over_all_with_those_answered": round(right_answered / n, 3)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.yes_no_verdict", description=__doc__.split("\n\n")[0])
    p.add_argument("--pubmedqa", type=Path, required=True,
                   help="folder with ori_pqal.json and test_ground_truth.json (../shared/data/pubmedqa)")
    p.add_argument("--out", type=Path, default=RESOURCE, help=f"model file to write (default {RESOURCE})")
    p.add_argument("--no-cv", action="store_true", help="skip the five-fold cross-validation (most of the time); the written model's "
                        "\"about\" then holds no figures, so keep it off when writing the shipped model")
    a = p.parse_args(argv)
    for name in ("ori_pqal.json", "test_ground_truth.json"):
        if not (a.pubmedqa / name).is_file():
            p.error(f"{a.pubmedqa / name} not found: --pubmedqa takes the folder holding PubMedQA's {name}")
    rows = items(a.pubmedqa)
    print(f"{len(rows)} labelled questions outside the test split: {dict(Counter(g for *_, g in rows))}", file=sys.stderr)
    cv = {} if a.no_cv else cross_validate(rows)
    if cv:
        print(json.dumps(cv), file=sys.stderr)
    model = fit(rows)
    about = {"what": "biorag.loop.verdict: yes/no/maybe from a structured abstract's findings and the claim",
             "command": "python -m training.yes_no_verdict --pubmedqa ../shared/data/pubmedqa",
             "trained_on": "PubMedQA PQA-L (ori_pqal.json) minus the official test split (test_ground_truth.json)",
             "questions": len(rows), "seed": SEED, "C": C, "cross_validation": cv}
    save_model(model, about, a.out)
    print(f"wrote {a.out} ({len(model.weights)} features)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
