"""Web search (DuckDuckGo, Wikipedia, arXiv, Crossref)."""
