"""Retrievers: one module per source behind the `Retriever` interface (see base.py);
`registry.py` builds the enabled set from settings."""
