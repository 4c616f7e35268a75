"""A finding said to be up or down is matched however the direction is worded: HPO lists
"elevated creatine kinase" and "increased serum CK", people write "raised CK" or "high creatine
kinase". The phrases are taken from the HPO store's own names and synonyms, rewritten with
another word of the same direction ("raised", "high", "lowered", "low"); only rewrites that
no HPO name holds as written are asked, so each one goes through the rewriting."""

from __future__ import annotations

import random

import pytest

from tests.agents import newcomer_agent

UP = ("elevated", "increased")
DOWN = ("decreased", "reduced")  # HPO's own direction words; people also write:
ASKED_UP = ("raised", "high", "heightened")
ASKED_DOWN = ("lowered", "low", "diminished")


@pytest.fixture(scope="module")
def rewrites(hpo_store):
    """(rewritten phrase, the term whose name or synonym it was, its direction) for 200 names
    that are found as written (a phenotype term's)."""
    con = hpo_store._con
    listed = {r[0] for r in con.execute("SELECT name_norm FROM term_names")}
    rows = con.execute("SELECT n.name_norm, t.id FROM term_names n JOIN terms t ON t.term = n.term "
                       "WHERE n.kind != 'broad' ORDER BY n.name_norm, t.id").fetchall()
    rng = random.Random(3)
    out = []
    for key, tid in rows:
        first, _, body = key.partition(" ")
        if first not in UP + DOWN or len(body) < 4:
            continue
        word = rng.choice(ASKED_UP if first in UP else ASKED_DOWN)
        if f"{word} {body}" not in listed:
            out.append((f"{word} {body}", tid, first in UP))
    assert len(out) > 500, len(out)
    return [r for r in rng.sample(out, 400) if _found_as_written(hpo_store, r)][:200]


def _found_as_written(hpo_store, rewrite) -> bool:
    phrase, tid, _up = rewrite
    original = hpo_store._con.execute(
        "SELECT n.name_norm FROM term_names n JOIN terms t ON t.term = n.term WHERE t.id = ? AND n.name_norm LIKE ?",
        (tid, "% " + phrase.split(" ", 1)[1])).fetchone()
    found = hpo_store.find_terms(original[0]) if original else []
    return bool(found) and found[0].id == tid


def test_a_direction_written_another_way_finds_the_same_finding(hpo_store, rewrites):
    """The term the rewritten phrase finds is the one the name belonged to (or another that
    HPO names the same way: two terms may share a phrase) in at least 0.9 of them."""
    same = 0
    for phrase, tid, _up in rewrites:
        found = hpo_store.find_terms(phrase)
        assert found, phrase
        same += found[0].id == tid
    assert len(rewrites) >= 150 and same / len(rewrites) >= 0.9, (same, len(rewrites))


def test_the_direction_is_kept(hpo_store):
    """Up is never read as down: "low CK" is no raised creatine kinase."""
    raised = {t.id for t in hpo_store.find_terms("raised CK")}
    assert raised == {"HP:0003236"}
    for phrase in ("low CK", "reduced creatine kinase", "decreased serum CK"):
        assert not {t.id for t in hpo_store.find_terms(phrase)} & raised, phrase


def test_what_the_words_already_name_is_not_rewritten(hpo_store):
    """"High myopia" and "high palate" are HPO names as written: their own terms, not a level."""
    from biorag.knowledge.phenotype_names import normalise

    for phrase in ("high myopia", "high palate", "low-set ears"):
        (found,) = hpo_store.find_terms(phrase)
        names = {r[0] for r in hpo_store._con.execute(
            "SELECT n.name_norm FROM term_names n JOIN terms t ON t.term = n.term WHERE t.id = ?", (found.id,))}
        assert normalise(phrase) in names, (phrase, found)


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


@pytest.mark.parametrize("question", [
    "Boy with proximal muscle weakness, calf hypertrophy and elevated CK. Which genes?",
    "Child with proximal muscle weakness and high creatine kinase, which gene?",
    "patient with raised CK and proximal muscle weakness - candidate genes?",
    "could you please tell me which genes explain proximal muscle weakness and raised ck levels? thanks",
])
def test_a_raised_creatine_kinase_is_ranked_on_however_written(agent, question):
    answer = agent.answer(question)
    first = answer.answer.splitlines()[0]
    assert answer.sufficient and "HP:0003236" in first and "HP:0003701" in first, answer.answer
    assert "No HPO term matches" not in answer.answer, answer.answer
