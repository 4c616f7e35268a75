"""FOURTH HELD-OUT set: written in full (08:55 UTC, 2026-11-25) before any change of this
session to question understanding, and committed on its own so the history shows that. Its
score is measured (benchmarks/understanding_cost.py prints it, before and after), never
tuned on: miss classes are fixed by looking at the tuned set (phrasings.py) only.

Why a fourth set: the first three under-use these styles, which people do type:
- two genes in one question ("Where are KRAS and NRAS?", `TWO_GENES`): right only when
  the answer gives BOTH genes' values; an honest "insufficient" is a miss (not right: the
  person asked about both); one gene's value alone, or any wrong value, marked sufficient,
  is wrong ("never silently one");
- diseases named by MeSH-style entry terms, possessives, British or colloquial forms
  ("coeliac disease", "Crohn's disease", "sickle cell anaemia", "Wilson's disease");
- "where do the genes for X map" (`DISEASE_BANDS`): the band of the disease's gene must be
  in the answer (a gene symbol instead of a band is wrong);
- symbols with digits and hyphens (HLA-A, HLA-DRB1, NKX2-1, MT-ND1, HOXA-AS2, C9orf72,
  C4orf33) and previous symbols of that shape (MLL, SEPT9, C11orf30, C7orf10, FAM123B);
- trailing context ("... for my thesis", "... thanks!", "- need it for a grant").
Every answer field is asked: official symbol, aliases, chromosome, map location, gene type,
protein-coding, Ensembl and Entrez IDs, function, genes and position of a SNP, disease genes.

Values are read from the real records with a small script, never by running BioRAG: the
bundled snapshot of the human bulk files (indexing/resources/human_genes), combined the way
the gene store combines them (HGNC wins symbol and name; gene_info the chromosome, band and
type; aliases are the sorted gene_info synonyms, HGNC aliases and previous symbols after the
symbol, one spelling per name; Ensembl IDs gene_info's and HGNC's, sorted). A function asked
of the local store is the record's full name and type. SNP items use rsIDs of the bundled dev
recording (retrievers/resources/ncbi_cassette_dev.jsonl, dbSNP esummary/efetch: genes and
chrpos). Disease items use names a record gives genes for: ClinVar gene_condition_source_id
(Wilson disease -> ATP7B, Tay-Sachs disease -> HEXA, Fabry disease -> GLA, Celiac disease ->
CTLA4/HLA-DQA1/HLA-DQB1/MYO9B, Friedreich ataxia -> FXN, Achondroplasia -> FGFR3,
Alpha-1-antitrypsin deficiency -> SERPINA1, Niemann-Pick disease, type C1 -> NPC1,
Polycystic kidney disease, adult type -> PKD1, Retinoblastoma -> RB1, Menkes kinky-hair
syndrome -> ATP7A, Hemophilia -> F8/F9) or HPO's phenotype.hpoa with mim2gene_medgen
(OMIM:266600 "Inflammatory bowel disease 1, Crohn disease" -> IL6/NOD2; OMIM:603903 "Sickle
cell anemia" -> HBB); the answer must contain the named gene.
Entities are new to the other phrasing sets, except a few genes reached here through a
disease name never used before (NOD2, HBB, RB1 as a disease's gene).

MEASURED before any change (09:05 UTC, 2026-11-25), counts only, no item read: 83/91 = 0.912
right (single-field items 75/83: 3 answered insufficient, 5 wrong values marked sufficient;
two-gene items 8/8).

AFTER this session's fixes (09:05 UTC; two genes answered per gene, "where do the genes for X
map" as bands, words around a question, "call X now"), counts only, no item read: 88/91 =
0.967 right, 2 answered insufficient, 1 wrong value marked sufficient. The fixes were found on
tuned phrasings (phrasings.py), but the same person wrote this set and those tuned probes, and
some tuned probes mirror this set's styles with other entities (trailing context, hyphenated
and mitochondrial symbols, "What does HGNC call X now"): so this after-score is not a clean
unseen measure for those styles; the before-score is.
"""

from __future__ import annotations

import re

from tests.understanding.heldout_phrasings import matches

HELDOUT_FOURTH: list[tuple[str, str, str]] = [
    # official_symbol: previous symbols with digits / hyphens (HGNC prev_symbol, one owner each)
    ('official_symbol', "What is the official symbol of MLL these days? Need it for my thesis.", 'KMT2A'),  # trailing context
    ('official_symbol', "SEPT9 current HGNC symbol", 'SEPTIN9'),  # fragment
    ('official_symbol', "Which approved symbol replaced C11orf30, thanks!", 'EMSY'),  # trailing thanks
    ('official_symbol', "The official gene symbol of C7orf10 is", 'SUGCT'),  # cloze
    ('official_symbol', "Is FAM123B still the official name, or what is it called now?", 'AMER1'),  # two clauses, one field
    ('official_symbol', "official symbol of TITF1 - need it for a grant", 'NKX2-1'),  # symbol with hyphen as answer
    ('official_symbol', "kiaa0101 official symbol?", 'PCLAF'),  # lower case
    ('official_symbol', "What does HGNC call MARCH1 now", 'MARCHF1'),  # renamed for spreadsheets
    ('official_symbol', "mtnd1 -> current symbol", 'MT-ND1'),  # mitochondrial, hyphen in the answer
    # aliases
    ('aliases', "What are the aliases of HLA-A?", 'HLA-A, HLAA'),  # hyphen
    ('aliases', "Other names of NKX2-1, for my thesis", 'NKX2-1, BCH, BHC, NK-2, NKX2.1, NKX2A, NMTC1, T/EBP, TEBP, TITF1, TTF-1, TTF1'),  # trailing context
    ('aliases', "synonyms for the human gene C9orf72", 'C9orf72, ALSFTD, DENND9, DENNL72, FTDALS, FTDALS1, MGC23980'),  # orf symbol
    ('aliases', "List all aliases of hla-drb1 please", 'HLA-DRB1, DRB1, HLA-DR1B, HLA-DRB, SS1'),  # lower case with hyphen
    ('aliases', "MT-ND1 is also known as what?", 'MT-ND1, MTND1, NAD1, ND1'),  # mitochondrial
    ('aliases', "What other symbols has EMSY had? thanks in advance", 'EMSY, C11orf30, GL002'),  # trailing thanks
    ('aliases', "Alternative names for SUGCT", 'SUGCT, C7orf10, DERP13, FLJ11808, GA3, ORF19'),  # plain
    # chromosome
    ('chromosome', "Which chromosome is HLA-A on? Asking for my thesis.", 'chr6'),  # hyphen; trailing context
    ('chromosome', "what chromosome is C9orf72 on", 'chr9'),  # orf symbol
    ('chromosome', "On which chromosome does MT-ND1 lie?", 'chrMT'),  # mitochondrial genome
    ('chromosome', "chromosome of KMT2A, thanks", 'chr11'),  # fragment; trailing thanks
    ('chromosome', "Where is SRY located?", 'chrY'),  # where = chromosome
    ('chromosome', "Which chromosome carries the G6PD gene - need it for a lab report", 'chrX'),  # trailing context
    ('chromosome', "nkx2-1 chromosome?", 'chr14'),  # lower case with hyphen
    ('chromosome', "Where is HOXA-AS2 in the genome?", 'chr7'),  # hyphenated ncRNA
    # map_location
    ('map_location', "What is the cytogenetic band of HLA-DRB1?", '6p21.32'),  # hyphen and digits
    ('map_location', "Map location of C4orf33 please, it's for my thesis", '4q28.2'),  # orf symbol; trailing context
    ('map_location', "cytoband for nkx2-1", '14q13.3'),  # lower case with hyphen
    ('map_location', "Which band is PTEN in?", '10q23.31'),  # question
    ('map_location', "The chromosomal band of SEPTIN9 is", '17q25.3'),  # cloze
    ('map_location', "where does MARCHF1 map (cytogenetically)?", '4q32.2-q32.3'),  # where ... map; band range
    ('map_location', "locus of KCNQ1OT1?", '11p15.5'),  # ncRNA
    # gene_type
    ('gene_type', "What type of gene is HLA-H?", 'pseudogene (pseudo)'),  # hyphen; also an alias of HFE
    ('gene_type', "gene type of MT-RNR1", 'ribosomal rna (rrna)'),  # mitochondrial rRNA
    ('gene_type', "What kind of gene is MT-TL1? It's for a class assignment.", 'transfer rna (trna)'),  # trailing context
    ('gene_type', "biotype of HOXA-AS2", 'non-coding rna (ncrna)'),  # hyphenated antisense RNA
    ('gene_type', "What sort of gene is SNHG1", 'non-coding rna (ncrna)'),  # host gene
    ('gene_type', "Which type of gene is KCNQ1OT1?", 'non-coding rna (ncrna)'),  # digits inside
    # protein_coding
    ('protein_coding', "Is HLA-A protein-coding?", 'Yes'),  # hyphen
    ('protein_coding', "Does MIR155HG encode a protein? asking for my thesis", 'No'),  # trailing context
    ('protein_coding', "is c9orf72 a protein coding gene", 'Yes'),  # lower-case orf symbol
    ('protein_coding', "Does HLA-H code for a protein?", 'No'),  # pseudogene
    ('protein_coding', "Is KCNQ1OT1 protein coding, thanks", 'No'),  # trailing thanks
    ('protein_coding', "Whether GAPDH codes for a protein:", 'Yes'),  # cloze
    # ensembl_id
    ('ensembl_id', "Ensembl ID of NKX2-1?", 'ENSG00000136352'),  # hyphen
    ('ensembl_id', "What is the Ensembl gene ID for HLA-B? Need it for my pipeline.", 'ENSG00000234745'),  # trailing context
    ('ensembl_id', "ensembl id of kmt2a", 'ENSG00000118058'),  # lower case
    ('ensembl_id', "The Ensembl identifier of C9orf72 is", 'ENSG00000147894'),  # cloze; orf symbol
    ('ensembl_id', "ENSG id for SEPTIN9", 'ENSG00000184640'),  # fragment
    ('ensembl_id', "Ensembl ID for MT-ND1, thanks!", 'ENSG00000198888'),  # mitochondrial; trailing thanks
    # entrez_id
    ('entrez_id', "What is the Entrez ID of HLA-DRB1?", '3123'),  # hyphen and digits
    ('entrez_id', "NCBI gene ID for PTEN - it's for my thesis", '5728'),  # trailing context
    ('entrez_id', "Entrez gene id of MT-ND1", '4535'),  # mitochondrial
    ('entrez_id', "the ncbi gene identifier of nkx2-1 is", '7080'),  # lower case cloze
    ('entrez_id', "GeneID of C4orf33?", '132321'),  # orf symbol
    ('entrez_id', "Which Entrez ID does HOXA-AS2 have", '285943'),  # hyphenated ncRNA
    # summary
    ('summary', "What does PTEN do? I need a one-liner for my thesis.", 'PTEN: phosphatase and tensin homolog (protein-coding)'),  # trailing context
    ('summary', "Function of NKX2-1?", 'NKX2-1: NK2 homeobox 1 (protein-coding)'),  # hyphen
    ('summary', "what is the role of twnk", 'TWNK: twinkle mtDNA helicase (protein-coding)'),  # lower case
    ('summary', "Tell me about the gene SEPTIN9, thanks", 'SEPTIN9: septin 9 (protein-coding)'),  # trailing thanks
    ('summary', "What is the function of HOXA-AS2?", 'HOXA-AS2: HOXA cluster antisense RNA 2 (ncRNA)'),  # hyphenated ncRNA
    # SNPs (dev recording)
    ('snp_genes', "Which gene is rs899883800 in? for my thesis", 'SPATA6'),  # trailing context
    ('snp_genes', "rs61216744 gene?", 'SCHLAP1'),  # fragment
    ('chromosome', "Which chromosome is rs1430464868 on, thanks", 'chr13'),  # trailing thanks
    ('chromosome', "where is rs547832386", 'chr15'),  # where = chromosome
    ('snp_position', "What is the genomic position of rs899883800?", 'chr1:48285450'),  # position
    ('snp_position', "GRCh38 coordinates of rs975300764 please", 'chr4:42277807'),  # coordinates
    # diseases: possessive, British, colloquial, MeSH-style names
    ('disease_genes', "Which gene causes Wilson's disease?", 'ATP7B'),  # possessive
    ('disease_genes', "What genes are linked to coeliac disease?", 'HLA-DQA1'),  # British (ClinVar: Celiac disease)
    ('disease_genes', "Which gene is mutated in Tay-Sachs disease? for my genetics class", 'HEXA'),  # trailing context
    ('disease_genes', "Gene for Fabry's disease?", 'GLA'),  # possessive
    ('disease_genes', "Which genes are associated with Crohn's disease?", 'NOD2'),  # possessive; HPO IBD1, Crohn disease
    ('disease_genes', "What gene is behind sickle cell anaemia?", 'HBB'),  # British (HPO: Sickle cell anemia)
    ('disease_genes', "genes for Friedreich's ataxia", 'FXN'),  # possessive
    ('disease_genes', "Which gene is responsible for alpha-1 antitrypsin deficiency?", 'SERPINA1'),  # hyphen variant
    ('disease_genes', "Niemann-Pick disease type C1 - which gene?", 'NPC1'),  # no comma (ClinVar: ", type C1")
    ('disease_genes', "What gene causes adult polycystic kidney disease?", 'PKD1'),  # word order (ClinVar: ", adult type")
    ('disease_genes', "genes involved in haemophilia", 'F8'),  # British
    # where do the genes for X map (DISEASE_BANDS: the gene's band must be in the answer)
    ('map_location', "Where do the genes for Wilson disease map?", '13q14.3'),
    ('map_location', "Where does the gene for achondroplasia map?", '4p16.3'),
    ('map_location', "Which cytogenetic band is the Tay-Sachs disease gene in?", '15q23'),
    ('map_location', "Where do the genes for Friedreich ataxia lie, at band level?", '9q21.11'),
    ('map_location', "Map location of the gene for Menkes kinky-hair syndrome", 'Xq21.1'),
    ('map_location', "Where do the genes for retinoblastoma map? for my thesis", '13q14.2'),
]

#: two genes in one question: (field, question, each gene's value); see the module docstring
TWO_GENES: list[tuple[str, str, tuple[str, str]]] = [
    ('chromosome', "Where are KRAS and NRAS?", ('chr12', 'chr1')),
    ('chromosome', "Which chromosomes are SRY and G6PD on?", ('chrY', 'chrX')),
    ('ensembl_id', "Ensembl IDs of PTEN and RB1", ('ENSG00000171862', 'ENSG00000139687')),
    ('protein_coding', "Are GAPDH and MIR155HG protein-coding?", ('Yes', 'No')),
    ('entrez_id', "What are the Entrez IDs for HLA-A and HLA-B?", ('3105', '3106')),
    ('map_location', "cytogenetic bands of NKX2-1 and PTEN", ('14q13.3', '10q23.31')),
    ('official_symbol', "What are the official symbols of MLL and SEPT9?", ('KMT2A', 'SEPTIN9')),
    ('gene_type', "gene types of KCNQ1OT1 and HLA-H, for my thesis", ('ncrna', 'pseudo')),
]

#: "where do the genes for X map": the expected band must occur in the answer
DISEASE_BANDS = frozenset(q for f, q, _ in HELDOUT_FOURTH[-6:] if f == "map_location")

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]*[A-Za-z0-9]|[A-Za-z0-9]")


def tokens(answer: str) -> set[str]:
    """The answer's words, lower case, with the characters symbols, bands and IDs use."""
    return {t.lower() for t in _TOKEN.findall(answer)}


def judge(field: str, question: str, expected: str | tuple[str, ...], answer: str, sufficient: bool) -> str:
    """'right', 'miss' (an honest "insufficient") or 'wrong' (a wrong value marked sufficient);
    `expected` a tuple: a question about two genes (`judge_two`)."""
    if isinstance(expected, tuple):
        return judge_two(expected, answer, sufficient)
    if question in DISEASE_BANDS:
        ok = expected.lower() in tokens(answer)
    elif field == "snp_position":
        ok = answer.strip().lower() == expected.lower()
    else:
        ok = matches(field, answer, expected)
    if ok and sufficient:
        return "right"
    return "wrong" if sufficient else "miss"


def judge_two(values: tuple[str, ...], answer: str, sufficient: bool) -> str:
    """Two genes in one question: right only with every gene's value in the answer."""
    if not sufficient:
        return "miss"
    found = tokens(answer)
    return "right" if all(v.lower() in found for v in values) else "wrong"
