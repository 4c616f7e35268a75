"""Genome regions (chrN:a-b) read from a local FASTA given in settings (`genome.fasta`)."""
