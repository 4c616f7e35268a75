"""BLAST: the URL API for a sequence, and what its hits answer."""
