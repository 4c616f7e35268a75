"""Options that are genes, a stem that asks for a class: "Which of these genes encodes a kinase?
A) TP53 B) BRAF ...". The class is read from each option's names (HGNC full name, NCBI's other
designations, HGNC gene groups), in the name's head only.

The generated questions take their gold from a field the reader never reads, HGNC's EC numbers,
as `benchmarks/gene_class_options.py` draws them (its docstring says how). Each question is
asked again in another option order, letter style, case, polite wrapping and without "genes":
the choice must not change, and at least 0.9 must be right."""

from __future__ import annotations

import pytest

from benchmarks.gene_class_options import STEMS, drawn, gold_pools
from tests.hgnc_rows import approved_hgnc_rows
from tests.understanding.test_option_subjects import STYLES, _ask, right_however_written


@pytest.fixture(scope="module")
def pools(store_path):
    found = gold_pools(store_path, approved_hgnc_rows())
    assert len(found["kinase"][0]) > 100 and len(found["enzyme"][0]) > 1000, {k: len(v[0]) for k, v in found.items()}
    return found


@pytest.fixture(scope="module")
def questions(pools):
    return {k: (STEMS[k], drawn(*pools[k], 10, seed)) for seed, k in enumerate(("kinase", "enzyme"), 1)}


@pytest.mark.parametrize("kind", ["kinase", "enzyme"])
def test_the_option_whose_names_state_the_class_is_chosen_however_written(agent, questions, kind):
    stem, drawn = questions[kind]
    share = right_however_written(agent, [(stem, symbols) for symbols in drawn], 5)
    assert share >= 0.9, (kind, share)


def test_asked_for_the_one_that_is_not_it_never_chooses_a_member(agent, pools):
    """"Which of these does not encode an enzyme?" among three genes with EC numbers: the one
    without; where an EC gene's names do not say it is an enzyme, two options are left and
    none is chosen (never a gene with an EC number)."""
    right = 0
    questions = drawn(*pools["not_enzyme"], 20, 3)
    for symbols in questions:
        chosen = _ask(agent, STEMS["not_enzyme"], symbols, [0, 1, 2, 3], STYLES[0])
        assert chosen in (0, None), (symbols, chosen)
        right += chosen == 0
    assert right >= 0.7 * len(questions), right


@pytest.mark.parametrize(("question", "first", "said"), [
    ("Which of the following genes encodes a kinase? A) TP53 B) BRAF C) BRCA2 D) APOE", "BRAF (option B)",
     "B-Raf proto-oncogene, serine/threonine kinase (full name)"),
    ("which one of these encodes a receptor tyrosine kinase: (a) BRAF (b) EGFR (c) AKT1 (d) TP53", "EGFR (option b)",
     "receptor tyrosine-protein kinase erbB-1 (other designation)"),
    ("Which of the following is a proto-oncogene? (a) PTEN (b) APC (c) MYC (d) VHL", "MYC (option c)",
     "MYC proto-oncogene, bHLH transcription factor (full name)"),
    ("Which of these encodes an ion channel? A) CFTR B) INS C) ALB D) GAPDH", "CFTR (option A)",
     "cAMP-dependent chloride channel (other designation)"),
    ("Which of the following is a transcription factor? A) SOX9 B) COL1A1 C) ACTB D) HBB", "SOX9 (option A)",
     "SRY-box transcription factor 9 (full name)"),
    # "tumor" alone is a phenotype, "E3" alone an alias: inside a class they are the class
    ("Which of the following is a tumor suppressor gene? A) KRAS B) TP53 C) MYC D) EGFR", "TP53 (option B)",
     "tumor supressor p53 (other designation)"),
    ("Which of these is an E3 ubiquitin ligase? A) MDM2 B) TP53 C) CDKN1A D) RB1", "MDM2 (option A)",
     "E3 ubiquitin-protein ligase Mdm2 (other designation)"),
    ("Which of these genes is NOT a tumor suppressor? A) TP53 B) APC C) KRAS D) VHL", "KRAS (option C)",
     "none of its names states tumor suppressor; each other option's does"),
])
def test_a_class_is_read_from_the_head_of_a_name(agent, question, first, said):
    answer = agent.answer(question)
    lines = answer.answer.splitlines()
    assert answer.sufficient and lines[0] == first and said in lines[1], answer.answer


@pytest.mark.parametrize("question", [
    # RB1 is a tumour suppressor, but none of its names says so: no answer, never a guess
    "Which of the following is a tumor suppressor? A) KRAS B) RB1 C) MYC D) EGFR",
    # CDKN2A's "cyclin dependent kinase inhibitor 2A" is headed by "inhibitor"
    "Which of the following is a kinase inhibitor? A) CDKN2A B) BRAF C) TP53 D) APOE",
])
def test_what_no_name_states_is_not_answered(agent, question):
    answer = agent.answer(question)
    assert not answer.sufficient and "(option" not in answer.answer, answer.answer
    # each option's record was read for the class; no other record of theirs is asked
    asked = {e.retriever for e in answer.trace if e.step == "retrieve"}
    assert asked <= {"gene", "pubmed", "web"}, asked


def test_the_same_class_word_routes_by_what_is_asked(agent):
    """A class word is a class asked only of options that are genes; "Which kinase
    phosphorylates tau?" asks who does something, and "Is BRAF on chromosome 7?" is no class
    question even among options naming kinases."""
    from biorag.understanding.analysis import analyse

    sources = agent.retrievers
    asked = analyse("Which of these genes encodes a kinase? A) TP53 B) BRAF C) APOE", sources, agent.lexicon)
    assert asked.intent.kind == "gene_class" and asked.subject_options.gene_class is not None
    for question in ("Which kinase phosphorylates tau?",
                     "Which kinase phosphorylates tau? A) GSK3B B) APOE C) PSEN1 D) APP",
                     "Which of these kinases is on chromosome 7? A) BRAF B) AKT1 C) MTOR",
                     "Which tumor suppressor is mutated in retinoblastoma? A) RB1 B) TP53 C) APC D) VHL"):
        read = analyse(question, sources, agent.lexicon)
        assert read.intent is None or read.intent.kind != "gene_class", (question, read.intent)
        assert read.subject_options is None or read.subject_options.gene_class is None, question
    # words after the class ask something of it: the disease's genes answer, not a class
    answer = agent.answer("Which tumor suppressor is mutated in retinoblastoma? A) RB1 B) TP53 C) APC D) VHL")
    assert answer.sufficient and answer.answer.splitlines()[0] == "RB1 (option A)", answer.answer


@pytest.mark.parametrize(("name", "cls", "expected"), [
    # real names (HGNC, NCBI gene_info), read by their heads
    ("B-Raf proto-oncogene, serine/threonine kinase", "kinase", True),
    ("B-Raf proto-oncogene, serine/threonine kinase", "proto-oncogene", True),
    ("cyclin dependent kinase inhibitor 2A", "kinase", False),
    ("protein kinase cAMP-dependent type I regulatory subunit alpha", "kinase", False),
    ("protein kinase cAMP-activated catalytic subunit alpha", "kinase", True),
    ("protein phosphatase 1, regulatory subunit 46", "phosphatase", False),
    ("KRAS proto-oncogene, GTPase", "GTPase", True),
    ("sodium voltage-gated channel alpha subunit 5", "ion channel", True),
    ("urine water channel", "ion channel", False),
    ("glutamate ionotropic receptor NMDA type subunit 1", "receptor", True),
    ("tumor supressor p53", "tumor suppressor", True),
    ("transcription factor SOX-9", "transcription factor", True),
    ("insulin receptor substrate 1", "receptor", False),
    ("hexokinase 1", "kinase", True),
    ("serine/threonine-protein kinase/endoribonuclease IRE1", "kinase", True),
    # "non-" says what it is not (PTPN11, and ABL1's kinase is no receptor tyrosine kinase)
    ("protein tyrosine phosphatase non-receptor type 11", "receptor", False),
    ("protein tyrosine phosphatase non-receptor type 11", "phosphatase", True),
])
def test_a_name_states_a_class_only_in_its_head(name, cls, expected):
    from biorag.knowledge.gene_classes import CLASSES, stating

    gene_class = next(c for c in CLASSES if c.name == cls)
    assert stating(gene_class, name) is expected


def test_a_word_after_non_is_no_narrowing_of_the_class():
    from biorag.knowledge.gene_classes import CLASSES, stating

    tyrosine_kinase = next(c for c in CLASSES if c.name == "tyrosine kinase")
    name = "ABL proto-oncogene 1, non-receptor tyrosine kinase"  # ABL1's HGNC name
    assert stating(tyrosine_kinase, name) and not stating(tyrosine_kinase, name, ["receptor"])


@pytest.mark.parametrize("question", [
    "What kind of protein does BRAF encode?",
    "what type of protein is encoded by braf",
    "Hi! Could you tell me what class of protein BRAF encodes? Thanks",
    "BRAF: what kind of protein?",
])
def test_what_kind_of_protein_a_gene_encodes_is_its_classes_first(agent, question):
    """Asked of a named gene, the classes its names state come first (the narrowest: not
    "kinase" beside "serine/threonine kinase"), then the names that say so."""
    answer = agent.answer(question)
    first = answer.answer.splitlines()[0]
    assert answer.sufficient and first.startswith("serine/threonine kinase, proto-oncogene \u2014 named so in: "), first
    assert "(full name)" in first


def test_what_kind_of_protein_a_kinase_encodes_is_kinase_however_asked(agent, pools):
    """Of ten genes with a protein-kinase EC number (HGNC's, which the reader never reads),
    asked three ways: the first line names a kinase class, the same line in every wording."""
    kinases, _ = pools["kinase"]
    for symbol in drawn(kinases, kinases, 10, 9):
        symbol = symbol[0]
        firsts = {agent.answer(q.format(symbol)).answer.splitlines()[0]
                  for q in ("What kind of protein does {} encode?", "{}: what type of protein?",
                            "please tell me what class of protein {} is, thanks")}
        assert len(firsts) == 1, (symbol, firsts)
        classes = firsts.pop().split(" \u2014 ")[0]
        assert "kinase" in classes, (symbol, classes)


def test_a_gene_whose_names_state_no_class_is_not_answered_and_gene_type_stays(agent):
    answer = agent.answer("What kind of protein does RB1 encode?")
    assert not answer.sufficient and "no name of the gene states what class" in answer.answer, answer.answer
    # "what type of gene" asks the gene's type (protein-coding, ncRNA), not its product's class
    assert agent.answer("What type of gene is BRAF?").answer.splitlines()[0] == "protein-coding"


@pytest.mark.parametrize("question", [
    "Is TP53 a tumor suppressor gene?", "Is TP53 a tumour suppressor?", "does tp53 encode a tumor suppressor?",
    "Could you tell me: is TP53 a tumor suppressor gene? Thanks",
])
def test_whether_a_named_gene_is_of_a_class_is_a_claim_for_the_literature(agent, question):
    """Asked of one named gene, a class is a claim about it for the literature, however
    worded: never the genes of HPO's "Neoplasm" that "tumor" alone would give (it did, marked
    sufficient). The gene's names are not read for it: where they do not state it (RB1) only
    the literature could say, and a record that does not answer does not yet hand over to it."""
    from biorag.understanding.analysis import analyse

    read = analyse(question, agent.retrievers, agent.lexicon)
    assert read.intent is None and read.free_text and read.asks is not None and read.asks.yes_no, question
    assert [(e.kind, e.text) for e in read.entities] == [("gene", "TP53")], read.entities


def test_a_class_question_of_a_gene_routes_by_what_is_asked(agent):
    """Words after the class, or a disease instead of a class, make no class question of the
    gene: "Is TP53 mutated in Li-Fraumeni syndrome?" is still read against the disease's
    records, "Which kinase phosphorylates BRAF?" asks who."""
    from biorag.understanding.analysis import analyse

    read = analyse("Is TP53 mutated in Li-Fraumeni syndrome?", agent.retrievers, agent.lexicon)
    assert read.intent is not None and {e.kind for e in read.entities} >= {"gene", "disease"}, read
    for question in ("Is BRAF a kinase inhibitor target?", "Is BRAF a kinase or a phosphatase?",
                     "Which kinase phosphorylates BRAF?"):
        read = analyse(question, agent.retrievers, agent.lexicon)
        assert read.intent is None or read.intent.kind != "gene_class", question
