"""Files the builds write and the online side reads: SQLite helpers and build records, the gene
store's schema, gene-MeSH counts, artifact manifests of trained models."""
