"""Which module implements which source: the registry lines, wired at the composition root.

Adding a source = one module in `retrievers/` plus one `SOURCES.register(...)` line here
(and, if it should be on by default, an entry in the presets). Targets are import strings,
so only the sources a run enables are ever imported."""

from __future__ import annotations

from biorag.registry import Registry

SOURCES = Registry()

#: every source name with an implementation, in registration order
registered_sources = SOURCES.names
#: the class for a source and backend (the first registered backend by default)
retriever_class = SOURCES.retriever_class

# ---- the registry lines --------------------------------------------------------------
SOURCES.register("gene", "eutils", "retrievers.gene:GeneRetriever")
SOURCES.register("gene", "local", "retrievers.gene:LocalGeneRetriever")
SOURCES.register("gene", "layered", "retrievers.layered:LayeredGeneRetriever")
SOURCES.register("dbsnp", "eutils", "retrievers.dbsnp:DbSnpRetriever")
SOURCES.register("dbsnp", "local", "retrievers.clinvar_variants:LocalVariantRetriever")
SOURCES.register("dbsnp", "layered", "retrievers.layered:LayeredDbSnpRetriever")
SOURCES.register("omim", "eutils", "retrievers.omim:OmimRetriever")
SOURCES.register("omim", "local", "retrievers.omim_local:LocalOmimRetriever")
SOURCES.register("omim", "layered", "retrievers.layered:LayeredOmimRetriever")
SOURCES.register("blast", "ncbi", "retrievers.blast:BlastRetriever")
SOURCES.register("seqtools", "local", "retrievers.sequence_tools:SequenceToolsRetriever")
SOURCES.register("web", "ddgs", "retrievers.web:DdgsWebRetriever")
SOURCES.register("web", "wikipedia", "retrievers.web:WikipediaRetriever")
SOURCES.register("web", "arxiv", "retrievers.web:ArxivRetriever")
SOURCES.register("web", "crossref", "retrievers.web:CrossrefRetriever")
SOURCES.register("pubmed", "milvus", "retrievers.pubmed:PubMedRetriever")
SOURCES.register("nucleotide", "eutils", "retrievers.sequence_record:SequenceRecordRetriever")
SOURCES.register("hpo", "local", "retrievers.hpo:HpoRetriever")
SOURCES.register("geneset", "local", "retrievers.geneset:GeneSetRetriever")
SOURCES.register("trrust", "local", "retrievers.regulation:RegulationRetriever")
SOURCES.register("genome", "fasta", "retrievers.genome:GenomeRetriever")
SOURCES.register("mentions", "local", "retrievers.name_mentions:MentionsRetriever")
