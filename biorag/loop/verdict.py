"""A learned reading of a structured abstract's findings for a yes/no claim.

`findings.finding_polarity` reads one sentence at a time with word lists; an abstract's
results often hold several findings that point different ways ("did not differ overall ...
was significantly lower in the subgroup ..."), and the word lists cannot weigh them. This
model reads the record's findings as a whole, with the claim, and says which way they
point: "yes", "no" or "maybe".

It never answers by itself. `literature_reading._from_findings` gives it a record's
findings (`findings.record_findings`) and states its label only when a cited finding of the
same record states it too (a sentence whose word-list polarity agrees), and says "the evidence does not say" for "maybe" or when no finding agrees; where
sentences naming the whole claim disagree, `literature_reading._chosen_by_verdict` takes
the answer the model reads in the closest one's record, if one of them states it. A yes/no
answer stays quoted from a sentence: the model only chooses among them.

The model is a multinomial logistic regression over fifteen word-list cues (`cue_features`):
how many findings are null, negated, state an effect or guess, among all of them, among
those closest to the claim and in the last one. Word and word-pair features of the findings
and the question were tried and left out: in cross-validation they gained nothing (0.48
against 0.47 right over all questions), and that model read a literature-dev abstract whose
results and conclusions say "not significantly associated" as "yes" (PubMedQA's training
abstracts have no conclusions; their words are not its words). It is trained by
`python -m training.yes_no_verdict` on PubMedQA's labelled questions outside its test split
(never the test split) and shipped as resources/yes_no_verdict.json; the training command,
split, seed and cross-validated figures are in that file's "about".
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from biorag.loop.findings import null_finding, states_effect
from biorag.loop.sentence_cues import hedged, negated, stem
from biorag.ml.lexical_index import stopwords
from biorag.understanding.intent import normalise

RESOURCE = Path(__file__).parents[1] / "resources" / "yes_no_verdict.json"
LABELS = ("yes", "no", "maybe")


def _topic_stems(text: str) -> set[str]:
    stop = stopwords()
    return {stem(w) for w in normalise(text).split() if w not in stop and len(w) > 2}


def _cues(sentence: str) -> tuple[bool, bool, bool]:
    """(null, negated, states an effect) of one finding."""
    return null_finding(sentence), negated(sentence), states_effect(sentence)


def cue_features(question: str, findings: list[str]) -> dict[str, float]:
    """The word-list cues over all findings and over those sharing most topic words with the
    question (the finding about what is asked, as against a side finding)."""
    n = max(len(findings), 1)
    cues = [_cues(s) for s in findings]
    topic = _topic_stems(question)
    overlap = [len(topic & _topic_stems(s)) for s in findings]
    best = max(overlap, default=0)
    top = [c for c, o in zip(cues, overlap, strict=True) if o == best and best > 0]
    tn = max(len(top), 1)
    last = cues[-1] if cues else (False, False, False)
    asked = f" {normalise(question)} "
    null, neg, effect = (sum(c[i] for c in cues) for i in range(3))
    return {
        "cue:null": null / n,
        "cue:negated": neg / n,
        "cue:effect": effect / n,
        "cue:hedged": sum(map(hedged, findings)) / n,
        "cue:any_null": float(null > 0),
        "cue:any_negated": float(neg > 0),
        "cue:top_null": sum(c[0] for c in top) / tn,
        "cue:top_negated": sum(c[1] for c in top) / tn,
        "cue:top_effect": sum(c[2] for c in top) / tn,
        "cue:top_overlap": best / max(len(topic), 1),
        "cue:last_null": float(last[0]),
        "cue:last_negated": float(last[1]),
        "cue:last_effect": float(last[2]),
        "cue:question_negates": float(" not " in asked or " no " in asked),
        "cue:findings": math.log1p(len(findings)),
    }


@dataclass(frozen=True)
class VerdictModel:
    weights: dict[str, tuple[float, ...]]  # feature -> one weight per label
    intercept: tuple[float, ...]
    labels: tuple[str, ...] = LABELS

    def read(self, question: str, findings: list[str]) -> str:
        """Which way the findings point for the claim `question`: the label of the highest
        score (the most probable label: softmax keeps the order)."""
        scores = list(self.intercept)
        for name, value in cue_features(question, findings).items():
            for i, w in enumerate(self.weights.get(name, ())):
                scores[i] += w * value
        return self.labels[max(range(len(scores)), key=scores.__getitem__)]

    def to_json(self, about: dict) -> dict:
        return {"about": about, "labels": list(self.labels), "intercept": list(self.intercept),
                "weights": {k: list(v) for k, v in self.weights.items()}}


def save_model(model: VerdictModel, about: dict, path: Path = RESOURCE) -> None:
    path.write_text(json.dumps(model.to_json(about), indent=1) + "\n")


@lru_cache(maxsize=2)
def load_model(path: Path = RESOURCE) -> VerdictModel:
    data = json.loads(path.read_text())
    return VerdictModel({k: tuple(v) for k, v in data["weights"].items()},
                        tuple(data["intercept"]), tuple(data["labels"]))
