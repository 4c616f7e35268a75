"""Qualifiers of a patient's features are kept (biorag.understanding.feature_qualifiers): an
onset word becomes the patient's onset, which the ranking weighs, and a course or severity
word the ranking does not weigh is named, never dropped without a word. Checked on the
features of real published patients and real HPO diseases."""

from __future__ import annotations

import math

import pytest

from biorag.knowledge.phenotype_types import ONSET_YEARS, ScoringParams
from biorag.settings import load_settings
from biorag.understanding.search_request import entities_of
from evaluation.prioritise import capped
from retrievers.hpo.record import RankedDiseaseRecord
from retrievers.stores.hpo_store import HpoStore, hpo_store_path
from tests.agents import newcomer_agent
from tests.geneset.test_feature_list_questions import TWO_FEATURE_CASES, _read

CONGENITAL = "HP:0003577"


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def _members(analysis) -> tuple[set[str], list[str], list[str]]:
    """(the HPO feature ids, the onset ids, the named members with no id) of the symptom list."""
    listed = analysis.first("phenotype")
    members = listed.members if listed else ()
    return ({m.ident for m in members if m.ident and m.ident not in ONSET_YEARS},
            [m.ident for m in members if m.ident in ONSET_YEARS], [m.name for m in members if not m.ident])


def _pairs(agent):
    """The first two features of real patients that "genes for A and B" reads as two terms."""
    for case in TWO_FEATURE_CASES:
        a, b = [case.labels.get(t, t) for t in capped(case, 8).observed][:2]
        plain = _read(agent, f"genes for {a} and {b}")
        if plain.intent is not None and plain.intent.kind == "phenotype_genes" and len(_members(plain)[0]) == 2:
            yield a, b, _members(plain)[0], _members(plain)[2]


def test_an_onset_word_in_any_place_is_the_patients_onset_and_keeps_the_features(agent):
    """"congenital A and B", "A from birth and B", "CONGENITAL A AND B" read the features of
    "A and B" and, beside them, Congenital onset; the question still asks for genes."""
    checked = 0
    for a, b, terms, _named in _pairs(agent):
        for question in (f"genes for congenital {a.lower()} and {b.lower()}",
                         f"{a} from birth and {b}: which genes?",
                         f"GENES FOR CONGENITAL {a.upper()} AND {b.upper()}"):
            read = _read(agent, question)
            features, onsets, _named = _members(read)
            assert read.intent is not None and read.intent.kind == "phenotype_genes", (question, read.intent)
            if features != terms:
                # the dictionary read "congenital A" as a term of its own ("Congenital cataract")
                assert any("ongenital" in m.name for m in read.first("phenotype").members), (question, features)
                continue
            assert onsets == [CONGENITAL], (question, onsets)
            checked += 1
    assert checked >= 60, checked


def test_a_severity_word_no_term_holds_is_named_not_dropped(agent):
    """"severe A and B": the features of "A and B", and "severe" named as a qualifier the
    ranking did not use (it was dropped without a word), unless a term's name holds it."""
    checked = 0
    for a, b, terms, plain in _pairs(agent):
        question = f"Which genes explain severe {a.lower()} and {b.lower()}?"
        features, onsets, named = _members(_read(agent, question))
        if features != terms:
            continue  # "Severe A" is an HPO term of its own
        severe = [n for n in named if n.startswith("severe (qualifier of ")]
        # the qualifier names the feature as the dictionary read it: all of A, or the part of
        # it a term names ("moderate intellectual disability": "intellectual disability")
        assert not onsets and len(severe) == 1 and severe[0][len("severe (qualifier of "):-1] in a.lower(), named
        assert [n for n in named if n not in severe] == [n.lower() for n in plain], (question, named, plain)
        checked += 1
    assert checked >= 30, checked


def test_a_word_before_a_feature_that_qualifies_nothing_is_not_read(agent):
    features, onsets, named = _members(_read(agent, "Patients with seizures and ataxia: which genes?"))
    assert features == {"HP:0001250", "HP:0001251"} and not onsets and not named
    # "adult" qualifies an onset only as "adult-onset"; "late" never alone
    # an onset word inside the previous feature's name qualifies no later feature
    for question in ("genes for adult hypotonia and seizures", "genes for late seizures and ataxia",
                     "A patient presents with Gastrostomy tube feeding in infancy, Optic nerve hypoplasia, Scoliosis"):
        assert _members(_read(agent, question))[1] == [], question


def _adult_only_diseases(store: HpoStore, n: int) -> list[tuple[str, list[str]]]:
    """Real diseases HPO annotates with adult onset only, each with the names of its three
    most informative features."""
    model = store.model()
    adult = ONSET_YEARS["HP:0003581"]
    out = []
    for di, did in enumerate(model.disease_ids):
        if not model.onsets[di] or any(r[0] < adult[0] for r in model.onsets[di]) or len(model.annotated[di]) < 5:
            continue
        best = sorted(model.annotated[di], key=lambda tf: -model.ic[tf[0]])[:3]
        out.append((did, [model.term_names[t] for t, _f in best]))
        if len(out) == n:
            break
    return out


def test_a_congenital_onset_lowers_a_disease_of_adult_onset_in_the_answer(agent, geneset_data_dir):
    """The onset read from the words reaches the ranking: a real disease of adult onset only,
    asked by its own three features, scores log(onset_mismatch) lower (records round to 4
    places) when the question says
    "congenital", and the answer says which onset it used."""
    store = HpoStore(hpo_store_path(load_settings(overrides={"data_dir": str(geneset_data_dir)})))
    try:
        diseases = _adult_only_diseases(store, 10)
    finally:
        store.close()
    assert len(diseases) == 10
    retriever = agent.retrievers["hpo"]
    checked = 0
    for did, names in diseases:
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        scores = {}
        for onset, question in ((None, f"Which diseases show {listed}?"),
                                (CONGENITAL, f"Which diseases show congenital {listed}?")):
            read = _read(agent, question)
            if _members(read)[1] != ([onset] if onset else []):
                break  # the first feature's name holds an onset word of its own
            records = retriever.phenotype_records(entities_of(read.entities).phenotypes, 200, diseases_first=True)
            ranked = {e.id: (e.score, RankedDiseaseRecord.of(e)) for e in records if RankedDiseaseRecord.of(e)}
            if did not in ranked:
                break
            scores[onset] = ranked[did]
        if len(scores) < 2:
            continue
        (plain, _r), (congenital, record) = scores[None], scores[CONGENITAL]
        assert congenital == pytest.approx(plain + math.log(ScoringParams().onset_mismatch), abs=1e-3), did
        assert record.onset is not None and record.onset.id == CONGENITAL
        checked += 1
    assert checked >= 5, checked
    answer = agent.answer(f"Which diseases show congenital {', '.join(diseases[0][1])}?").answer
    assert "onset: Congenital onset (HP:0003577)" in answer.splitlines()[0], answer

