"""Phenotype-driven gene prioritisation on the real HPO store (2025-01-16) and real published
cases (tests/data/phenopackets, from the GA4GH Phenopacket Store): phenopacket reading and
its validation, ranking by best disease, excluded features, answers a clinician can check."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from biorag.contracts.errors import InputError
from biorag.knowledge.phenopackets import (
    Case,
    PhenopacketError,
    read_case_file,
    read_input,
    read_phenopacket,
)
from biorag.knowledge.phenotype_types import Patient, ScoringParams
from retrievers.hpo.prioritise import prioritise

DATA = Path(__file__).resolve().parents[1] / "data" / "phenopackets"
EXAMPLES = sorted((DATA / "examples").glob("*.json"))


def _doc(path: Path) -> dict:
    return json.loads(path.read_text())


def _gold(doc: dict) -> str:
    gi = doc["interpretations"][0]["diagnosis"]["genomicInterpretations"][0]
    return gi["variantInterpretation"]["variationDescriptor"]["geneContext"]["symbol"]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_a_real_phenopacket_is_read_and_its_gene_ranked(hpo_store, path):
    doc = _doc(path)
    case = read_case_file(path)
    feats = doc["phenotypicFeatures"]
    assert len(case.observed) == len({f["type"]["id"] for f in feats if not f.get("excluded")})
    assert set(case.excluded) == {f["type"]["id"] for f in feats if f.get("excluded")} - set(case.observed)
    assert case.sex == doc["subject"].get("sex")
    result = prioritise(hpo_store, case, top_k=10).as_dict()
    assert result["case"]["sex"] == case.sex and result["case"]["age"] == case.age
    symbols = [g["symbol"] for g in result["genes"]]
    assert _gold(doc) in symbols  # published, solved cases: the causative gene is among the first 10
    top = result["genes"][0]
    assert top["disease"]["id"].split(":")[0] in {"OMIM", "ORPHA", "DECIPHER"} and top["disease"]["name"]
    patient = {t["id"] for t in result["case"]["observed"]}
    assert {m["patient"]["id"] for m in top["matched"]} | {t["id"] for t in top["unexplained"]} == patient
    assert all(m["disease"]["id"].startswith("HP:") and m["disease"]["label"] for m in top["matched"])
    scores = [g["score"] for g in result["genes"]]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_answer_fields_are_never_read(hpo_store, path):
    """interpretations and diseases hold the answer: removing (or changing) them changes nothing."""
    doc = _doc(path)
    bare = {k: v for k, v in doc.items() if k not in ("interpretations", "diseases")}
    wrong = copy.deepcopy(doc)
    wrong["interpretations"][0]["diagnosis"]["disease"] = {"id": "OMIM:154700", "label": "Marfan syndrome"}
    ranked = [prioritise(hpo_store, read_phenopacket(d, "case"), top_k=20).as_dict()["genes"] for d in (doc, bare, wrong)]
    assert ranked[0] == ranked[1] == ranked[2]


def test_genes_are_ranked_by_their_best_disease_plus_bounded_support(hpo_store):
    """Without the pooled profile, a gene's score is its best disease's, plus `support` x
    log(sum of exp(score - best)) over its diseases: support 0 is the best disease alone; a
    gene's many weak diseases can add at most support x log(n), never a sum of their scores
    (large genes do not win by size)."""
    model = hpo_store.model()
    case = read_case_file(EXAMPLES[0])
    patient = Patient(case.observed, case.excluded)
    scores = model.score_diseases(patient, ScoringParams())
    for support in (0.0, ScoringParams().support):
        params = ScoringParams().with_(support=support, gene_profile=0.0)
        for g in model.rank_genes(patient, params, top_k=30):
            own = np.array([scores[d] for d in model.gene_links[g.gene_id] if np.isfinite(scores[d])])
            best = own.max()
            assert g.best.score == pytest.approx(best, abs=1e-3)  # the disease it is shown for is its best
            expected = best + support * np.log(np.exp(own - best).sum())
            assert g.score == pytest.approx(expected, abs=1e-3)
            assert best - 1e-3 <= g.score <= best + support * np.log(len(own)) + 1e-3  # scores shown to 4 places


def _split_presentations(model, n):
    """Genes with two diseases, each annotated with two terms the other lacks (not even as a
    more specific term), of middling information content (common enough that two of them do
    not settle the diagnosis): a patient showing those four features is explained by the gene,
    by neither disease alone."""
    out = []
    for gid, ds in sorted(model.gene_links.items()):
        if len(ds) < 2:
            continue
        a, b = ds[:2]
        closure = {d: {x for t, _ in model.annotated[d] for x in model.anc[t]} for d in (a, b)}
        own = {d: sorted((t for t, _ in model.annotated[d] if t not in closure[e] and 2 < model.ic[t] < 4),
                         key=lambda t: -model.ic[t])[:2] for d, e in ((a, b), (b, a))}
        if all(len(v) == 2 for v in own.values()):
            out.append((gid, [model.term_ids[t] for t in own[a] + own[b]]))
        if len(out) == n:
            return out
    return out


def test_a_gene_explains_features_split_between_its_diseases(hpo_store):
    """The pooled profile (gene_profile): two features of one disease of a gene and two of
    another rank that gene higher than its best disease alone would, for most such genes."""
    model = hpo_store.model()
    cases = _split_presentations(model, 40)
    assert len(cases) == 40
    alone, pooled = ScoringParams().with_(gene_profile=0.0), ScoringParams()
    better = 0
    for gid, terms in cases:
        symbol = model.symbols[gid]
        before = model.gene_rank(Patient(terms), alone, symbol)
        after = model.gene_rank(Patient(terms), pooled, symbol)
        assert after <= before
        better += after < before
    assert better >= 30


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_pooled_profile_never_lowers_a_gene(hpo_store, path):
    """A gene scores at least what its diseases alone give it: a pool paying for many
    diseases' annotations never costs a gene its best disease."""
    model = hpo_store.model()
    case = read_case_file(path)
    for patient in (Patient(case.observed, case.excluded), Patient(["HP:0000526", "HP:0000518", "HP:0000639"])):
        alone = {g.symbol: g.score for g in model.rank_genes(patient, ScoringParams().with_(gene_profile=0.0), 200)}
        pooled = {g.symbol: g.score for g in model.rank_genes(patient, ScoringParams(), 200)}
        assert all(pooled[s] >= alone[s] - 1e-4 for s in alone.keys() & pooled.keys())
        assert any(pooled[s] > alone[s] + 1e-4 for s in alone.keys() & pooled.keys())


def test_an_excluded_feature_the_disease_shows_typically_lowers_it(hpo_store):
    model = hpo_store.model()
    params = ScoringParams()
    case, di, excluded = _excluded_pick(model, params, typical=True)
    before = model.score_diseases(Patient(case.observed), params)[di]
    after = model.score_diseases(Patient(case.observed, [excluded]), params)[di]
    assert after < before
    again = next(d for d in model.rank_diseases(Patient(case.observed, [excluded]), params, top_k=50)
                 if d.disease_id == model.disease_ids[di])
    assert excluded in again.contradicted and excluded not in again.considered
    # a disease sharing nothing informative with the feature is not moved
    x = model.index[excluded]
    credit = model._term_values(x, params)
    other = next(i for i in range(len(model.disease_ids)) if credit[i] <= 0
                 and x not in {a for t, _ in model.annotated[i] for a in model.anc[t]})
    assert model.score_diseases(Patient(case.observed, [excluded]), params)[other] == pytest.approx(
        model.score_diseases(Patient(case.observed), params)[other])


def test_an_excluded_feature_the_disease_shows_less_often_raises_it(hpo_store):
    """Published cases name as absent what the diagnoses they weighed would show: a feature
    the disease shows occasionally (or at no stated frequency) raises it, by
    excluded_relevance x its credit as an observed feature; at 0 it does nothing."""
    model = hpo_store.model()
    params = ScoringParams()
    case, di, excluded = _excluded_pick(model, params, typical=False)
    before = model.score_diseases(Patient(case.observed), params)[di]
    with_it = Patient(case.observed, [excluded])
    credit = model._term_values(model.index[excluded], params)[di]
    assert credit > 0
    assert model.score_diseases(with_it, params)[di] == pytest.approx(before + params.excluded_relevance * credit)
    off = params.with_(excluded_relevance=0.0)
    assert model.score_diseases(with_it, off)[di] == pytest.approx(model.score_diseases(Patient(case.observed), off)[di])
    again = next(d for d in model.rank_diseases(with_it, params, top_k=50) if d.disease_id == model.disease_ids[di])
    assert excluded in again.considered and excluded not in again.contradicted


def _excluded_pick(model, params, typical):
    """A real case's best disease and a feature it shows (typically or less often) that the
    case does not have."""
    case = read_case_file(EXAMPLES[0])
    for top in model.rank_diseases(Patient(case.observed), params, top_k=20):
        di = model.dindex[top.disease_id]
        for t, _ in sorted(model.annotated[di], key=lambda a: -model.ic[a[0]]):
            tid = model.term_ids[t]
            shown = [g for u, g in model.annotated[di] if t in model.anc[u] and g is not None]
            is_typical = max(shown, default=-1.0) >= params.excluded_typical
            if tid not in case.observed and is_typical == typical:
                return case, di, tid
    raise AssertionError("no such feature among the case's 20 best diseases")


@pytest.mark.parametrize("text", ["seizures, ataxia and nystagmus; no hearing loss",
                                  "Nystagmus, ataxia, seizures. Without hearing loss.",
                                  "a child with seizures, nystagmus and ataxia, but no hearing loss"])
def test_negated_features_in_words_are_excluded(hpo_store, text):
    found = {t.id: t.excluded for t in hpo_store.find_terms(text)}
    assert found == {"HP:0001250": False, "HP:0001251": False, "HP:0000639": False, "HP:0000365": True}
    by_text = prioritise(hpo_store, read_input(text, "text"), top_k=10).as_dict()
    by_ids = prioritise(hpo_store, read_input(["HP:0001250", "HP:0001251", "HP:0000639", "-HP:0000365"], "t"),
                        top_k=10).as_dict()
    assert [g["symbol"] for g in by_text["genes"]] == [g["symbol"] for g in by_ids["genes"]]
    assert [t["id"] for t in by_text["case"]["excluded"]] == ["HP:0000365"]


def test_obsolete_and_unknown_ids_are_skipped_with_a_warning(hpo_store):
    con = hpo_store._con
    old, new = con.execute("SELECT o.term, t.id FROM obsolete_terms o JOIN terms t ON t.term=o.replaced_by "
                           "LIMIT 1").fetchone()
    old_id = f"HP:{old:07d}"
    result = prioritise(hpo_store, read_input(["HP:0001250", old_id, "HP:9999999"], "terms"), top_k=5)
    assert result.observed == ["HP:0001250", new]
    assert any(old_id in w and new in w and "obsolete" in w for w in result.warnings)
    assert any("HP:9999999" in w and "skipped" in w for w in result.warnings)
    with pytest.raises(InputError, match="none of the observed features"):
        prioritise(hpo_store, read_input(["HP:9999999"], "terms"))


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["phenotypicFeatures"][1]["type"].pop("id"), "phenotypicFeatures[1].type.id"),
    (lambda d: d["phenotypicFeatures"][0].pop("type"), "phenotypicFeatures[0].type"),
    (lambda d: d["phenotypicFeatures"][2]["type"].update(id="MONDO:0007947"), "phenotypicFeatures[2].type.id"),
    (lambda d: d["phenotypicFeatures"][0].update(excluded="yes"), "phenotypicFeatures[0].excluded"),
    (lambda d: d["subject"].update(sex="F"), "subject.sex"),
    (lambda d: d["subject"]["timeAtLastEncounter"]["age"].update(iso8601duration="seven"),
     "subject.timeAtLastEncounter.age.iso8601duration"),
    (lambda d: d.update(phenotypicFeatures={"a": 1}), "phenotypicFeatures"),
    (lambda d: d.pop("phenotypicFeatures"), "phenotypicFeatures"),
    (lambda d: d["phenotypicFeatures"].__setitem__(3, "HP:0000001"), "phenotypicFeatures[3]"),
])
def test_a_malformed_phenopacket_is_one_error_naming_the_field(mutate, field):
    doc = _doc(EXAMPLES[1])
    mutate(doc)
    with pytest.raises(PhenopacketError) as e:
        read_phenopacket(doc, "case.json")
    assert field in str(e.value) and "\n" not in str(e.value)


def test_top_k_is_bounded(hpo_store):
    case = Case(id="x", observed=["HP:0001250"])
    assert len(prioritise(hpo_store, case, top_k=100).genes) == 100
    for bad in (0, 101):
        with pytest.raises(InputError, match="top_k"):
            prioritise(hpo_store, case, top_k=bad)


def test_the_order_does_not_depend_on_top_k(hpo_store):
    """Seizures and ataxia tie many genes: ties go by symbol, the same for any top_k, and
    evaluation reads the ranks in the order shown."""
    model = hpo_store.model()
    patient = Patient(["HP:0001250", "HP:0001251"])
    long = [g.symbol for g in model.rank_genes(patient, ScoringParams(), top_k=60)]
    for k in (3, 5, 10, 25):
        assert [g.symbol for g in model.rank_genes(patient, ScoringParams(), top_k=k)] == long[:k]
    ranks = model.gene_ranks(patient, ScoringParams())
    assert [ranks[s] for s in long] == list(range(1, 61))


def test_one_genes_rank_is_its_place_in_the_full_ranking(hpo_store):
    """`gene_rank` (what cross-validation reads) agrees with `gene_ranks` and the order shown,
    ties included, for the case's gold gene and for genes across the ranking."""
    model = hpo_store.model()
    for path in EXAMPLES[:4]:
        case = read_case_file(path)
        patient = Patient(hpo_store.resolve_terms(case.observed).ids, hpo_store.resolve_terms(case.excluded).ids)
        for params in (ScoringParams(), ScoringParams().with_(partial=1.0, support=0.0)):
            full = model.gene_ranks(patient, params)
            shown = [g.symbol for g in model.rank_genes(patient, params, top_k=30)]
            assert [s for s, _ in sorted(full.items(), key=lambda x: x[1])][:30] == shown
            for symbol in {_gold(_doc(path)), *shown[:5], *list(full)[::500]}:
                assert model.gene_rank(patient, params, symbol) == full.get(symbol), symbol
    assert model.gene_rank(patient, ScoringParams(), "NOT-A-GENE") is None
