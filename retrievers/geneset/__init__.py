"""Gene-set enrichment and naming over GO, Reactome and the local libraries."""
