"""Models and vectors: the embedder and its traced query encoder, the encoder classifier behind
the MeSH tagger, micro-batching, the Milvus vector store and the PubMed collection's schema."""
