import pytest

from biorag.understanding.analysis import analyse, find_entities
from tests.registered import SOURCES


@pytest.mark.parametrize(
    "question, kind, text",
    [
        ("Which gene is SNP rs1217074595 associated with?", "rsid", "rs1217074595"),
        ("Convert ENSG00000215251 to official gene symbol.", "ensembl", "ENSG00000215251"),
        ("What is the official gene symbol of LMP10?", "gene", "LMP10"),
        ("Is LOC124907753 a protein-coding gene?", "gene", "LOC124907753"),
        ("Which chromosome is FAM66D gene located on human genome?", "gene", "FAM66D"),
        ("What are genes related to Distal renal tubular acidosis?", "disease", "Distal renal tubular acidosis"),
        ("Which organism does the DNA sequence come from:ACGTACGTTAGCATGCATCGATCGTAGCTAGC", "sequence", "ACGTACGTTAGCATGCATCGATCGTAGCTAGC"),
    ],
)
def test_entities(question, kind, text):
    ents = find_entities(question)
    assert any(e.kind == kind and e.text == text and e.confident for e in ents), ents


def test_snp_phrase_is_not_a_disease():
    ents = find_entities("What is the function of the gene associated with SNP rs1241371358?")
    assert [e.kind for e in ents] == ["rsid"]


def test_bare_symbols_are_low_confidence_and_acronyms_ignored():
    ents = find_entities("Does BRCA1 interact with DNA repair proteins in HIV patients?")
    assert [(e.kind, e.text, e.confident) for e in ents] == [("gene", "BRCA1", False)]


@pytest.mark.parametrize(
    "question, intent, hops",
    [
        ("What is the official gene symbol of SNAT6?", "official_symbol", ["gene"]),
        ("Convert ENSG00000205403 to official gene symbol.", "official_symbol", ["gene"]),
        ("Which chromosome is ENSG00000141510 gene located on human genome?", "chromosome", ["gene"]),
        ("Is ATP5F1EP2 a protein-coding gene?", "protein_coding", ["gene"]),
        ("Which chromosome does SNP rs545148486 locate on human genome?", "chromosome", ["dbsnp"]),
        ("What is the function of the gene associated with SNP rs1?", "summary", ["dbsnp", "gene"]),
        ("List chromosome locations of the genes related to Cystic fibrosis.", "map_location", ["omim"]),
        ("What are the aliases of the gene that contains this sequnece:ACGTACGTTAGCATGCATCGATCGTAGC", "aliases", ["blast", "gene"]),
        ("Align the DNA sequence to the human genome:ACGTACGTTAGCATGCATCGATCGTAGC", "alignment", ["blast"]),
    ],
)
def test_intents(question, intent, hops):
    a = analyse(question, SOURCES)
    assert a.intent is not None and a.intent.kind == intent
    assert [h.source for h in a.intent.hops] == hops


def test_open_question_has_no_intent_and_boilerplate_is_stripped():
    a = analyse("How does amyloid beta affect synapses? Let's decompose the question to sub-questions.", SOURCES)
    assert a.intent is None
    assert a.core == "How does amyloid beta affect synapses?"
