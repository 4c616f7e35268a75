"""NCBI Gene: the gene card, its fields and evidence, live or from the local gene store."""
