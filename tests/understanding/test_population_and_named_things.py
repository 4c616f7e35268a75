"""Reading what a question names, on real PubMed records (tests/data/literature/
reading_records.jsonl, see its PROVENANCE.md), each in several wordings:

- "breast cancer in Tunisian patients" names a disease of a population, not a person's
  feature: the question stays a relation question (was a bare gene card, sufficient).
- "little evidence for a high excess risk" denies the risk (was read as "Yes").
- "MAP-1B" is MAP1B, not the gene whose alias is "MAP"; asked for drugs, a protein named
  beside the target ("Amyloid") is no drug.
- "amyloid beta" is one name: a title naming copper and amyloid beta does not say whether
  copper speeds fibril assembly. Asked how amyloid beta is cleared, the sentence that holds
  the clearing leads, not a closer one about injecting it.
"""

from __future__ import annotations

import pytest

from biorag.knowledge.mesh import vocabulary
from biorag.loop.extractive import ScoredSentence
from biorag.loop.literature_reading import read_literature
from biorag.understanding.analysis import analyse
from biorag.understanding.entity_linking import find_entities
from biorag.understanding.name_extraction import named_genes
from biorag.understanding.typed_entities import patient_framed
from tests.understanding.literature_records import evidence, ranked, records, wordings

ROWS = records("reading_records.jsonl")


def _ranked(pmid: str, top: float = 0.7) -> list[ScoredSentence]:
    return ranked(evidence(ROWS[pmid]), top)


@pytest.fixture(scope="module")
def read(agent):
    def _read(question: str, ranked: list[ScoredSentence]):
        return read_literature(analyse(question, agent.retrievers, agent.lexicon), ranked, lexicon=agent.lexicon)
    return _read


def test_a_population_after_a_disease_is_no_person_with_a_feature():
    assert not patient_framed("are GSTM1 deletions associated with breast cancer in Tunisian patients?", "breast cancer")
    assert patient_framed("a child with aniridia and cataract", "aniridia")
    assert patient_framed("my son was diagnosed with epilepsy, which gene?", "epilepsy")


@pytest.mark.parametrize("question", [
    *wordings("Are GSTM1 deletions associated with breast cancer in Tunisian patients?"),
    "is GSTM1 deletion associated with breast cancer?", "Is GSTM1 deletion linked to breast cancer in Tunisians?",
    "are gstm1 deletions associated with breast cancer among tunisian women?"])
def test_a_gene_and_a_disease_in_a_population_stay_a_relation_question(agent, question):
    kinds = {e.kind for e in find_entities(question, agent.lexicon) if e.confident}
    assert {"gene", "disease"} <= kinds, question
    analysis = analyse(question, agent.retrievers, agent.lexicon)
    # the gene's card is never the whole answer: the records' link (or the literature) is checked
    assert analysis.intent is None or analysis.intent.checks, (question, analysis.intent)


@pytest.mark.parametrize("question", wordings("Does nasopharyngeal radium irradiation increase cancer risk?"))
def test_little_evidence_for_a_risk_is_a_no(read, question):
    got = read(question, _ranked("12192225"))
    assert got.first_line == "No.", (question, got.first_line, got.reason)
    assert any("little evidence" in s.text for s in got.support)


def test_a_hyphenated_name_with_a_number_is_one_gene(lexicon):
    sentence = "and also inhibits GSK-3 in vivo as shown by the inhibition of MAP-1B phosphorylation."
    assert named_genes(sentence, lexicon) == [("MAP-1B", ("MAP1B",))]
    assert ("IL-6", ("IL6",)) in named_genes("IL-6 levels rose", lexicon)


@pytest.mark.parametrize("question", wordings("Which kinases does hymenialdisine inhibit?"))
def test_kinases_named_in_a_real_abstract_never_include_an_alias_read_inside_a_name(read, question):
    got = read(question, _ranked("10662688"))
    assert got.sufficient and "CDK2" in got.named and "CDK5" in got.named, (question, got.named)
    assert "SGSM3" not in got.named


def test_macromolecule_branches_are_no_drugs():
    by_name = {d.name: d for d in vocabulary().find_in_text("amyloid, insulin, copper, aspirin")}
    assert by_name["Amyloid"].macromolecule_only
    assert not any(by_name[n].macromolecule_only for n in ("Insulin", "Copper", "Aspirin"))


@pytest.mark.parametrize("question", [*wordings("What drugs inhibit BACE1?"), "which compounds inhibit BACE1?",
                                      "Name inhibitors of BACE1"])
def test_asked_for_drugs_a_protein_beside_the_target_is_no_answer(read, question):
    got = read(question, _ranked("22328928"))
    assert "Amyloid" not in got.named and not got.sufficient, (question, got.first_line)


@pytest.mark.parametrize("question", [*wordings("Does copper speed up amyloid beta fibril assembly?"),
                                      "Does copper speed up amyloid-beta fibril assembly?",
                                      "does copper accelerate Aβ fibril assembly?"])
def test_a_title_naming_the_things_but_not_the_process_says_nothing(read, question):
    got = read(question, _ranked("14617772"))
    assert got.first_line not in ("Yes.", "No.") and not got.sufficient, (question, got.first_line)


@pytest.mark.parametrize("question", wordings("How is amyloid beta cleared from the brain interstitium?"))
def test_the_sentence_holding_the_asked_process_leads(read, question):
    # the record about injecting amyloid is closer to the question; the one on clearance holds more of it
    ranked = sorted([*_ranked("20966215", 0.8), *_ranked("22896675", 0.7)], key=lambda s: -s.similarity)
    got = read(question, ranked)
    assert got.sufficient and "[pubmed:22896675]" in got.first_line, (question, got.first_line)


@pytest.mark.parametrize("offer", ["\nAnswer yes, no or maybe.", " Please answer yes, no, or maybe."])
def test_offered_maybe_evidence_that_decides_nothing_is_maybe(read, offer):
    question = "Does copper speed up amyloid beta fibril assembly?"
    got = read(question + offer, _ranked("14617772"))
    assert got.first_line == "Maybe." and got.reason.startswith("maybe") and not got.sufficient
    assert read(question + " Answer yes or no.", _ranked("14617772")).first_line != "Maybe."
    # a reading that decides is not turned into maybe
    assert read("Does nasopharyngeal radium irradiation increase cancer risk?" + offer, _ranked("12192225")).first_line == "No."
