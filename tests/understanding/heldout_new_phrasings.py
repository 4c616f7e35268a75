"""SECOND HELD-OUT set: written in full (19:20 UTC, 2026-11-23) before any of it was run
and before the understanding changes that fixed the first held-out set's miss classes;
committed on its own so the history shows that. Never used to tune question
understanding: its score is reported (benchmarks/understanding_cost.py prints it), a test
only guards against collapse.

Why a second set: the first held-out set (heldout_phrasings.py) was read for its miss
classes in the third session, so it is no longer held out in the strict sense.

Entities are new to every other phrasing set: genes drawn with a fixed seed from the
bundled HGNC/NCBI gene_info snapshot (retrievers/resources/human_genes), diseases with a
single associated gene in ClinVar's gene_condition_source_id (the store's disease
dictionary). Values are those records' fields. Gene and disease questions are answered
from the local store alone (no recording covers these entities).
"""

from __future__ import annotations

HELDOUT_NEW: list[tuple[str, str, str]] = [
    # official symbol: previous symbols in HGNC (KIAA1245 -> NBPF12, RNU22 -> SNORD22,
    # HMG14 -> HMGN1, CXorf37 -> CCDC22, C20orf194 -> DNAAF9)
    ("official_symbol", "What is the current official symbol for KIAA1245?", "NBPF12"),
    ("official_symbol", "rnu22 official symbol", "SNORD22"),
    ("official_symbol", "The HGNC-approved symbol of HMG14 is", "HMGN1"),
    ("official_symbol", "Tell me what CXorf37 is called now", "CCDC22"),
    ("official_symbol", "C20orf194 -> approved gene symbol?", "DNAAF9"),
    ("official_symbol", "what's the official gene symbol of Hmg14 these days", "HMGN1"),
    ("official_symbol", "I saw the name KIAA1245 in an old paper; which symbol does HGNC use for it today?", "NBPF12"),
    ("official_symbol", "Give the current symbol for c20orf194.", "DNAAF9"),
    # chromosome
    ("chromosome", "Which chromosome carries WDR33?", "chr2"),
    ("chromosome", "acaa1 chromosome", "chr3"),
    ("chromosome", "The gene RBFOX3 is located on chromosome", "chr17"),
    ("chromosome", "Tell me the chromosome of GDF5", "chr20"),
    ("chromosome", "On what chromosome is Fzd1 found?", "chr7"),
    ("chromosome", "zNF518B: which chromosome?", "chr4"),
    ("chromosome", "quick check - the chromosome that holds LINC01761, please", "chr1"),
    ("chromosome", "Where is CFL1P5? I only need the chromosome.", "chr5"),
    # cytogenetic band
    ("map_location", "What is the cytogenetic location of WDR33?", "2q14.3"),
    ("map_location", "gdf5 cytoband", "20q11.22"),
    ("map_location", "The chromosomal band of FZD1 is", "7q21.13"),
    ("map_location", "Give me the map location for Rbfox3.", "17q25.3"),
    ("map_location", "cytogenetic band of syn3-as1?", "22q12.3"),
    ("map_location", "Which band on the chromosome holds ZNF518B", "4p16.1"),
    ("map_location", "Locus (band) of ACAA1 please", "3p22.2"),
    # protein-coding
    ("protein_coding", "Is WDR33 a protein-coding gene?", "Yes"),
    ("protein_coding", "linc01761 protein coding?", "No"),
    ("protein_coding", "Does GDF5 code for a protein", "Yes"),
    ("protein_coding", "Tell me whether CFL1P5 encodes a protein.", "No"),
    ("protein_coding", "Is SYN3-AS1 protein coding or not?", "No"),
    ("protein_coding", "Whether Acaa1 is protein-coding:", "Yes"),
    ("protein_coding", "does snord22 make a protein", "No"),
    # gene type
    ("gene_type", "What type of gene is CFL1P5?", "pseudogene (pseudo)"),
    ("gene_type", "snord22 gene type", "small nucleolar rna (snorna)"),
    ("gene_type", "The gene type of LINC01761 is", "non-coding rna (ncrna)"),
    ("gene_type", "Tell me the biotype of SYN3-AS1.", "non-coding rna (ncrna)"),
    ("gene_type", "What kind of gene is Fzd1?", "protein-coding"),
    ("gene_type", "locus type for RBFOX3?", "protein-coding"),
    # aliases
    ("aliases", "What are the aliases of WDR33?", "WDR33, FLJ11294, NET14, WDC146"),
    ("aliases", "acaa1 synonyms", "ACAA1, ACAA, Lnc-Myd88, PTHIO, THIO"),
    ("aliases", "List the other names of CCDC22.", "CCDC22, CXorf37, JM1, RTSC2"),
    # NEUN/NeuN: one alias in two spellings (gene_info, HGNC), listed once since the sixth session
    ("aliases", "RBFOX3 is also known as", "RBFOX3, FOX-3, FOX3, HRNBP3, NEUN"),
    ("aliases", "Which alternative names does Fzd1 have?", "FZD1, DKFZp564G072, Hfz1"),
    ("aliases", "alias list for ZNF518B please", "ZNF518B, KIAA1729"),
    ("aliases", "Give me all synonyms for the gene DNAAF9", "DNAAF9, C20orf194, DKFZp434N061"),
    # Ensembl ID
    ("ensembl_id", "What is the Ensembl ID of WDR33?", "ENSG00000136709"),
    ("ensembl_id", "gdf5 ensembl gene id", "ENSG00000125965"),
    ("ensembl_id", "The Ensembl identifier for RBFOX3 is", "ENSG00000167281"),
    ("ensembl_id", "Tell me FZD1's Ensembl ID.", "ENSG00000157240"),
    ("ensembl_id", "ENSG number of Acaa1?", "ENSG00000060971"),
    ("ensembl_id", "Find the Ensembl gene for ZNF518B", "ENSG00000178163"),
    ("ensembl_id", "ensembl id, syn3-as1", "ENSG00000236054"),
    # Entrez / NCBI Gene ID
    ("entrez_id", "What is the NCBI Gene ID of WDR33?", "55339"),
    ("entrez_id", "gdf5 entrez id", "8200"),
    ("entrez_id", "The Entrez Gene identifier of CCDC22 is", "28952"),
    ("entrez_id", "Tell me RBFOX3's NCBI gene ID", "146713"),
    ("entrez_id", "Which Entrez ID belongs to Fzd1?", "8321"),
    ("entrez_id", "ncbi gene id - linc01761", "440594"),
    # full name
    ("full_name", "What is the full name of WDR33?", "WD repeat domain 33"),
    ("full_name", "gdf5 full name", "growth differentiation factor 5"),
    ("full_name", "The full gene name of FZD1 is", "frizzled class receptor 1"),
    ("full_name", "What does ACAA1 stand for?", "acetyl-CoA acyltransferase 1"),
    ("full_name", "Tell me the full name of Rbfox3", "RNA binding fox-1 homolog 3"),
    ("full_name", "full name for the gene CFL1P5, please", "cofilin 1 pseudogene 5"),
    # disease -> genes (ClinVar gene_condition_source_id, one gene each)
    ("disease_genes", "Which gene is associated with Trigonocephaly 2?", "FREM1"),
    ("disease_genes", "genes related to pyruvate kinase deficiency of red cells", "PKLR"),
    ("disease_genes", "The gene behind Episodic ataxia type 1 is", "KCNA1"),
    ("disease_genes", "Tell me the gene that causes Acrocallosal syndrome", "KIF7"),
    ("disease_genes", "Tenorio syndrome - which gene?", "RNF125"),
    ("disease_genes", "What gene is mutated in Hutchinson-Gilford syndrome?", "LMNA"),
    ("disease_genes", "stankiewicz-isidor syndrome gene", "PSMD12"),
    ("disease_genes", "Which genes underlie Pontocerebellar hypoplasia type 9", "AMPD2"),
    ("disease_genes", "Name the gene linked to Reticulate acropigmentation of Kitamura.", "ADAM10"),
    ("disease_genes", "Yuksel-Vogel-Bauer syndrome: causative gene?", "DLG5"),
]
