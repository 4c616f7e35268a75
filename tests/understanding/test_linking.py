"""Entity linking against the local gene store's dictionaries (real names from the bundled
HGNC/NCBI snapshot and disease dictionary), and what the loop does with the result."""

from __future__ import annotations

import pytest

from application.engine import build_agent
from biorag.understanding.analysis import analyse, find_entities
from tests.registered import SOURCES
from tests.understanding.conftest import settings_for
from tests.understanding.phrasings import GENE


@pytest.mark.parametrize("question, text, how, canonical", [
    ("The official symbol of gene CARD15 is", "CARD15", "previous", ("NOD2",)),
    ("what is the official symbol of card-15", "CARD15", "previous", ("NOD2",)),
    ("aliases of p53?", "p53", "alias", ("TP53",)),
    ("Is C9orf72 protein coding", "C9orf72", "symbol", ("C9orf72",)),
    ("which chromosome is fto on", "FTO", "symbol", ("FTO",)),
    ("Convert ENSG00000141510 to a symbol", "ENSG00000141510", "pattern", ()),
    # title case, as mouse nomenclature writes symbols, in a mixed-case question
    ("chromosome for Fto", "FTO", "symbol", ("FTO",)),
    ("Where does Brca2 sit, which chromosome?", "BRCA2", "symbol", ("BRCA2",)),
    ("Give me the Ensembl ID of Nod2 please", "NOD2", "symbol", ("NOD2",)),
])
def test_names_link_whatever_their_case_or_hyphens(lexicon, question, text, how, canonical):
    genes = [e for e in find_entities(question, lexicon) if e.kind in ("gene", "ensembl")]
    assert len(genes) == 1, genes
    g = genes[0]
    assert (g.text, g.how, g.canonical, g.confident) == (text, how, canonical, True)


def test_ordinary_words_are_not_genes(lexicon):
    # CAT, SET, MAX, REST are official symbols too: only as written symbols do they count
    ents = find_entities("What is the role of rest and exercise in a cat with max heart rate set high?", lexicon)
    assert [e for e in ents if e.kind == "gene"] == []
    ents = find_entities("Which chromosome is the CAT gene on?", lexicon)
    assert [(e.text, e.canonical) for e in ents] == [("CAT", ("CAT",))]


def test_disease_names_link_from_the_dictionary(lexicon):
    for q, name in [("My cousin has Marfan syndrome; which genes are behind it?", "Marfan syndrome"),
                    ("Marfan syndrome genes?", "Marfan syndrome"),
                    ("The name of the gene related to Blau syndrome is", "Blau syndrome")]:
        diseases = [e for e in find_entities(q, lexicon) if e.kind == "disease"]
        assert [(e.text, e.confident) for e in diseases] == [(name, True)], q
        assert diseases[0].how in ("clinvar", "hpo", "mesh")


def test_title_case_english_words_are_not_genes(lexicon):
    # "Map", "Tell", "Spell" are symbols' look-alikes only in case; ordinary words never link
    for q in ("Map FTO to its Ensembl ID", "Tell me about Rest and Exercise", "Spell out FTO"):
        genes = [e.text for e in find_entities(q, lexicon) if e.kind == "gene"]
        assert genes in ([], ["FTO"]), (q, genes)


@pytest.mark.parametrize("question, text", [
    ("Currarino syndrome: which gene?", "Currarino syndrome"),
    ("Blau syndrome - genes?", "Blau syndrome"),
    ("marfan syndrome; which genes", "marfan syndrome"),
    ("Tell me which genes are implicated in Marfan syndrome", "Marfan syndrome"),
    ("Which genes are mutated in Blau syndrome", "Blau syndrome"),
])
def test_a_disease_opening_a_clause_or_after_an_auxiliary_links(lexicon, question, text):
    diseases = [e for e in find_entities(question, lexicon) if e.kind == "disease"]
    assert [(e.text, e.confident) for e in diseases] == [(text, True)], question


@pytest.mark.parametrize("question, span", [
    ("bile acid malabsorption genes", "bile acid malabsorption"),
    ("Tell me which genes are implicated in Bile acid malabsorption", "Bile acid malabsorption"),
])
def test_a_catalogue_head_links_to_its_qualified_names(lexicon, question, span):
    """ClinVar and HPO write "Bile acid malabsorption, primary, 1": the part before the first
    comma is the name people use; it links to every qualified entry, none picked."""
    diseases = [e for e in find_entities(question, lexicon) if e.kind == "disease"]
    assert len(diseases) == 1 and diseases[0].text == span, diseases
    assert diseases[0].how.endswith(" head")
    assert all(c.lower().startswith("bile acid malabsorption,") for c in diseases[0].canonical)
    assert len(diseases[0].canonical) >= 2


def test_a_head_is_only_used_when_no_name_matches_whole(lexicon):
    # "Marfan syndrome" is a name in its own right: the qualified entries do not replace it
    hits = lexicon.lookup_spans(["marfan syndrome"], ("disease",))
    assert hits and not [h for h in hits if h.how.endswith(" head")]
    # one word is too little to stand for a catalogue head ("Cancer, ..." entries abound)
    assert not [h for h in lexicon.lookup_spans(["cancer"], ("disease",)) if h.how.endswith(" head")]


def test_a_catalogue_title_in_inverted_order_mentions_the_disease():
    """OMIM titles invert names ("RENAL TUBULAR ACIDOSIS, DISTAL, ..."): the evidence guard
    reads every word of the question's disease in one title as a mention; a title missing
    one of its words does not count."""
    from biorag.contracts.models import Evidence
    from biorag.loop.sufficiency import missing_entities

    a = analyse("Which genes cause Distal renal tubular acidosis?", SOURCES, None)
    inverted = Evidence(source="omim", id="179800", title="RENAL TUBULAR ACIDOSIS, DISTAL, AUTOSOMAL DOMINANT", text="")
    other = Evidence(source="omim", id="267200", title="RENAL TUBULAR ACIDOSIS, PROXIMAL", text="")
    assert missing_entities(a, [inverted]) == []
    assert missing_entities(a, [other]) == ["Distal renal tubular acidosis"]


def test_without_a_store_names_are_recognised_by_pattern():
    # no lexicon: today's pattern recognition, and nothing crashes
    a = analyse("Which chromosome is FTO on?", SOURCES, None)
    assert [(e.kind, e.text, e.confident, e.how) for e in a.entities] == [("gene", "FTO", True, "pattern")]
    assert a.intent is not None and a.intent.kind == "chromosome"


class _Broken:
    def lookup_spans(self, spans, kinds):
        raise RuntimeError("dictionary file gone")


def test_a_broken_dictionary_falls_back_to_patterns():
    a = analyse("The official symbol of gene CARD15 is", SOURCES, _Broken())
    assert a.intent is not None and a.intent.kind == "official_symbol"
    assert [(e.text, e.confident) for e in a.entities] == [("CARD15", True)]


def test_an_ambiguous_alias_is_listed_not_resolved(agent):
    # "12-LOX" is an alias of both ALOX12 and ALOX15 in HGNC, and neither's symbol
    for q in ("What is the official symbol of 12-LOX?", "12-LOX chromosome?"):
        ans = agent.answer(q)
        assert "ALOX12" in ans.answer and "ALOX15" in ans.answer, ans.answer
        assert "several" in ans.answer.lower() or "ambiguous" in ans.answer.lower()
        assert not ans.sufficient
        assert not [e for e in ans.trace if e.step == "retrieve" and e.retriever != "gene"]


def test_blast_never_receives_a_gene_name(agent):
    for _field, (entities, phrasings) in GENE.items():
        for x, xl, xv, _ in entities:
            for p in phrasings:
                ans = agent.answer(p.format(x=x, xl=xl, xv=xv))
                assert not [e for e in ans.trace if e.retriever == "blast"], p


def test_an_unknown_gene_is_insufficient_not_guessed(agent):
    ans = agent.answer("Which chromosome is ZQX99 on?")
    assert not ans.sufficient and "chr" not in ans.answer


def test_free_text_only_reaches_free_text_sources(store_path):
    agent = build_agent(settings_for(store_path, enable=["web"]))
    ans = agent.answer("How do microglia respond to amyloid plaques?")
    asked = {e.retriever for e in ans.trace if e.step == "select" and e.retriever}
    assert asked <= {"web"}, asked


def test_the_organism_a_question_names_reaches_the_alignment_reader():
    """A real yeast BLAST report from the dev recording: asked where the sequence lies in
    the yeast genome, the answer is on a S. cerevisiae chromosome record; asked about the
    human genome (or no genome), there is no human record, so no location."""
    from biorag.loop.grounding import structured_answer
    from tests.tools.test_blast_records import SPECIES

    _, question, evidence = next(r for r in SPECIES if "Saccharomyces pastorianus" in {e.metadata["organism"] for e in r[2]})
    seq = question.split(":", 1)[1].strip()
    for q in (f"Where does this sequence map in the Saccharomyces cerevisiae genome? {seq}",
              f"align to the baker's yeast genome: {seq}"):
        a = analyse(q, SOURCES)
        assert a.intent is not None and a.intent.kind == "alignment"
        assert [e.text for e in a.entities if e.kind == "organism"] == ["Saccharomyces cerevisiae"]
        found = structured_answer(a, evidence, SOURCES)
        assert found is not None and found.text.startswith("chr") and "Saccharomyces cerevisiae" in found.text, q
    human = analyse(f"Align the DNA sequence to the human genome: {seq}", SOURCES)
    assert structured_answer(human, evidence, SOURCES) is None


@pytest.mark.parametrize("question, symbol, how", [
    ("Where is the myoglobin gene?", "MB", "full_name"),  # HGNC name, one word next to "gene"
    ("Which band is proteasome 20S subunit beta 10 on?", "PSMB10", "full_name"),  # "20S" is inside it
    ("What chromosome is tumour protein p53 on?", "TP53", "full_name"),  # British spelling
    ("Which chromosome is the fat mass and obesity associated gene on?", "FTO", "designation"),
    ("Which chromosome is FAST kinase domain-containing protein 5 on?", "FASTKD5", "designation head"),
])
def test_genes_named_by_their_name_written_out(lexicon, question, symbol, how):
    genes = [e for e in find_entities(question, lexicon) if e.kind == "gene"]
    assert [(e.text, e.canonical, e.how) for e in genes] == [(symbol, (symbol,), how)]


@pytest.mark.parametrize("question", [
    "What is the best treatment for breast cancer?",  # a designation head of LDOC1, and a disease
    "What is insulin resistance?",  # a one-word name not next to "gene"
    "How do T cells recognise antigens?",
])
def test_phrases_that_are_also_gene_designations_stay_phrases(lexicon, question):
    assert [e for e in find_entities(question, lexicon) if e.kind == "gene"] == []
