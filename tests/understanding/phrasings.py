"""Phrasings of every answer field, used WHILE BUILDING question understanding (tuned on).

Each field has at least 8 phrasings: a question, a cloze sentence, an imperative, a fragment,
lower case, extra words, no question mark, and hyphen/case variants of the entity; and (added
in the sixth session, before the third held-out set was looked at item by item) the ways
people type: misspelt words ("wat", "chromsome", "protien"), British spellings, quoted
names (curly and guillemets), the species, a leading context clause naming a disease, "gene
for <disease>". `STYLES` holds the phrasings no template can: genes named by their full name
written out, British disease names, two questions in one sentence (the first one's value).
Placeholders: {x} the entity as the record spells it, {xl} lower-cased, {xv} a hyphen or
case variant. The held-out phrasings, never tuned on, are in heldout_phrasings.py.

Entities and values are real records: the HGNC/NCBI gene_info snapshot bundled in
indexing/resources/human_genes, and the dbSNP/OMIM/BLAST responses of the bundled dev
recording (retrievers/resources/ncbi_cassette_dev.jsonl).
"""

from __future__ import annotations

#: field -> (entities as (name, lower, variant, expected answer), phrasings)
GENE = {
    "official_symbol": (
        [("CARD15", "card15", "Card-15", "NOD2"), ("LMP10", "lmp10", "Lmp10", "PSMB10")],
        ["What is the official gene symbol of {x}?",
         "The official symbol of gene {x} is",
         "Tell me the official symbol for {x}.",
         "official symbol of {x}?",
         "what's the approved hgnc symbol for {xl}",
         "I was reading an older paper; what is the current official gene symbol of {x} these days?",
         "Give the Official Gene-Symbol for {xv}",
         "convert {x} to its official symbol",
         "{x}: official symbol",
         "wat is the offical symbol of \u201c{x}\u201d now???",
         "I'm reading about Crohn disease; what is {x} called these days?",
         "human {xv} - approved symbol?!"]),
    "aliases": (
        [("SLC38A6", "slc38a6", "Slc38a6", "SLC38A6, NAT-1, SNAT6")],
        ["What are the aliases of {x}?",
         "The aliases of gene {x} are",
         "List the other names of {x}.",
         "{x} synonyms?",
         "what other names is {xl} known by",
         "I keep seeing different names in papers - what are all the aliases for the {x} gene?",
         "Tell me {xv}'s alternative names",
         "aliases for {x}",
         "{x} also known as?",
         "List alternative symbols for {x} please",
         "what were the former names of {xl}",
         "Which previous or alternate symbols does {xv} have?",
         "waht are the alisases of '{x}'?",
         "For a grant on amino acid transport: which synonyms does human {x} have..."]),
    "chromosome": (
        [("FTO", "fto", "Fto", "chr16"), ("BRCA2", "brca2", "Brca2", "chr13")],
        ["Which chromosome is {x} on?",
         "{x} is located on chromosome",
         "Tell me which chromosome {x} lies on.",
         "chromosome of {x}?",
         "which chromosome is {xl} on",
         "Quick question for my thesis: on what chromosome does the human gene {x} reside?",
         "Where is {x} located?",
         "{xv} chromosome",
         "What chromosome carries {x}",
         "chromosome for {xv}",
         "Is {xv} on an autosome? Which chromosome exactly?",
         "wich chromsome is '{x}' on???",
         "I'm studying cystic fibrosis; which chromosome harbours the human {x} gene?",
         "\u00ab{xv}\u00bb chromosome"]),
    "map_location": (
        [("PSMB10", "psmb10", "Psmb10", "16q22.1")],
        ["What is the cytogenetic location of {x}?",
         "The cytogenetic band of {x} is",
         "Give me the map location of {x}.",
         "cytoband of {x}?",
         "what band is {xl} in",
         "For a karyotype figure I need the exact chromosomal locus of the {x} gene",
         "{xv} locus?",
         "Tell me the chromosomal location of {x}",
         "map-location for {x}",
         "teh cytogenetic localisation of \u201c{x}\u201d?!",
         "I'm mapping a deletion in a patient with Crohn disease; what's the cytoband of {x}?"]),
    "protein_coding": (
        [("TP53", "tp53", "Tp53", "Yes"), ("LINC01270", "linc01270", "Linc01270", "No")],
        ["Is {x} a protein-coding gene?",
         "Regarding whether it codes a protein, {x} is",
         "Tell me if {x} encodes a protein.",
         "{x} protein coding?",
         "is {xl} protein coding",
         "Sorry if this is basic, but does the gene {x} actually code for a protein or not?",
         "Does {xv} code for a protein",
         "{x}: coding gene or not?",
         "is {x} a Protein-Coding gene",
         "Wether human '{x}' codes for a protein...",
         "I'm annotating hits from a cancer screen; is {x} protien coding?"]),
    "gene_type": (
        [("TP53", "tp53", "Tp53", "protein-coding"), ("LINC01270", "linc01270", "Linc01270", "non-coding rna (ncrna)")],
        ["What type of gene is {x}?",
         "The gene type of {x} is",
         "Tell me the biotype of {x}.",
         "gene type of {x}?",
         "what kind of gene is {xl}",
         "I'm annotating a list of hits; which locus type does {x} have?",
         "{xv} biotype",
         "type of gene: {x}",
         "What kind of gene is {x}",
         "what sort of gene is \u201c{x}\u201d??",
         "What class of gene is human {xv}?"]),
    "summary": (
        [("TP53", "tp53", "Tp53", "TP53: tumor protein p53 (protein-coding)")],
        ["What is the function of {x}?",
         "The function of {x} is",
         "Tell me about {x}.",
         "{x} function?",
         "what does {xl} do",
         "Could you briefly summarise the role of the gene {x}?",
         "What is {xv}?",
         "Describe {x}",
         "{x}?",
         "wat is the function of '{x}'?",
         "I'm new to cancer biology; could you summarise the role of human {x}?"]),
    "ensembl_id": (
        [("TP53", "tp53", "Tp53", "ENSG00000141510")],
        ["What is the Ensembl ID of {x}?",
         "The Ensembl gene ID of {x} is",
         "Give me the Ensembl identifier for {x}.",
         "ensembl id of {x}?",
         "ensembl id for {xl}",
         "I need to look something up in the Ensembl browser: what's the ENSG for {x}",
         "Convert {xv} to Ensembl",
         "{x} -> Ensembl gene ID",
         "What's {x}'s Ensembl gene identifier?",
         "the ensembl gene identifiers of {xv} are",
         "Wat's the ensmbl id for \u201c{x}\u201d?!",
         "I'm cross-referencing RNA-seq results with Ensembl; what's the ID for human {x}?"]),
    "entrez_id": (
        [("TP53", "tp53", "Tp53", "7157")],
        ["What is the NCBI Gene ID of {x}?",
         "The Entrez ID of {x} is",
         "Tell me the NCBI gene id for {x}.",
         "entrez id of {x}?",
         "what is the gene id of {xl}",
         "For my script I need the numeric NCBI GeneID of {x}",
         "Convert {xv} to an Entrez Gene ID",
         "{x} entrez",
         "I need to query NCBI from a script; what's the GeneID of '{x}'?",
         "wat is teh entrez id of Homo sapiens {xv}..."]),
    "full_name": (
        [("TP53", "tp53", "Tp53", "tumor protein p53")],
        ["What is the full name of {x}?",
         "The full name of gene {x} is",
         "Tell me what {x} stands for.",
         "full name of {x}?",
         "what does {xl} stand for",
         "Spell out the full gene name of {x}, please",
         "{xv} full name",
         "full name: {x}",
         "Spell out {x}",
         "give me the unabbreviated name of {xl}",
         "What is the long form of {xv}?",
         "wat does \u201c{x}\u201d stand for???"]),
    "official_symbol_from_ensembl": (
        [("ENSG00000215251", "ensg00000215251", "ENSG00000215251.5", "FASTKD5")],
        ["What is the official gene symbol of {x}?",
         "The official symbol of {x} is",
         "Convert {x} to official gene symbol.",
         "symbol of {x}?",
         "official symbol for {xl}",
         "Our pipeline only gives Ensembl IDs; which official gene symbol is {x}?",
         "Convert {xv} into an official symbol",
         "{x} gene symbol",
         "wat is the offical symbol of \u201c{x}\u201d?"]),
}

SNP = {
    "snp_genes": (
        [("rs1217074595", "rs1217074595", "RS1217074595", "LINC01270")],
        ["Which gene is SNP {x} associated with?",
         "The gene associated with {x} is",
         "Tell me the gene that {x} falls in.",
         "gene of {x}?",
         "which gene is {xl} in",
         "I found {x} among my GWAS hits; which gene does it belong to?",
         "{xv} gene",
         "What gene contains {x}",
         "wich gene does '{x}' fall in??",
         "I'm following up a GWAS hit; {x} maps to which gene?",
         "The gene harbouring human {x} is"]),
    "chromosome": (
        [("rs545148486", "rs545148486", "RS545148486", "chr16")],
        ["Which chromosome does SNP {x} locate on human genome?",
         "{x} is located on chromosome",
         "Tell me the chromosome of {x}.",
         "chromosome of {x}?",
         "which chromosome is {xl} on",
         "Out of curiosity, on what chromosome would I find the variant {x}?",
         "Where is {xv} located?",
         "{x} chromosome",
         "chromosome location for {x}",
         "The chromosomal location of {xv} is",
         "what chromosomal location does {xl} have",
         "chromsome of '{x}'??"]),
    "snp_function": (
        # a ClinVar variant (the gene store's local ClinVar) in TP53; LINC01270, the gene of the
        # dev recording's rs1217074595, has no GO BP or Reactome annotation: no function to give
        [("rs121913343", "rs121913343", "RS121913343", "TP53: tumor protein p53 (protein-coding)")],
        ["What is the function of the gene associated with SNP {x}?",
         "The function of the gene that {x} is in is",
         "Tell me what the gene containing {x} does.",
         "function of the gene of {x}?",
         "what is the role of the gene that {xl} falls in",
         "My variant {x} turned up in a screen; could you explain the function of its gene?",
         "Describe the function of the gene associated with {xv}",
         "{x}: function of its gene"]),
}

DISEASE = {
    "disease_genes": (
        [("Meesmann corneal dystrophy", "meesmann corneal dystrophy", "Meesmann Corneal Dystrophy", "KRT12, KRT3")],
        ["What are genes related to {x}?",
         "The genes associated with {x} are",
         "List the genes that cause {x}.",
         "{x} genes?",
         "which genes are linked to {xl}",
         "My cousin was diagnosed with {x}; which genes are behind it?",
         "genes for {xv}",
         "Tell me the causal genes of {x}",
         "{x}: which gene?",
         "{xl} genes",
         "Tell me which genes are implicated in {xv}",
         "{x} - causative genes please",
         "What is the gene for {x}?",
         "My patient has {x} - what's the gene for it?",
         "gene for '{x}'",
         "wich genes cause \u201c{xl}\u201d??"]),
    "map_location": (
        [("Meesmann corneal dystrophy", "meesmann corneal dystrophy", "Meesmann Corneal Dystrophy", "17q21.2, 12q13.13")],
        ["List chromosome locations of the genes related to {x}.",
         "The cytogenetic locations of the genes associated with {x} are",
         "Give me the loci of the genes for {x}.",
         "{x} gene loci?",
         "cytogenetic bands of the genes linked to {xl}",
         "For a genetic counselling note I need where the genes behind {x} map (cytogenetic locations)",
         "chromosome locations of {xv} genes",
         "Tell me the map locations of the genes causing {x}",
         "teh cytogenetic bands of the genes for '{x}'?"]),
}

_SEQ = ("ATTCTGCCTTTAGTAATTTGATGACAGAGACTTCTTGGGAACCACAGCCAGGGAGCCACCCTTTACTCCACCAACAGGTGGCTTATATCCAATCTGAGAAAGAAAGAAAAAAAAAAAAGTATTTCTCT")
_WORM = ("AGGGGCAGCAAACACCGGGACACACCCATTCGTGCACTAATCAGAAACTTTTTTTTCTCAAATAATTCAAACAATCAAAATTGGTTTTTTCGAGCAAGGTGGGAAATTTTTCGAT")
SEQUENCE = {
    "organism": (
        [(_WORM, _WORM.lower(), _WORM, "Caenorhabditis elegans")],
        ["Which organism does the DNA sequence come from:{x}",
         "The organism this sequence comes from is: {x}",
         "Tell me the species of this sequence {x}",
         "organism of {x}?",
         "which species is this from {xl}",
         "A colleague sent me this read without a label, which organism is it from? {x}",
         "What organism is {xv} from",
         "{x} - organism?"]),
    "alignment": (
        # the chromosome is asserted; the coordinates depend on which assembly record
        # BLAST's ranking picks (retrievers/blast/retriever.py), not on the phrasing
        [(_SEQ, _SEQ.lower(), _SEQ, "chr15:")],
        ["Align the DNA sequence to the human genome:{x}",
         "The genomic coordinates of this sequence are: {x}",
         "Tell me where this sequence aligns in the human genome: {x}",
         "alignment of {x}?",
         "align this to the human genome please: {xl}",
         "I have a primer region and need its position in the human genome, can you map it? {x}",
         "Where does {xv} map on the human genome",
         "{x} genomic coordinates"]),
}


#: (field, question, expected): phrasings no template can hold. Values from the same records
#: (the bundled gene_info/HGNC snapshot, ClinVar gene_condition_source_id, the dev recording);
#: "disease_genes": the expected gene must be among those answered
STYLES: list[tuple[str, str, str]] = [
    # a gene named by its name written out: HGNC name, a gene_info designation, its head
    ("map_location", "Which band is proteasome 20S subunit beta 10 on?", "16q22.1"),
    ("chromosome", "What chromosome is tumour protein p53 on?", "chr17"),
    ("chromosome", "Which chromosome is the fat mass and obesity associated gene on?", "chr16"),
    ("ensembl_id", "What is the Ensembl ID of nucleotide binding oligomerization domain containing 2?",
     "ENSG00000167207"),
    ("chromosome", "Which chromosome is FAST kinase domain-containing protein 5 on?", "chr20"),
    ("chromosome", "Where is the myoglobin gene?", "chr22"),
    ("map_location", "cytoband of the rhodopsin gene", "3q22.1"),
    ("entrez_id", "NCBI gene id of the gene albumin", "213"),
    ("gene_type", "What type of gene is keratin 12?", "protein-coding"),
    # British spellings of disease names (ClinVar spells them the American way)
    ("disease_genes", "Which genes are linked to X-linked sideroblastic anaemia 1?", "ALAS2"),
    ("disease_genes", "gene for Barrett oesophagus", "ASCC1"),
    # a disease in a context clause of a gene question
    ("official_symbol", "I'm reading about Crohn disease; what is CARD15 called now?", "NOD2"),
    ("map_location", "Meesmann corneal dystrophy runs in my family; what's the cytoband of KRT12?", "17q21.2"),
    # "where" opening a question about the gene of a SNP or a disease: that gene's chromosome
    ("chromosome", "Where is the gene associated with rs1217074595?", "chr20"),
    ("chromosome", "where is the gene for meesmann corneal dystrophy", "chr17, chr12"),
    # a bare question about a gene, misspelt or quoted: its summary
    ("summary", "wat is TP53", "TP53: tumor protein p53 (protein-coding)"),
    ("summary", "'TP53'", "TP53: tumor protein p53 (protein-coding)"),
    ("summary", "teh gene FTO?", "FTO: FTO alpha-ketoglutarate dependent dioxygenase (protein-coding)"),
    # two questions in one sentence: the first one's value first (the second follows after its
    # own question, test_paraphrases)
    ("chromosome", "Where is FTO, and is it protein coding?", "chr16"),
    ("disease_genes", "What is the gene for Meesmann corneal dystrophy and where is it?", "KRT12"),
    ("chromosome", "Which chromosome is FTO on? Also, what is its type?", "chr16"),
    ("protein_coding", "is LINC01270 protein-coding, and which chromosome is it on?", "No"),
    ("snp_genes", "Which gene is rs1217074595 in, and on which chromosome?", "LINC01270"),
    ("disease_genes", "What is the gene for Meesmann corneal dystrophy, and on what chromosome is it?", "KRT12"),
    # two or more genes (or SNPs) in one question: each one's value, labelled with its name,
    # equal values kept apart (BRCA1 and TP53 are both on chr17)
    ("chromosome", "Which chromosomes are FTO and XIST on?", "FTO: chr16; XIST: chrX"),
    ("chromosome", "Where are BRCA1 and TP53?", "BRCA1: chr17; TP53: chr17"),
    ("protein_coding", "Are XIST and FTO protein-coding?", "XIST: No; FTO: Yes"),
    ("ensembl_id", "Ensembl IDs of NOD2 and KRT12", "NOD2: ENSG00000167207; KRT12: ENSG00000187242"),
    ("official_symbol", "What are the official symbols of CARD15 and LMP10?", "CARD15: NOD2; LMP10: PSMB10"),
    ("map_location", "cytogenetic bands of BRCA1, NOD2 and FTO", "BRCA1: 17q21.31; NOD2: 16q12.1; FTO: 16q12.2"),
    ("snp_genes", "Which genes are rs1241371358 and rs895485955 in?", "rs1241371358: LRRC23; rs895485955: ZNF681"),
    # where genes "map" (or lie "at band level"): their cytogenetic bands (FBN1 for Marfan syndrome)
    ("map_location", "Where do the genes for Marfan syndrome map?", "15q21.1"),
    ("map_location", "Where do the genes for Marfan syndrome lie, at band level?", "15q21.1"),
    ("map_location", "Where does FTO map?", "16q12.2"),
    # words around the question that ask nothing (ClinVar: Phenylketonuria -> PAH, QDPR)
    ("disease_genes", "genes for phenylketonuria, for my thesis", "PAH"),
    ("chromosome", "Where is FTO? for my thesis", "chr16"),
    ("map_location", "Where do the genes for Marfan syndrome map? thanks", "15q21.1"),
    ("ensembl_id", "What is the Ensembl gene ID for HLA-DQB1? Need it for my pipeline.", "ENSG00000179344"),
    ("gene_type", "What kind of gene is MT-TL2? It's for a class assignment.", "transfer rna (trna)"),
    ("chromosome", "On which chromosome does MT-CO1 lie?", "chrMT"),
    ("map_location", "Map location of NKX2-5 please, it's for my thesis", "5q35.1"),
    ("snp_position", "What is the genomic position of rs1241371358?", "chr12:6906847"),
    ("snp_position", "GRCh38 coordinates of rs895485955 please", "chr19:23751252"),
    # MeSH descriptor names (inverted, or worded as no catalogue words them) reach their genes
    # through ClinVar's names: Duchenne muscular dystrophy -> DMD; Glycogen storage disease,
    # type II -> GAA
    ("disease_genes", "genes for Muscular Dystrophy, Duchenne", "DMD"),
    ("disease_genes", "Which gene causes Glycogen Storage Disease Type II?", "GAA"),
    # the gene's name between "call" and the time: its current symbol, not its function
    ("official_symbol", "What does HGNC call LMP10 now", "PSMB10"),
    ("official_symbol", "what do we call sgol1 these days?", "SGO1"),
]

#: disease names MeSH and HPO know but no record links to a gene (HPO "Graves disease",
#: OMIM:275000, has no gene in mim2gene_medgen; ORPHA:1199 "Esophageal atresia" none in
#: genes_to_phenotype; ClinVar names neither): "insufficient", never a gene of a similar name
NO_GENE_DISEASES: list[str] = [
    "Which genes cause Graves' disease?",
    "Which genes are associated with Esophageal Atresia?",
]

#: two genes in one question, one of which no record holds (ZQX99, QWERTY1: no such gene) or
#: whose record lacks the field (BAGE: no Ensembl ID in gene_info or HGNC): "insufficient",
#: never the other gene's value alone
ONE_UNKNOWN: list[str] = [
    "Where are BRCA1 and ZQX99?",
    "Which chromosomes are FTO and QWERTY1 on?",
    "Ensembl IDs of NOD2, KRT12 and ZQX99",
    "Ensembl IDs of BRCA1 and BAGE",
]

#: questions about a gene that ask for something no record field holds: "insufficient",
#: never a line quoted from the gene's record
NO_FIELD: list[str] = [
    "How many exons does TP53 have?",
    "Which strand is BRCA2 on?",
    "Who discovered TP53?",
    "What tissues express PSMB10?",
]
