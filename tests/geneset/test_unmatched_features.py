"""A listed feature that matches no HPO term is kept and named: in the answer (a line of its
own, below the ranking) and in the answer's JSON (`unmatched_features`), whatever the
question's wording; the ranking is the one the matched features give alone. Presentations
are built from real HPO diseases (three of their annotated features, by their HPO names),
with one description added that no HPO name holds (checked against the store)."""

from __future__ import annotations

import random

import pytest

from application.engine import build_agent
from biorag.settings import load_settings

SEED = 41
#: descriptions no HPO name or synonym holds (the test checks each against the store)
INVENTED = ["purple glittery rash", "smells of burnt toast", "fondness for loud trains", "blue knees at dusk",
            "humming while asleep"]
TEMPLATES = ["A patient presents with {c}. Which gene is most likely responsible?",
             "Candidate genes for a patient with: {s}", "{c} - which genes?",
             "Could you please tell me which genes could explain {c}? Thanks!", "which genes explain {c}"]


def _comma(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    a = build_agent(load_settings(overrides={"data_dir": str(geneset_data_dir), "planner": "rules"}))
    yield a
    for r in a.retrievers.values():
        r.close()
    a.lexicon.close()


@pytest.fixture(scope="module")
def cases(hpo_store):
    con = hpo_store._con
    names = {r[0].lower() for r in con.execute("SELECT name_norm FROM term_names")}
    for words in INVENTED:
        assert words.lower() not in names
    rng = random.Random(SEED)
    diseases = [r[0] for r in con.execute(
        "SELECT disease_id FROM disease_terms GROUP BY disease_id HAVING COUNT(*) >= 6 ORDER BY disease_id")]
    out = []
    for did in rng.sample(diseases, 40):
        feats = [f["name"] for f in hpo_store.disease_phenotypes(did)
                 if "," not in f["name"] and ";" not in f["name"] and " and " not in f["name"]]
        if len(feats) >= 3:
            out.append((rng.sample(feats, 3), rng.choice(INVENTED), rng.randrange(4)))
        if len(out) == 6:
            break
    assert len(out) == 6
    return out


def test_an_unmatched_feature_is_named_in_every_phrasing(agent, cases):
    for feats, invented, at in cases:
        with_it = [*feats[:at], invented, *feats[at:]]
        for t in TEMPLATES:
            plain = agent.answer(t.format(c=_comma(feats), s="; ".join(feats)))
            asked = agent.answer(t.format(c=_comma(with_it), s="; ".join(with_it)))
            assert [f.lower() for f in asked.unmatched_features] == [invented], (t, with_it, asked.unmatched_features)
            assert plain.unmatched_features == [], (t, feats, plain.unmatched_features)
            first, *rest = asked.answer.split("\n")
            assert first == plain.answer.split("\n")[0], (t, with_it, asked.answer, plain.answer)
            assert any(invented in line.lower() and "no hpo term matches" in line.lower() for line in rest), asked.answer


NEGATIONS = ["{c}, but no {x}", "{c}; no {x}", "{c} without {x}"]


def test_a_feature_said_to_be_absent_is_named_not_ranked(agent, cases, hpo_store):
    """A feature the question says is absent ("but no X", "without X") leaves the ranking as
    the observed features give it, and is named on a line of its own: the agent's ranking
    weighs observed features only (`biorag prioritise` weighs absent ones)."""
    absent = [feats[0] for feats, _, _ in cases[1:]] + [cases[0][0][0]]  # each case gets another's feature
    for (feats, _, _), x in zip(cases, absent, strict=True):
        plain = agent.answer(f"Which genes could explain {_comma(feats)}?")
        for t in NEGATIONS:
            asked = agent.answer("Which genes could explain " + t.format(c=_comma(feats), x=x.lower()) + "?")
            first, *rest = asked.answer.split("\n")
            assert first == plain.answer.split("\n")[0], (t, x, asked.answer, plain.answer)
            assert any(line.startswith("Said to be absent") and x.lower() in line.lower() for line in rest), \
                (t, x, asked.answer)
