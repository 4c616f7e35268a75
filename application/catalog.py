"""Which module implements which source: the registry lines, wired at the composition root.

Adding a source = one module in `retrievers/` plus one `SOURCES.register(...)` line here
(and, if it should be on by default, an entry in the presets). Targets are import strings,
so only the sources a run enables are ever imported."""

from __future__ import annotations

from biorag.retrieval.registry import Registry

SOURCES = Registry()

#: every source name with an implementation, in registration order
registered_sources = SOURCES.names
#: the class for a source and backend (the first registered backend by default)
retriever_class = SOURCES.retriever_class

# ---- the registry lines --------------------------------------------------------------
SOURCES.register("gene", "eutils", "retrievers.gene.retriever:GeneRetriever")
SOURCES.register("gene", "local", "retrievers.gene.retriever:LocalGeneRetriever")
SOURCES.register("gene", "layered", "retrievers.layered:LayeredGeneRetriever")
SOURCES.register("dbsnp", "eutils", "retrievers.dbsnp.retriever:DbSnpRetriever")
SOURCES.register("dbsnp", "local", "retrievers.dbsnp.clinvar:LocalVariantRetriever")
SOURCES.register("dbsnp", "layered", "retrievers.layered:LayeredDbSnpRetriever")
SOURCES.register("omim", "eutils", "retrievers.omim.retriever:OmimRetriever")
SOURCES.register("omim", "local", "retrievers.omim.local:LocalOmimRetriever")
SOURCES.register("omim", "layered", "retrievers.layered:LayeredOmimRetriever")
SOURCES.register("blast", "ncbi", "retrievers.blast.retriever:BlastRetriever")
SOURCES.register("seqtools", "local", "retrievers.seqtools.retriever:SequenceToolsRetriever")
SOURCES.register("web", "ddgs", "retrievers.web.retriever:DdgsWebRetriever")
SOURCES.register("web", "wikipedia", "retrievers.web.retriever:WikipediaRetriever")
SOURCES.register("web", "arxiv", "retrievers.web.retriever:ArxivRetriever")
SOURCES.register("web", "crossref", "retrievers.web.retriever:CrossrefRetriever")
SOURCES.register("pubmed", "milvus", "retrievers.pubmed.retriever:PubMedRetriever")
SOURCES.register("nucleotide", "eutils", "retrievers.nucleotide.retriever:SequenceRecordRetriever")
SOURCES.register("hpo", "local", "retrievers.hpo.retriever:HpoRetriever")
SOURCES.register("geneset", "local", "retrievers.geneset.retriever:GeneSetRetriever")
SOURCES.register("trrust", "local", "retrievers.trrust.retriever:RegulationRetriever")
SOURCES.register("genome", "fasta", "retrievers.genome.retriever:GenomeRetriever")
SOURCES.register("mentions", "local", "retrievers.mentions.retriever:MentionsRetriever")
