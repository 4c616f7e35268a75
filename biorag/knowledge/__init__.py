"""Domain algorithms that need no model and no question: gene-set libraries and enrichment, the
rule that names a gene set, phenotype scoring and naming, MeSH, disease-gene ordering, name
normalisation, phenopackets."""
