"""Scorers against hand-checked cases: every GeneTuring/GeneHop task and each rule of the
benchmark's PROVENANCE note, plus multiple choice, yes/no(/maybe) and BioASQ factoid."""

import pytest

from evaluation.scoring import (
    content_words,
    score_answer,
    score_choice,
    score_chromosome,
    score_disease_location,
    score_exact_symbol,
    score_factoid,
    score_gene_disease,
    score_genome_alignment,
    score_label,
    score_protein_coding,
    score_sequence_alias,
    score_snp_gene_function,
    score_species,
)


@pytest.mark.parametrize("pred,gold,expected", [
    ("Answer: 13", "chr13", 1.0),            # last token, chr prepended
    ("chr13", "chr13", 1.0),                 # already has chr
    ("Chr13", "chr13", 0.0),                 # becomes chrChr13 (only lower-case chr counts)
    ("It is on chromosome 8", "chr8", 1.0),  # last whitespace token only
    ("8 or 9", "chr8", 0.0),
    ("13.", "chr13", 0.0),                   # no punctuation stripping
    ("chrY", "chrY", 1.0),
    ("", "chr1", 0.0),
    ("   ", "chr1", 0.0),
])
def test_gene_and_snp_location(pred, gold, expected):
    assert score_chromosome(pred, gold) == expected


@pytest.mark.parametrize("pred,expected", [
    ("Answer: PSMB10", 1.0),     # `Answer: ` removed
    ("  PSMB10 \n", 1.0),        # stripped
    ("psmb10", 0.0),             # case-sensitive
    ("PSMB10.", 0.0),            # verbatim otherwise
    ("The symbol is PSMB10", 0.0),
    ("LMP10 -> Answer: PSMB10", 0.0),  # `Answer: ` removed anywhere, rest must still equal
])
def test_exact_symbol_tasks(pred, expected):
    assert score_exact_symbol(pred, "PSMB10") == expected


@pytest.mark.parametrize("pred,gold,expected", [
    ("Yes", "TRUE", 1.0), ("No", "NA", 1.0), ("Answer: Yes", "TRUE", 1.0),
    ("yes", "TRUE", 0.0), ("Yes.", "TRUE", 0.0), ("No", "TRUE", 0.0),
    ("TRUE", "TRUE", 1.0),  # other strings compared verbatim
    ("NA", "NA", 1.0),
])
def test_protein_coding(pred, gold, expected):
    assert score_protein_coding(pred, gold) == expected


@pytest.mark.parametrize("pred,gold,expected", [
    ("Caenorhabditis elegans", "worm", 1.0), ("Answer: Mus musculus", "mouse", 1.0),
    ("Danio rerio", "zebrafish", 1.0), ("Saccharomyces cerevisiae", "yeast", 1.0),
    ("Gallus gallus", "chicken", 1.0), ("Rattus norvegicus", "rat", 1.0), ("Homo sapiens", "human", 1.0),
    ("worm", "worm", 1.0), ("C. elegans", "worm", 0.0), ("homo sapiens", "human", 0.0),
    ("Homo sapiens", "mouse", 0.0),
])
def test_multi_species(pred, gold, expected):
    assert score_species(pred, gold) == expected


@pytest.mark.parametrize("pred,expected", [
    ("chr15:91950805-91950932", 1.0),
    ("Answer: chr15:91950805-91950932", 1.0),
    ("chr15:100-200", 0.5),      # right chromosome, wrong position
    ("chr15", 0.5),              # text before the first ':' matches
    ("chr1:91950805-91950932", 0.0),
    ("15:91950805-91950932", 0.0),
    # honest partial answers: the chromosome another assembly or a clone title gives
    ("chr15:89712558-89712685 on T2T-CHM13; no GRCh38 record in the evidence", 0.5),
    ("chr15 (named by the title of clone RP11-1A1, AC1.1; no chromosome coordinates in the evidence)", 0.5),
    ("chr1 (named by the title of clone RP11-1A1, AC1.1)", 0.0),   # the wrong chromosome
    ("chr150 (named by a title)", 0.0),
    ("chr15q26.1", 0.0),                                            # not a chromosome token
    ("Insufficient evidence: chr15 is a guess", 0.0),               # not at the start
])
def test_human_genome_alignment(pred, expected):
    assert score_genome_alignment(pred, "chr15:91950805-91950932") == expected


@pytest.mark.parametrize("pred,expected", [
    ("SLC4A1, ATP6V0A4", 1.0),
    ("ATP6V0A4, SLC4A1, CA2", 1.0),  # order free, extras cost nothing
    ("SLC4A1", 0.5),                 # recall
    ("Answer: SLC4A1", 0.5),
    ("SLC4A1,ATP6V0A4", 0.0),        # split is on ", " exactly
    ("slc4a1, atp6v0a4", 0.0),
])
def test_gene_disease_association_recall(pred, expected):
    assert score_gene_disease(pred, "SLC4A1, ATP6V0A4") == expected


def test_disease_gene_location_recall():
    gold = ["17q21.31", "7q34"]
    assert score_disease_location("17q21.31, 7q34", gold) == 1.0
    assert score_disease_location("7q34", gold) == 0.5
    assert score_disease_location("7q34, 1p36", gold) == 0.5
    assert score_disease_location("17q21.31; 7q34", gold) == 0.0
    # no `Answer: ` cleaning for this task (as stated): the prefix sticks to the first element
    assert score_disease_location("Answer: 17q21.31, 7q34", gold) == 0.5


def test_sequence_gene_alias_declared_recall():
    gold = ["MLLT10", "AF10"]
    assert score_sequence_alias("Answer: MLLT10, AF10", gold) == 1.0
    assert score_sequence_alias("MLLT10", gold) == 0.5
    assert score_sequence_alias("mllt10, af10", gold) == 0.0


def test_snp_gene_function_declared_token_rule():
    gold = ("Predicted to enable guanyl-nucleotide exchange factor activity. Predicted to be "
            "involved in Rho protein signal transduction.")
    assert content_words(gold) == {"guanyl-nucleotide", "exchange", "factor", "rho", "signal", "transduction"}
    assert score_snp_gene_function("PLEKHG7 is a guanyl-nucleotide exchange factor in Rho signal transduction", gold) == 1.0
    assert score_snp_gene_function("a Rho exchange factor", gold) == pytest.approx(3 / 6)
    assert score_snp_gene_function("unknown", gold) == 0.0
    # years and PMIDs are not content words
    assert "2004" not in content_words("(Hanai et al., 2004 [PubMed 15196925])")
    # gold with one short word: ncRNA
    assert score_snp_gene_function("LINC01270 is an ncRNA gene", "ncRNA") == 1.0
    assert score_snp_gene_function("protein coding", "ncRNA") == 0.0


def test_multiple_choice_and_labels():
    assert score_choice("C", "C") == 1.0 and score_choice("B", "C") == 0.0
    assert score_choice(None, "C") == 0.0 and score_choice("C", " c ") == 1.0
    assert score_label("maybe", "maybe") == 1.0 and score_label("yes", "No") == 0.0
    assert score_label(None, "yes") == 0.0 and score_label("no", "No") == 1.0


def test_bioasq_factoid_strict_lenient_mrr():
    gold = [["BDCA2", "CD303"]]
    assert score_factoid(["BDCA2"], gold) == {"strict": 1.0, "lenient": 1.0, "mrr": 1.0}
    assert score_factoid(["CLEC4C", "cd303"], gold) == {"strict": 0.0, "lenient": 1.0, "mrr": 0.5}
    assert score_factoid(["a", "b", "c", "d", "e", "BDCA2"], gold)["lenient"] == 0.0  # only top 5
    assert score_factoid([], gold) == {"strict": 0.0, "lenient": 0.0, "mrr": 0.0}
    assert score_factoid(["xia"], ["XIa"])["strict"] == 1.0  # flat synonym list too


def test_score_answer_extracts_before_scoring():
    s = score_answer("geneturing", "Gene alias", "q", "PSMB10 [gene:5699]\nMore text.", "PSMB10")
    assert s.prediction == "PSMB10" and s.score == 1.0 and s.rule == "genegpt"
    s = score_answer("geneturing", "Gene location", "q", "**chr16** [gene:5699]", "chr16")
    assert s.score == 1.0
    s = score_answer("geneturing", "SNP gene function", "q", "LINC01270: ncRNA\n[gene:284751]", "ncRNA")
    assert s.score == 1.0 and s.rule == "declared"
    judged = score_answer("geneturing", "SNP gene function", "q", "x", "ncRNA", judge=lambda q, g, p: 1.0)
    assert judged.score == 1.0 and judged.rule == "llm-judge"
    s = score_answer("choice", "anatomy", "q", "The answer is (B).", "B", options=["x", "y", "z", "w"])
    assert s.prediction == "B" and s.score == 1.0
    s = score_answer("yesnomaybe", "pubmedqa", "q", "Maybe; the evidence is mixed.", "maybe")
    assert s.score == 1.0
    s = score_answer("factoid", "factoid", "q", "CD303, BDCA2", [["BDCA2"]])
    assert s.score == 0.0 and s.metrics["mrr"] == 0.5
    with pytest.raises(ValueError):
        score_answer("geneturing", "No such task", "q", "x", "y")


def test_llm_judge_slot_reads_yes_no():
    from biorag.llm.base import LLM, LLMReply
    from evaluation.scoring import make_llm_judge

    class Scripted(LLM):
        """Replies with fixed text; records the prompt (a stand-in for a served model)."""

        identity = "scripted"

        def __init__(self, text):
            super().__init__()
            self.text, self.prompts = text, []

        def _complete(self, messages, json_schema, max_tokens, temperature):
            self.prompts.append(messages[-1].content)
            return LLMReply(text=self.text, ms=0.0)

    yes = Scripted("YES, same function.")
    assert make_llm_judge(yes)("q", "ncRNA", "a non-coding RNA") == 1.0
    assert "ncRNA" in yes.prompts[0] and "a non-coding RNA" in yes.prompts[0]
    assert make_llm_judge(Scripted("No."))("q", "ncRNA", "kinase") == 0.0
    assert make_llm_judge(Scripted("unsure"))("q", "ncRNA", "kinase") == 0.0
