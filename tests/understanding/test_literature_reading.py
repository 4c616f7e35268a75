"""Read, then state (biorag.loop.literature_reading), on real abstracts of the bundled PubMed
sample (indexing/resources/pubmed_sample, PROVENANCE there), without the embedder: each
abstract's sentences are handed over as a retrieval would rank them.

- a yes/no question gets "Yes"/"No" only from a sentence that states it; a negated copy of
  the same real sentence reads No, a hedged copy reads "The evidence does not say";
- a sentence that only announces a study's aim or method never leads, whatever its rank;
- a list question names the things of the asked type its sentences name, never its own;
- sufficient only when a cited sentence mentions the question's entities and answers;
- every wording of a question (case, polite wrappers, "tell me whether") reads the same.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from biorag.contracts.models import Evidence
from biorag.loop.extractive import ScoredSentence, split_sentences
from biorag.loop.literature_reading import cited_line, only_announces, read_literature
from biorag.understanding.analysis import analyse

SAMPLE = Path(__file__).resolve().parents[2] / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"
FRACTURES = Path(__file__).resolve().parents[1] / "data" / "literature" / "vertebral_fracture_records.jsonl"


def _rows() -> dict[str, dict]:
    with gzip.open(SAMPLE, "rt") as f:
        return {str(r["pmid"]): r for r in map(json.loads, f)}


ROWS = _rows()


def _evidence(pmid: str, abstract: str | None = None) -> Evidence:
    r = ROWS[pmid]
    return Evidence(source="pubmed", id=pmid, title=r["title"], text=abstract or r["abstract"],
                    year=r["year"], metadata={"pmid": pmid, "year": r["year"]})


def _ranked(*evidence: Evidence, first: str | None = None) -> list[ScoredSentence]:
    """Every sentence of the records, in their order (a sentence `first` ranked on top)."""
    out = []
    for ev in evidence:
        for i, s in enumerate(split_sentences(ev.text)):
            out.append(ScoredSentence(s, ev, 0.9 if s == first else round(0.6 - 0.01 * i, 4)))
    return sorted(out, key=lambda s: -s.similarity)


def _wordings(question: str) -> list[str]:
    bare = question.rstrip("?")
    low = bare[0].lower() + bare[1:]
    return [question, question.lower(), f"Quick question: {low}?", f"{bare}? thanks"]


@pytest.fixture(scope="module")
def read(agent):
    def _read(question: str, ranked: list[ScoredSentence], **kw):
        return read_literature(analyse(question, agent.retrievers, agent.lexicon), ranked, lexicon=agent.lexicon, **kw)
    return _read


# (question, PMID, the answer its abstract states)
YES_NO = [
    ("Does estrogen replacement therapy slow disease progression in Alzheimer disease?", "10697060", "No"),
    ("Does the apolipoprotein E epsilon4 allele predict donepezil treatment failure?", "10634454", "No"),
    ("Does cyclosporin A affect tau phosphorylation?", "10681533", "No"),
    ("Is blood pressure associated with the risk for dementia in treated men?", "10794848", "No"),
    ("Does O-GlcNAc modification hinder tau oligomerization?", "22366723", "Yes"),
]


@pytest.mark.parametrize("question, pmid, stated", YES_NO)
def test_a_yes_no_question_gets_what_its_abstract_states_in_every_wording(read, question, pmid, stated):
    ev = _evidence(pmid)
    for q in _wordings(question):
        r = read(q, _ranked(ev))
        assert r.kind == "yes_no" and r.sufficient, (q, r.reason)
        assert r.first_line == f"{stated}.", (q, r.text)
        assert r.support and all(s.evidence.id == pmid for s in r.support)
        assert f"[pubmed:{pmid}] ({ROWS[pmid]['year']})" in r.text.splitlines()[1]


def test_negation_and_hedging_are_read_on_the_same_real_sentence(read):
    """The abstract's own finding, then the same sentence denied and hedged."""
    pmid = "22366723"
    finding = "Using in vitro biochemical aggregation studies, we found that O-GlcNAc modification, on its own, hinders tau oligomerization."
    assert finding in ROWS[pmid]["abstract"]
    q = "Does O-GlcNAc modification hinder tau oligomerization?"
    rest = [s for s in split_sentences(ROWS[pmid]["abstract"]) if "oligomerization" not in s and "aggregat" not in s
            and "hinder" not in s]
    for sentence, expected in ((finding, "Yes."),
                               (finding.replace("hinders", "does not hinder"), "No."),
                               (finding.replace("hinders", "may hinder"), "The evidence does not say."),
                               (finding.replace("we found that", "it remains unclear whether"), "The evidence does not say.")):
        ev = _evidence(pmid, " ".join([sentence, *rest]))
        r = read(q, _ranked(ev))
        assert r.first_line == expected, (sentence, r.text)
        assert r.sufficient == (expected in ("Yes.", "No."))


def test_a_yes_no_claim_about_another_subject_is_not_answered(read):
    """The abstract's finding on blood pressure and dementia in treated men answers its own
    question, not the same question asked of a diet: the sentence shares the topic words
    ("risk", "dementia", "treated men") but not the subject the claim is about."""
    ev = _evidence("10794848")
    own = read("Is blood pressure associated with the risk for dementia in treated men?", _ranked(ev))
    assert own.sufficient and own.first_line == "No.", own.text
    for q in _wordings("Is a healthy diet associated with the risk for dementia in treated men?"):
        r = read(q, _ranked(ev))
        assert not r.sufficient and r.first_line == "The evidence does not say.", (q, r.text)


@pytest.mark.parametrize("written", ["amyloid-beta {n}", "Aβ{n}", "Abeta{n}", "Aβ-{n}", "A-beta {n}"])
def test_a_number_the_question_gives_must_be_in_the_sentence(read, written):
    """"Abeta42" answers for amyloid-beta 42, not for amyloid-beta 43, however the question
    writes the name: the same real sentence ("... elevated secretion of Abeta, especially the
    more amyloidogenic Abeta42")."""
    ev = _evidence("10623648")
    for n, expected in (("42", "Yes."), ("43", "The evidence does not say.")):
        for q in _wordings(f"Do presenilin 1 mutations elevate the secretion of {written.format(n=n)}?"):
            r = read(q, _ranked(ev))
            assert r.first_line == expected, (q, r.text)
            assert r.sufficient == (expected == "Yes."), (q, r.text)


def test_an_initialism_the_record_does_not_define_stands_for_the_questions_words(read):
    """10681545 writes "Abeta(1-42)" and never defines it in brackets: the claim's subject
    ("amyloid-beta") is held by its initials, β read as B, so the finding answers."""
    ev = _evidence("10681545")
    finding = next(s for s in split_sentences(ev.text) if s.startswith("Because Abeta(1-42) inhibits"))
    for q in _wordings("Does amyloid-beta 1-42 inhibit acetylcholine release?"):
        r = read(q, _ranked(ev))
        assert r.sufficient and r.first_line == "Yes." and r.support[0].text == finding, (q, r.text)


@pytest.mark.parametrize("written", ["Abeta(1-42)", "Aβ1-42", "Abeta 1-42", "amyloid-beta 1-42"])
def test_the_questions_initialism_reads_as_the_records(read, written):
    """The question may write the initialism itself, with β or spelled, and the record the
    other way: "Aβ1-42" in a question and "Abeta(1-42)" in 10681545 are one name."""
    ev = _evidence("10681545")
    finding = next(s for s in split_sentences(ev.text) if s.startswith("Because Abeta(1-42) inhibits"))
    for q in _wordings(f"Does {written} inhibit acetylcholine release?"):
        r = read(q, _ranked(ev))
        assert r.sufficient and r.first_line == "Yes." and r.support[0].text == finding, (q, r.text)


def test_a_superlative_is_a_comparison_the_sentence_must_make(read):
    """10668712 says which form of vascular cognitive impairment was the most prevalent; asked
    whether it was the most severe, the same sentence holds every name but not the
    comparison, and answers nothing."""
    ev = _evidence("10668712")
    finding = next(s for s in split_sentences(ev.text) if "the most prevalent form" in s)
    asked = "Is vascular cognitive impairment without dementia the most {} form of vascular cognitive impairment?"
    for q in _wordings(asked.format("prevalent")):
        r = read(q, _ranked(ev))
        assert r.sufficient and r.first_line == "Yes." and r.support[0].text == finding, (q, r.text)
    for q in _wordings(asked.format("severe")):
        r = read(q, _ranked(ev))
        assert not r.sufficient and r.first_line == "The evidence does not say.", (q, r.text)


def _fracture_records() -> dict[str, Evidence]:
    rows = [json.loads(line) for line in FRACTURES.read_text(encoding="utf-8").splitlines()]
    return {str(r["pmid"]): Evidence(source="pubmed", id=str(r["pmid"]), title=r["title"], text=r["abstract"],
                                     year=r["year"], metadata={"pmid": str(r["pmid"])}) for r in rows}


# (question, the sentence that answers it, the sentences that never may): "conclusion" and
# "method" of the metastases paper, "trials" of the osteoporosis paper, "relief"; the
# conclusion is about kyphoplasty, never vertebroplasty, though "vertebral" begins alike
OTHER_PATIENTS = [
    ("Does kyphoplasty improve pain in vertebral fractures due to metastases?", "conclusion", ("trials",)),
    ("Does kyphoplasty improve pain in osteoporotic vertebral fractures?", "trials", ("conclusion", "method")),
    ("Does vertebroplasty relieve pain in osteoporotic fractures?", "relief", ("conclusion",)),
    ("Does vertebroplasty relieve pain in vertebral fractures due to metastases?", None, ("relief", "conclusion")),
]


@pytest.mark.parametrize("question, answers, never", OTHER_PATIENTS)
def test_a_condition_given_another_cause_is_about_other_patients(read, question, answers, never):
    """Real abstracts on vertebral fractures of two causes, whichever sentence is ranked
    first. The metastases paper's conclusion (29634678: "... in pathological vertebral
    compression fractures due to vertebral metastases") answers for fractures due to
    metastases, never for osteoporotic ones, nor does its "Kyphoplasty is a surgical method
    ... that can reduce pain" under a title on metastases. "For kyphoplasty, randomized
    controlled trials showed significant improvements in pain ..." answers for the patients
    of its title, "Vertebral fractures due to osteoporosis" (20232195). "... pain relief in a
    high percentage of patients with osteoporotic fractures" (22818832) answers for
    osteoporotic fractures, never for those due to metastases."""
    evs = _fracture_records()
    metastases = split_sentences(evs["29634678"].text)
    said = {"conclusion": next(s for s in metastases if s.startswith("CONCLUSIONS")),
            "method": next(s for s in metastases if s.startswith("Kyphoplasty is a surgical method")),
            "trials": next(s for s in split_sentences(evs["20232195"].text) if s.startswith("For kyphoplasty")),
            "relief": split_sentences(evs["22818832"].text)[0]}
    for first in said.values():
        ranked = _ranked(*evs.values(), first=first)
        for q in _wordings(question):
            r = read(q, ranked)
            if answers:
                assert r.sufficient and r.first_line == "Yes." and r.support[0].text == said[answers], (q, r.text)
            assert all(s.text != said[n] for s in r.support for n in never), (q, r.text)


def test_an_aim_or_method_sentence_never_leads_even_ranked_first(read):
    """For every sample abstract that announces its aim or method: the question is its own
    title, the announcing sentence ranked on top; the answer never opens with it."""
    checked = 0
    for pmid, r in ROWS.items():
        sentences = split_sentences(r["abstract"] or "")
        aims = [s for s in sentences if only_announces(s)]
        if not aims or len(sentences) < 3:
            continue
        ev = _evidence(pmid)
        got = read(f"What is known about {r['title'].rstrip('.')}?", _ranked(ev, first=aims[0]))
        if got.support:
            assert not only_announces(got.support[0].text), (pmid, got.text)
            assert got.first_line != cited_line(ScoredSentence(aims[0], ev, 0.9))
        checked += 1
    assert checked >= 60


def test_a_list_question_names_things_of_the_asked_type_not_its_own(read):
    pmid = "10697060"  # estrogen in Alzheimer disease
    r = read("Which drugs were tested in women with Alzheimer disease?", _ranked(_evidence(pmid)))
    assert r.kind == "list" and r.sufficient, r.reason
    assert "Estrogens" in r.named or "Estradiol" in r.named, r.named
    assert not {"Alzheimer Disease"} & set(r.named)
    assert r.first_line.split(", ")[0] == r.named[0]


@pytest.mark.parametrize("question, pmid, variants, other", [
    ("Which alpha-synuclein mutations are associated with Parkinson's disease?", "10781096", ["A53T", "A30P"], "SNCA"),
    ("Which CLU variants are associated with Alzheimer's disease?", "19734903", ["rs11136000"], "APOE"),
])
def test_variants_of_a_named_gene_are_named_not_other_genes(read, question, pmid, variants, other):
    """Asked for the variants of a gene it names, a list question names the rsIDs and protein
    changes its sentences give, as written, never genes; asked for the genes that have
    variants, the same abstract gives genes."""
    ev = _evidence(pmid)
    bare = question.rstrip("?")
    gene_first = bare.split()[1]
    for q in (*_wordings(question), bare.replace(f"{gene_first} ", "").replace(" are ", f" of {gene_first} are ", 1)):
        r = read(q, _ranked(ev))
        assert r.kind == "list" and r.sufficient, (q, r.reason)
        assert all(v in r.first_line.split(", ") for v in variants), (q, r.first_line)
        assert other not in r.first_line, (q, r.first_line)
    r = read("Which genes have variants associated with Alzheimer's disease?", _ranked(_evidence("19734903")))
    assert {"CLU", "CR1"} <= set(r.first_line.split(", ")), r.first_line


def test_an_answer_about_other_entities_is_not_sufficient(read):
    """Real sentences about estrogen in Alzheimer disease do not answer for Parkinson disease."""
    ev = _evidence("10697060")
    for q in ("Does estrogen replacement therapy slow disease progression in Parkinson disease?",
              "How does estrogen act in Huntington disease?"):
        r = read(q, _ranked(ev))
        assert not r.sufficient and r.reason, (q, r.text)


def test_a_list_question_naming_no_known_entity_is_tied_by_its_topic_words(read):
    """A list question whose subject no dictionary knows ("hymenialdisine", a sponge
    compound) has only its topic words to tie a sentence to it: a real abstract about that
    compound answers it, and the same abstract does not answer for another compound (its
    kinases were listed as the answer, marked sufficient)."""
    ev = _evidence("10662688")  # hymenialdisine inhibits CDKs, GSK-3beta and CK1
    r = read("Which kinases does hymenialdisine inhibit?", _ranked(ev))
    assert r.kind == "list" and r.sufficient and {"CDK5", "GSK3B"} & set(r.named), (r.reason, r.named)
    r = read("Which kinases does bryostatin inhibit?", _ranked(ev))
    assert r.kind == "list" and not r.sufficient, r.named


def test_genes_written_out_or_hyphenated_are_named_by_their_symbol(read):
    """Abstracts name genes in words ("caspase-2") and by hyphenated aliases: each is its
    gene's symbol in a list answer, in every wording. A family named in words ("casein
    kinase") is no one gene: the hymenialdisine abstract's answer never names the gene that
    holds "casein kinase" among its designations."""
    ev = _evidence("10638761")  # caspases: caspase-8 downstream of death receptors
    for q in _wordings("Which enzyme mediates signal transduction downstream of death receptors?"):
        r = read(q, _ranked(ev))
        assert r.kind == "list" and r.sufficient, (q, r.reason)
        assert r.named[0] == "CASP8", (q, r.named)
    r = read("Which kinases does hymenialdisine inhibit?", _ranked(_evidence("10662688")))
    assert "PDIK1L" not in r.named, r.named


def test_a_gene_written_in_lower_case_is_named_and_the_topical_sentence_leads(read):
    """Abstracts write genes as the lab does ("cdk5", "furin"): a lower-case word that is a
    gene's symbol and no English word is that gene. Of the genes named, the one in the
    sentence holding the question's topic words ("phosphorylation of MEF2") comes first."""
    ev = _evidence("16407541")  # calpain-p35-p25/cdk5 inactivates MEF2 after MPTP
    for q in _wordings("Which kinase phosphorylates MEF2 after MPTP treatment?"):
        r = read(q, _ranked(ev))
        assert r.kind == "list" and r.sufficient, (q, r.reason)
        assert r.named[0] == "CDK5", (q, r.named)


def test_an_effect_question_is_led_by_a_sentence_that_says_which_way_it_went(read):
    """"Effects of testosterone on cognition and mood in ..." is the study's title, not its
    finding: asked for an effect, the answer leads with a sentence that states one."""
    ev = _evidence("16344336")
    titles = [ScoredSentence(ev.title, ev, 0.95)]
    for q in _wordings("What is the effect of testosterone on quality of life in Alzheimer disease?"):
        r = read(q, _ranked(ev), titles=titles)
        assert r.kind == "how" and r.sufficient, (q, r.reason)
        assert not r.first_line.startswith(ev.title), (q, r.first_line)
        assert "significantly greater improvements" in r.first_line, (q, r.first_line)


def test_a_how_question_gets_the_mechanism_sentence_of_the_leading_record(read):
    """An abstract names the question's subject once and its mechanism in a later sentence
    that does not repeat it: asked how, the answer quotes that sentence after the lead, from
    the same record, and never a background sentence that says the mechanism is unknown."""
    ev = _evidence("16407541")  # calpain-p35-p25/cdk5 inactivates MEF2 after MPTP
    titles = [ScoredSentence(ev.title, ev, 0.9)]
    for q in _wordings("How does MPTP cause dopaminergic neuron loss?"):
        r = read(q, _ranked(ev), titles=titles)
        assert r.kind == "how" and r.sufficient, (q, r.reason)
        second = r.text.splitlines()[1]
        assert "downstream effector pathway of calpains" in second, (q, r.text)


@pytest.mark.parametrize("question, pmid", [
    ("How does APP locus duplication cause Alzheimer disease?", "16369530"),
    ("Why is acetylated tau a signature of Alzheimer's disease?", "22366796"),
])
def test_a_name_line_is_no_answer_to_how(read, question, pmid):
    """A real title that names the question's entities together says that they are linked,
    not how: asked how or why, it is quoted but the answer is not sufficient. A title that
    says through what ("Dendritic function of tau mediates amyloid-beta toxicity") is one."""
    for q in _wordings(question):
        r = read(q, _ranked(_title_only(pmid)))
        assert r.kind == "how" and not r.sufficient, (q, r.text)
        assert "says how" in r.reason and pmid in r.text, (q, r.reason, r.text)
    r = read("How does tau cause amyloid-beta toxicity in Alzheimer's disease?", _ranked(_title_only("20655099")))
    assert r.sufficient, r.reason


def _title_only(pmid: str) -> Evidence:
    row = ROWS[pmid]
    return Evidence(source="pubmed", id=pmid, title=row["title"], text=row["title"], year=row["year"],
                    metadata={"pmid": pmid, "year": row["year"]})


def test_a_sentence_that_states_leads_one_that_says_it_is_unknown(read):
    """The abstract's first sentence ends "the neurobiologic basis of this protective effect
    remains unknown": closest to the question, it must not lead while the abstract states a
    finding about the same names."""
    ev = _evidence("22566582")  # purpose in life and Alzheimer disease pathology
    for q in _wordings("Why is purpose in life linked to Alzheimer disease?"):
        r = read(q, _ranked(ev))
        assert r.kind == "how" and r.sufficient, (q, r.reason)
        assert "remains unknown" not in r.first_line, (q, r.first_line)


def test_a_negation_the_claim_makes_is_not_a_denial():
    """"without dementia" in the question names a condition; the same words in the sentence do
    not deny the claim. Any other negation still does."""
    from biorag.loop.sentence_cues import claimed_negations, negated
    from biorag.understanding.intent import normalise

    claimed = claimed_negations(normalise("Is cognitive impairment without dementia the most prevalent form?"))
    assert claimed == ("without dementia",)
    finding = "Vascular cognitive impairment without dementia was the most prevalent form."
    assert negated(finding) and not negated(finding, claimed)
    assert negated("Cognitive impairment without dementia was not the most prevalent form.", claimed)
    assert negated("Treatment without dementia care did not help.", claimed)


def test_presence_or_absence_and_with_or_without_deny_nothing():
    """"with or without concurrent vascular risk factors" (10809936) and "in the presence or
    absence of the other" (22397651) name both cases; a real denial beside them still counts."""
    from biorag.loop.sentence_cues import negated

    sentences = {pmid: s for pmid in ("10809936", "22397651") for s in split_sentences(ROWS[pmid]["abstract"])
                 if "with or without" in s or "presence or absence of" in s}
    assert not negated(sentences["10809936"])
    assert negated(sentences["22397651"])  # "did not differ significantly"
    assert not negated(sentences["22397651"].replace("did not differ", "differed"))


def test_a_name_read_as_two_kinds_is_named_once_in_the_reason(agent):
    """With the HPO store loaded, "Alzheimer disease" is read both as a feature and as a
    disease (the entities below are that analysis's): the reason names it once."""
    from dataclasses import replace

    from biorag.understanding.question_model import Entity

    question = "How does BIN1 affect tau pathology in Alzheimer disease?"
    analysis = analyse(question, agent.retrievers, agent.lexicon)
    analysis = replace(analysis, entities=[Entity("gene", "BIN1", True, ("BIN1",), "symbol"),
                                           Entity("phenotype", "alzheimer disease", True, ("Alzheimer disease",)),
                                           Entity("disease", "Alzheimer disease", True, ("Alzheimer disease",))])
    r = read_literature(analysis, _ranked(_evidence("10697060")), lexicon=agent.lexicon)
    assert not r.sufficient
    assert r.reason.lower().count("alzheimer disease") == 1 and "Alzheimer disease" in r.reason, r.reason


def test_an_alias_before_kinase_names_a_family_not_the_alias_gene(read, agent):
    """"MAP kinases" is a family; SGSM3, one of whose aliases is "MAP", is not named for it
    (it was, and a "Which kinase phosphorylates tau?" was answered "SGSM3"). The linker still
    reads "MAP" as SGSM3's alias; the reader leaves it out for the word after it."""
    from biorag.loop.literature_question import read_question
    from biorag.loop.named_things import _named_genes
    from biorag.understanding.name_extraction import named_genes

    sentence = ("Thus, the three MAP kinases and GSK3beta are importantly all strong candidates as tau "
                "kinases that may be involved in hyperphosphorylation")
    q = read_question(analyse("Which kinases phosphorylate tau?", agent.retrievers, agent.lexicon))
    named = _named_genes(sentence, q, agent.lexicon)
    assert ("MAP", ("SGSM3",)) in named_genes(sentence, agent.lexicon)
    assert "SGSM3" not in named, named
    for q_text in _wordings("Which kinases phosphorylate tau?"):
        r = read(q_text, _ranked(_evidence("10737616")))
        assert "SGSM3" not in r.named, (q_text, r.named)


def test_a_condition_in_the_absence_of_something_denies_nothing():
    """"NFT-like tau pathology in the absence of Abeta deposition" states a finding under a
    condition; a sentence that also says "no" or "not" still denies (real sample sentences)."""
    from biorag.loop.sentence_cues import negated

    def sentence(pmid: str) -> str:
        return next(s for s in split_sentences(ROWS[pmid]["abstract"]) if "in the absence of" in s)

    for pmid in ("10693932", "16377636", "16625204"):
        assert not negated(sentence(pmid)), sentence(pmid)
    for pmid in ("10852539", "16571759"):  # "no neuritic degeneration", "are not impaired"
        assert negated(sentence(pmid)), sentence(pmid)


def test_a_disease_name_is_found_with_or_without_its_possessive():
    """Every sample sentence that writes "Alzheimer's disease" is found by "Alzheimer
    disease" and the reverse; "Alzheimer" alone, or another word after it, is not."""
    from biorag.loop.sentence_cues import name_pattern

    sentences = [s for r in ROWS.values() for s in split_sentences(r["abstract"])]
    possessive = [s for s in sentences if "Alzheimer's disease" in s]
    plain = [s for s in sentences if "Alzheimer disease" in s]
    assert len(possessive) > 50 and len(plain) > 10, (len(possessive), len(plain))
    assert all(name_pattern("Alzheimer disease").search(s.lower()) for s in possessive)
    assert all(name_pattern("Alzheimer's disease").search(s.lower()) for s in plain)
    for other in ("Alzheimer-type dementia", "Alzheimer's pathology", "Alzheimers dementia"):
        assert not name_pattern("Alzheimer disease").search(other.lower()), other


def _record(name: str) -> Evidence:
    """A record of tests/data/literature (PROVENANCE there)."""
    r = json.loads((Path(__file__).resolve().parents[1] / "data" / "literature" / name).read_text())
    return Evidence(source="pubmed", id=r["pmid"], title=r["title"], text=r["abstract"], year=int(r["year"]),
                    metadata={"pmid": r["pmid"], "year": r["year"]})


def test_a_variant_said_to_protect_is_no_answer_to_what_causes(read):
    """22801501's A673T "protects against Alzheimer's disease": asked which APP mutations
    cause the disease, it is no answer (insufficient); asked which protect, it is."""
    ev = _record("app_protective_variant_record.jsonl")
    for question in ("Which mutations in APP cause Alzheimer disease?", "which APP variants cause alzheimer's disease"):
        got = read(question, _ranked(ev))
        assert not got.sufficient and "A673T" not in got.first_line, (question, got.first_line)
    got = read("Which APP variants protect against Alzheimer disease?", _ranked(ev))
    assert got.sufficient and got.first_line == "A673T", got.first_line


@pytest.mark.parametrize("written", ["vitamin {l}", "Vitamin {l}", "VITAMIN {l}", "vitamin-{l}"])
def test_a_lettered_name_must_be_in_the_sentence(agent, written):
    """A letter that says which one ("vitamin D") is part of the name: 10681271's real sentence
    on vitamin E answers a question on vitamin E, never one on vitamin D, though they share
    every other word, in any case."""
    from biorag.loop.literature_question import mentions, read_question

    sentence = "The results indicated that vitamin E may slow functional deterioration leading to nursing home placement."
    for letter, expected in (("E", True), ("D", False)):
        name = written.format(l=letter)
        for q in _wordings(f"Does {name} slow functional deterioration?"):
            read = read_question(analyse(q, agent.retrievers, agent.lexicon))
            assert mentions(sentence, read, _evidence("10681271")) is expected, (q, read.lettered)


def test_asked_how_common_a_sentence_must_say_how_common(read):
    """A real sentence that names Alzheimer's disease and its risk (10737598) does not say how
    common it is; 22236802's "Prevalence of Alzheimer's disease in people with Down's syndrome
    is very high" does, and leads though ranked below it."""
    risk = _evidence("10737598")
    prevalence = _evidence("22236802")
    for q in _wordings("What is the prevalence of Alzheimer's disease?"):
        r = read(q, _ranked(risk))
        assert not r.sufficient and "states how common it is" in r.reason, (q, r.text)
        ranked = _ranked(risk) + [s for s in _ranked(prevalence) if s.text.startswith("Prevalence")]
        ranked = [ScoredSentence(s.text, s.evidence, 0.5 if s.evidence is prevalence else s.similarity) for s in ranked]
        r = read(q, ranked)
        assert r.sufficient and r.support[0].text.startswith("Prevalence of Alzheimer"), (q, r.text)


def test_asked_how_two_things_differ_a_sentence_must_compare_them(read):
    """22622580's "expression of APOE4 ..., but not APOE2 and APOE3, leads to BBB breakdown"
    compares the isoforms; asked for a risk, 10737598's "increases the risk for Alzheimer's
    disease" states one."""
    for q in _wordings("How do APOE3 and APOE4 differ?"):
        r = read(q, _ranked(_evidence("22622580")))
        assert r.sufficient and "but not APOE2 and APOE3" in r.support[0].text, (q, r.text)
    for q in _wordings("What is the risk of Alzheimer's disease for carriers of the apoE epsilon4 allele?"):
        r = read(q, _ranked(_evidence("10737598")))
        assert r.sufficient and "increases the risk" in r.support[0].text, (q, r.text)


def test_asked_for_the_most_common_one_a_sentence_must_rank_it(read):
    """"What is the most common cause of dementia?": 22170863's "A mutation in the BRI2/ITM2b
    gene causes loss of BRI2 protein leading to familial Danish dementia" names a cause of a
    dementia, not the most common one; 16426772's "Alzheimer's disease (AD) is the most common
    cause of dementia in humans" does, and leads though ranked below it."""
    other, ranking = _evidence("22170863"), _evidence("16426772")
    for q in _wordings("What is the most common cause of dementia?"):
        r = read(q, _ranked(other))
        assert not r.sufficient and "names the most common cause" in r.reason, (q, r.text)
        ranked = _ranked(other) + [ScoredSentence(s.text, s.evidence, 0.3) for s in _ranked(ranking)]
        r = read(q, ranked)
        assert r.sufficient and r.support[0].text.startswith("Alzheimer's disease (AD) is the most common cause"), (q, r.text)
