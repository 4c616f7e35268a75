"""Question -> typed request. Entity linking first (genes, ids, variants, diseases, phenotypes,
sequences, options), then the intent: what is asked decides the task (`analysis.analyse` is the
entry point; `search_request` turns an analysis or a string into a `SearchRequest`)."""
