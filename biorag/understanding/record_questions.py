"""Questions the literature cannot answer: a record field asked of an identifier (the
chromosome of an rsID, the organism of a DNA sequence, the sequence of a genomic region).
Such a question is about one record; a paper that happens to share its words is no answer,
so when the sources that hold such records were asked and none answered, the loop ends and
says why, instead of quoting unrelated literature.
"""

from __future__ import annotations

from biorag.understanding.question_model import Analysis

#: entity kinds that name one record rather than a topic
IDENTIFIER_KINDS = frozenset({"rsid", "sequence", "region", "accession", "ensembl", "entrez"})


def asks_record_of_identifier(analysis: Analysis) -> bool:
    """True when the question asks a record field (not a relation in free text) of an
    identifier and of nothing else."""
    if analysis.intent is None or analysis.free_text:
        return False
    takes = set(analysis.intent.hops[0].takes)
    return bool(takes) and takes <= IDENTIFIER_KINDS
