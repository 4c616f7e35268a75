from biorag.contracts.models import Evidence
from biorag.loop.grounding import extract_claims, structured_answer, verify_claims
from biorag.understanding.analysis import analyse
from tests.registered import SOURCES
from tests.spine.records import GENES, SNP


def read(question, evidence):
    return structured_answer(analyse(question, SOURCES), evidence, SOURCES)


def test_official_symbol_from_alias_record():
    ans = read("What is the official gene symbol of LMP10?", GENES)
    assert ans.text == "PSMB10" and ans.used[0].id == "5699"


def test_chromosome_gene_type_and_aliases():
    assert read("Which chromosome is TP53 gene located on human genome?", GENES).text == "chr17"
    assert read("Is LINC01270 a protein-coding gene?", GENES).text == "No"
    assert read("Is PFKL a protein-coding gene?", GENES).text == "Yes"
    assert read("What are the aliases of SLC38A6 gene?", GENES).text == "SLC38A6, NAT-1, SNAT6"


def test_snp_answers_and_missing_field():
    assert read("Which gene is SNP rs1217074595 associated with?", [SNP]).text == "LINC01270"
    assert read("Which chromosome does SNP rs1217074595 locate on human genome?", [SNP]).text == "chr20"
    # the SNP record alone does not hold the gene's function: no answer, not a guess
    assert read("What is the function of the gene associated with SNP rs1217074595?", [SNP]) is None


def test_no_matching_record_gives_no_structured_answer():
    assert read("Which gene is SNP rs1217074595 associated with?", GENES) is None


def test_claims_extracted():
    claims = extract_claims("TP53 lies at 17p13.1 on chr17 [gene:7157]; see rs1217074595 and PMID: 12345678. DNA is fine.")
    assert {"TP53", "17p13.1", "chr17", "gene:7157", "rs1217074595", "pubmed:12345678"} <= set(claims)
    assert "DNA" not in claims


def test_grounding_rejects_unsupported_claim():
    text = "PSMB10 is on chromosome 16 at 16q22.1 [gene:5699]. It is also called BRCA2 and sits at 13q13.1."
    kept, bad = verify_claims(text, GENES)
    assert kept == "PSMB10 is on chromosome 16 at 16q22.1 [gene:5699]."
    assert set(bad) == {"BRCA2", "13q13.1"}


def test_grounding_rejects_citation_of_evidence_not_gathered():
    ev = [Evidence(source="pubmed", id="111", title="t", text="amyloid beta")]
    kept, bad = verify_claims("Amyloid beta is toxic [pubmed:999].", ev)
    assert kept == "" and bad == ["pubmed:999"]


def test_chromosome_in_words_is_a_claim_and_repeats_are_dropped():
    text = "PSMB10 is on chromosome 16. PSMB10 is on chromosome 16. It is on chromosome 2."
    kept, bad = verify_claims(text, GENES)
    assert kept == "PSMB10 is on chromosome 16." and bad == ["chr2"]


def test_alignment_prefers_the_reference_assembly_over_other_records():
    def hit(acc, desc, chrom, start, end, org="Homo sapiens", bits=237, assembly=None, record=True):
        return Evidence(source="blast", id=acc, title=desc, metadata={
            "description": desc, "organism": org, "chromosome": chrom, "subject_start": start,
            "subject_end": end, "bit_score": bits, "assembly": assembly, "chromosome_record": record})
    hits = [  # BLAST order: best score first, ties broken arbitrarily by NCBI
        hit("CP034493.1", "Eukaryotic synthetic construct chromosome 15", "15", 72494035, 72494162, None),
        hit("NG_132175.1", "Homo sapiens H3K27ac-H3K4me1 hESC enhancer GRCh37_chr15:92493309-92494181 (LOC127830695) on chromosome 15", "15", 827, 954, record=False),
        hit("CP068263.2", "Homo sapiens isolate CHM13 chromosome 15", "15", 89712685, 89712558, assembly="T2T-CHM13"),
        hit("NC_000015.10", "Homo sapiens chromosome 15, GRCh38.p14 Primary Assembly", "15", 91950805, 91950932, assembly="GRCh38.p14"),
        hit("XX_1", "Homo sapiens chromosome X, GRCh38.p14 Primary Assembly", "X", 1, 128, bits=120, assembly="GRCh38.p14"),
    ]
    q = analyse("Align the DNA sequence to the human genome:ATTCTGCCTTTAGTAATTTGATGACAGAG", SOURCES)
    answer = lambda evidence: structured_answer(q, evidence, SOURCES)  # noqa: E731
    assert answer(hits).text.splitlines()[0] == "chr15:91950805-91950932"
    assert "GRCh38.p14" in answer(hits).text  # the answer names the assembly
    # whole human chromosome of another assembly: its coordinates, said to be T2T-CHM13's
    assert answer(hits[:3]).text.splitlines()[0] == (
        "chr15:89712558-89712685 on T2T-CHM13; no GRCh38 record in the evidence")
    # a weaker alignment never wins, however reference-like its record
    assert answer([hits[0], hits[4]]) is None
    # a feature record's local coordinates never answer; the chromosome its title names does
    assert answer(hits[:2]).text.splitlines()[0] == (
        "chr15 (named by the title of NG_132175.1; no chromosome coordinates in the evidence)")
