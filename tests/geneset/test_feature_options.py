"""Options that are phenotypes: "Which of these is a feature of <disease>? A) ... D) ...",
generated from real HPO diseases (the right option one of the disease's annotated features,
three features it is not annotated with). Whatever the option order, letter style and case,
the answer chooses the disease's feature, with its letter, in at least 0.9 of cases; it never
chooses a feature the disease lacks."""

from __future__ import annotations

import random
import re

import pytest

from biorag.settings import load_settings
from retrievers.stores.hpo_store import HpoStore, hpo_store_path
from tests.agents import newcomer_agent

STYLES = ["A) {} B) {} C) {} D) {}", "(a) {} (b) {} (c) {} (d) {}", "\nA. {}\nB. {}\nC. {}\nD. {}"]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def _drawn(store: HpoStore, n: int, seed: int = 3) -> list[tuple[str, str, list[str]]]:
    """(disease name, one of its features, three features it lacks) for OMIM diseases whose
    name the store finds back as that disease first; features of two words or fewer (names a
    person writes as an option)."""
    rng = random.Random(seed)
    ids = [r[0] for r in store._con.execute("SELECT disease_id FROM diseases WHERE disease_id LIKE 'OMIM:%' "
                                            "ORDER BY disease_id").fetchall()]
    pool = sorted({f["name"] for d in rng.sample(ids, 300) for f in store.disease_phenotypes(d)
                   if len(f["name"].split()) <= 2})
    out = []
    for did in rng.sample(ids, len(ids)):
        name = store._disease_name(did)
        found = store.find_diseases(name)
        if not found or found[0]["disease_id"] != did or "," in name or ";" in name:
            continue
        own = {f["name"] for f in store.disease_phenotypes(did)}
        short = [f for f in sorted(own) if len(f.split()) <= 2]
        if not short:
            continue
        out.append((name, rng.choice(short), rng.sample([f for f in pool if f not in own], 3)))
        if len(out) == n:
            break
    return out


def test_a_diseases_feature_is_chosen_among_features_it_lacks(agent, geneset_data_dir):
    store = HpoStore(hpo_store_path(load_settings(overrides={"data_dir": str(geneset_data_dir)})))
    try:
        drawn = _drawn(store, 15)
    finally:
        store.close()
    assert len(drawn) == 15
    rng = random.Random(9)
    right = asked = 0
    for disease, feature, others in drawn:
        for wording in range(2):
            options = [feature, *others]
            rng.shuffle(options)
            style = STYLES[wording % len(STYLES)] if wording == 0 else rng.choice(STYLES)
            written = [o.lower() for o in options] if wording else options
            question = f"Which of these is a feature of {disease}? " + style.format(*written)
            first = agent.answer(question).answer.splitlines()[0]
            m = re.search(r"\(option ([A-Da-d])\)", first)
            chosen = options["abcd".index(m.group(1).lower())] if m else None
            assert chosen in (None, feature), (question, first)
            asked += 1
            right += chosen == feature
    assert right / asked >= 0.9, (right, asked)
