"""The application layer: composes sources (the registry lines of `catalog.py`), the LLM,
the lexicon and the agent into a runnable system (`engine.py`). The CLI, the server and the
evaluation harness get their agents and retrievers here."""
