"""A PhEval runner for `biorag prioritise`: PhEval (the Monarch Initiative's benchmarking
framework for phenotype-driven prioritisation) finds it through the `pheval.plugins` entry
point. Its modules import only PhEval and the standard library, never the rest of BioRAG:
BioRAG runs as its own command, so PhEval and BioRAG may live in different environments
(their pins on pyarrow disagree)."""
