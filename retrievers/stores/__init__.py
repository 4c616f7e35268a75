"""Local stores several sources read: the SQLite gene store (genes, diseases, annotations,
variants) and the name lexicon built on it."""
