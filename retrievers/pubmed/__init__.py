"""The local PubMed index: MeSH-filtered vector search over cleaned abstracts."""
