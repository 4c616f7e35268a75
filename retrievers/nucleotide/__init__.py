"""NCBI Nucleotide records by accession (off unless enabled)."""
