"""FIRST HELD-OUT phrasings: written after the tuned set (phrasings.py), never used to change
question understanding until the fourth session, which read its 8 misses (0.923) for their
classes and fixed those classes generally (title-case symbols, cue words, a cue inside a
compound, diseases opening a clause, catalogue heads). So it is no longer strictly unseen:
heldout_new_phrasings.py is the held-out set now. Its score is still reported
(benchmarks/understanding_cost.py prints it; test_heldout_paraphrases.py requires >= 0.85).

Values are real records: the bundled HGNC/NCBI gene_info snapshot (retrievers/resources/
human_genes) and the dbSNP/OMIM/BLAST responses of the bundled dev recording.
Each item: (field, question, expected answer); for "organism" and "alignment" the expected
text must be contained in / start the answer (see test_heldout_paraphrases.py).
"""

from __future__ import annotations

import re

_WORM = "AGGGGCAGCAAACACCGGGACACACCCATTCGTGCACTAATCAGAAACTTTTTTTTCTCAAATAATTCAAACAATCAAAATTGGTTTTTTCGAGCAAGGTGGGAAATTTTTCGAT"
_CHR15 = "ATTCTGCCTTTAGTAATTTGATGACAGAGACTTCTTGGGAACCACAGCCAGGGAGCCACCCTTTACTCCACCAACAGGTGGCTTATATCCAATCTGAGAAAGAAAGAAAAAAAAAAAAGTATTTCTCT"

HELDOUT: list[tuple[str, str, str]] = [
    # official symbol (SGOL1 is SGO1's previous symbol; MECL1 PSMB10's; C16orf11 PRR35's)
    ("official_symbol", "SGOL1 was renamed - what is its official symbol now?", "SGO1"),
    ("official_symbol", "current HGNC symbol for sgol1", "SGO1"),
    ("official_symbol", "Please give me the approved symbol of the gene MECL1.", "PSMB10"),
    ("official_symbol", "MECL1 -> official gene symbol", "PSMB10"),
    ("official_symbol", "In today's nomenclature, C16orf11 is called", "PRR35"),
    ("official_symbol", "Which official symbol replaced c16orf11", "PRR35"),
    ("official_symbol", "Can you tell me the standard gene symbol used for CARD15", "NOD2"),
    ("official_symbol", "need official symbol: Lmp10", "PSMB10"),
    # chromosome
    ("chromosome", "On which chromosome can the gene BRCA1 be found?", "chr17"),
    ("chromosome", "brca1 - what chromosome", "chr17"),
    ("chromosome", "TTTY7 sits on which chromosome", "chrY"),
    ("chromosome", "The human XIST gene lies on chromosome", "chrX"),
    ("chromosome", "Hey, could you check what chromosome the NOD2 gene is on? Thanks!", "chr16"),
    ("chromosome", "Locate PSMB10 (chromosome only please)", "chr16"),
    ("chromosome", "chromosome for Fto", "chr16"),
    ("chromosome", "where in the genome is kRT12", "chr17"),
    # cytogenetic location
    ("map_location", "Cytogenetic band for BRCA1?", "17q21.31"),
    ("map_location", "What's the locus of NOD2 on the chromosome map?", "16q12.1"),
    ("map_location", "give the cytogenetic position of xist", "Xq13.2"),
    ("map_location", "The map location of the FTO gene is", "16q12.2"),
    ("map_location", "Which chromosomal band contains KRT12?", "17q21.2"),
    ("map_location", "I'd like the cytoband where SGO1 is", "3p24.3"),
    ("map_location", "locus of ttty7", "Yp11.2"),
    ("map_location", "band: PSMB10", "16q22.1"),
    # protein-coding
    ("protein_coding", "Does XIST encode a protein?", "No"),
    ("protein_coding", "xist - protein-coding?", "No"),
    ("protein_coding", "Is the BRCA1 gene protein coding or non-coding?", "Yes"),
    ("protein_coding", "Can you confirm whether TTTY7 is a protein coding gene", "No"),
    ("protein_coding", "Whether FTO codes for a protein:", "Yes"),
    ("protein_coding", "NOD2 makes a protein, right?", "Yes"),
    ("protein_coding", "i wonder if krt12 is protein-coding", "Yes"),
    ("protein_coding", "Is PRR35 a coding gene", "Yes"),
    # gene type
    ("gene_type", "What biotype does XIST have?", "non-coding rna (ncrna)"),
    ("gene_type", "gene type for BRCA1", "protein-coding"),
    ("gene_type", "What kind of gene is TTTY7, exactly?", "non-coding rna (ncrna)"),
    ("gene_type", "Tell me the locus type of FTO.", "protein-coding"),
    ("gene_type", "xist type of gene", "non-coding rna (ncrna)"),
    ("gene_type", "The biotype of NOD2 is", "protein-coding"),
    ("gene_type", "Which type of gene is KRT12?", "protein-coding"),
    ("gene_type", "classify TTTY7: what type of gene", "non-coding rna (ncrna)"),
    # aliases
    ("aliases", "Which other names does KRT12 go by?", "KRT12, K12, MECD1"),
    ("aliases", "krt12 aliases", "KRT12, K12, MECD1"),
    ("aliases", "Synonyms of the PRR35 gene are", "PRR35, C16orf11, LA16c-366D1.2"),
    ("aliases", "Give me every alias of PRR35", "PRR35, C16orf11, LA16c-366D1.2"),
    ("aliases", "What else is KRT12 called?", "KRT12, K12, MECD1"),
    ("aliases", "prr35 is also known as", "PRR35, C16orf11, LA16c-366D1.2"),
    ("aliases", "List alternative symbols for KRT12 please", "KRT12, K12, MECD1"),
    ("aliases", "Other names for Prr35?", "PRR35, C16orf11, LA16c-366D1.2"),
    # Ensembl / Entrez / full name
    ("ensembl_id", "What's BRCA1's Ensembl gene identifier?", "ENSG00000012048"),
    ("ensembl_id", "ensembl for nod2", "ENSG00000167207"),
    ("ensembl_id", "Map FTO to its Ensembl ID", "ENSG00000140718"),
    ("ensembl_id", "The ENSG accession of KRT12 is", "ENSG00000187242"),
    ("ensembl_id", "I need the Ensembl ID for the gene XIST.", "ENSG00000229807"),
    ("ensembl_id", "BRCA1 in Ensembl?", "ENSG00000012048"),
    ("ensembl_id", "Which Ensembl gene ID corresponds to PSMB10", "ENSG00000205220"),
    ("ensembl_id", "ensembl identifier of sgo1", "ENSG00000129810"),
    ("entrez_id", "What is BRCA1's Entrez Gene ID?", "672"),
    ("entrez_id", "ncbi gene id for nod2", "64127"),
    ("entrez_id", "The NCBI Gene identifier of FTO is", "79068"),
    ("entrez_id", "Give me the Entrez ID of KRT12", "3859"),
    ("entrez_id", "xist entrez id?", "7503"),
    ("entrez_id", "Which NCBI gene ID does PSMB10 have", "5699"),
    ("entrez_id", "convert SGO1 to an NCBI Gene ID", "151648"),
    ("entrez_id", "Entrez identifier for the PRR35 gene, please", "146325"),
    ("full_name", "What does BRCA1 stand for?", "BRCA1 DNA repair associated"),
    ("full_name", "full gene name of nod2", "nucleotide binding oligomerization domain containing 2"),
    ("full_name", "Spell out FTO", "FTO alpha-ketoglutarate dependent dioxygenase"),
    ("full_name", "The full name of KRT12 is", "keratin 12"),
    ("full_name", "Tell me the long name of XIST.", "X inactive specific transcript"),
    ("full_name", "PSMB10 full name?", "proteasome 20S subunit beta 10"),
    ("full_name", "what is the full name for sgo1", "shugoshin 1"),
    ("full_name", "Expand the gene abbreviation PRR35", "proline rich 35"),
    # SNPs (dev recording: rs1241371358 is in LRRC23; rs895485955 on chr19)
    ("snp_genes", "rs1241371358 lies in which gene?", "LRRC23"),
    ("snp_genes", "What gene is associated with the variant rs1241371358", "LRRC23"),
    ("snp_genes", "gene for rs1241371358", "LRRC23"),
    ("snp_genes", "The SNP rs1241371358 maps to the gene", "LRRC23"),
    ("snp_genes", "Name the gene harbouring RS1241371358.", "LRRC23"),
    ("snp_genes", "In which gene is rs1241371358 located?", "LRRC23"),
    ("snp_genes", "Please find the gene that SNP rs1241371358 belongs to", "LRRC23"),
    ("snp_genes", "rs1241371358 associated gene?", "LRRC23"),
    ("chromosome", "What chromosome is rs895485955 on?", "chr19"),
    ("chromosome", "rs895485955 chromosome?", "chr19"),
    ("chromosome", "The variant rs895485955 is on which chromosome", "chr19"),
    ("chromosome", "Locate SNP rs895485955 (which chromosome)", "chr19"),
    ("chromosome", "Where is the SNP RS895485955 found?", "chr19"),
    ("chromosome", "which chromosome harbours rs895485955", "chr19"),
    ("chromosome", "Could you tell me on which human chromosome rs895485955 sits?", "chr19"),
    ("chromosome", "chromosome location for rs895485955", "chr19"),
    # diseases (dev recording: OMIM entries for these diseases)
    ("disease_genes", "Which genes cause Distal renal tubular acidosis?", "SLC4A1"),
    ("disease_genes", "genes underlying distal renal tubular acidosis", "SLC4A1"),
    ("disease_genes", "What gene is mutated in Currarino syndrome?", "MNX1"),
    ("disease_genes", "Currarino syndrome: which gene?", "MNX1"),
    ("disease_genes", "The gene responsible for Currarino syndrome is", "MNX1"),
    ("disease_genes", "Tell me which genes are implicated in Bile acid malabsorption", "SLC10A2"),
    ("disease_genes", "bile acid malabsorption genes", "SLC10A2"),
    ("disease_genes", "A patient has Meesmann corneal dystrophy. Which genes should we test?", "KRT12"),
    # sequences (dev recording)
    ("organism", "From which species is this DNA: " + _WORM, "Caenorhabditis elegans"),
    ("organism", "what organism is this sequence " + _WORM.lower(), "Caenorhabditis elegans"),
    ("organism", "Identify the source organism of " + _WORM, "Caenorhabditis elegans"),
    ("organism", _WORM + " comes from which organism?", "Caenorhabditis elegans"),
    ("alignment", "Where in the human genome is this sequence? " + _CHR15, "chr15:"),
    ("alignment", "map this read to the human genome " + _CHR15.lower(), "chr15:"),
    ("alignment", "Genomic coordinates please: " + _CHR15, "chr15:"),
    ("alignment", _CHR15 + " - where does it align?", "chr15:"),
]

#: fields whose answer is a list or a sentence: the expected text must occur in it
CONTAINED = {"organism", "disease_genes"}


def matches(field: str, answer: str, expected: str) -> bool:
    """The answer's first line holds the value, as the benchmarks' scoring reads it (a field
    read for several genes adds a line pairing each gene with its value)."""
    a, e = answer.strip().split("\n")[0].strip().lower(), expected.lower()
    if field == "summary":
        # expected: the gene's name line ("TP53: tumor protein p53 (protein-coding)"), which
        # alone never answers: what the gene does, cited to GO or Reactome ids (or its RefSeq
        # summary), or its card (which names its ids), under its symbol
        symbol, whole = e.split(":")[0], answer.lower()
        does = re.search(r"\b(?:go:\d{7}|r-hsa-\d+)\b", whole) or "ids: ncbi gene" in whole
        return a.startswith(f"{symbol}: ") and a != e and bool(does)
    if field == "alignment":
        return a.startswith(e)
    if field in CONTAINED:
        return e in [x.strip() for x in a.split(",")] or (field == "organism" and e in a)
    return a == e


def verdicts(agent, items, judge) -> dict[str, list]:
    """Each (field, question, expected) answered by `agent`, sorted by `judge(field,
    question, expected, answer, sufficient)` into 'right', 'miss' and 'wrong'."""
    out: dict[str, list] = {"right": [], "miss": [], "wrong": []}
    for field, question, expected in items:
        ans = agent.answer(question)
        out[judge(field, question, expected, ans.answer, ans.sufficient)].append(
            (question, ans.answer[:80], expected))
    return out
