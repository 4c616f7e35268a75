"""A word spelled two ways in clinical use ("dilatation", "dilation") finds the same HPO term
whichever way it is written: HPO names "Aortic root dilatation", people write "aortic root
dilation". The phrases are the HPO store's own names and synonyms holding one spelling, asked
in the other where no name holds that as written, so each goes through the rewriting."""

from __future__ import annotations

import pytest

from tests.agents import newcomer_agent

SPELLINGS = (("dilatation", "dilation"), ("dilation", "dilatation"))


@pytest.fixture(scope="module")
def rewrites(hpo_store):
    """(rewritten phrase, the term whose name or synonym it was) for every phenotype name
    holding one spelling that the store finds as written."""
    con = hpo_store._con
    listed = {r[0] for r in con.execute("SELECT name_norm FROM term_names")}
    out = []
    for written, other in SPELLINGS:
        rows = con.execute("SELECT n.name_norm, t.id FROM term_names n JOIN terms t ON t.term = n.term "
                           "WHERE n.kind != 'broad' AND n.name_norm LIKE ? ORDER BY n.name_norm, t.id",
                           (f"%{written}%",)).fetchall()
        for key, tid in rows:
            asked = " ".join(other if w == written else w for w in key.split())
            found = hpo_store.find_terms(key)
            if asked not in listed and found and found[0].id == tid:
                out.append((asked, tid))
    return out


def test_the_other_spelling_finds_the_same_term(hpo_store, rewrites):
    assert len(rewrites) >= 30, len(rewrites)
    missed = [(phrase, tid) for phrase, tid in rewrites if not (found := hpo_store.find_terms(phrase))
              or found[0].id != tid]
    assert len(missed) <= len(rewrites) // 10, missed[:5]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


@pytest.mark.parametrize("question", [
    "tall stature, lens dislocation, aortic root dilation",
    "Tall stature, ectopia lentis and aortic root dilatation: which genes?",
    "which genes cause aortic root dilation",
])
def test_a_feature_in_either_spelling_is_ranked_not_dropped(agent, question):
    answer = agent.answer(question)
    first = answer.answer.splitlines()[0]
    assert answer.sufficient and "HP:0002616" in first, answer.answer
    assert not answer.unmatched_features and "No HPO term matches" not in answer.answer, answer.answer
