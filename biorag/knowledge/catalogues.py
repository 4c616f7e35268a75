"""The catalogues whose records BioRAG cites, and where each record lives on the web.

One map for every consumer: the retrievers build `Evidence.url` from it, citations name a
record `catalogue:id` with these catalogue names, and the API hands the same templates to
the chat page (`GET /v1/catalogues`), which links trace hits and answer markers with them.

A template has one ``{id}`` placeholder for the record's id within its catalogue (the
part after ``catalogue:``), percent-encoded when filled.
"""

from __future__ import annotations

from urllib.parse import quote

#: catalogue (as citations name it) -> the record's web page, ``{id}`` the record's id
CATALOGUES: dict[str, str] = {
    "pubmed": "https://pubmed.ncbi.nlm.nih.gov/{id}/",
    "gene": "https://www.ncbi.nlm.nih.gov/gene/{id}",
    "dbsnp": "https://www.ncbi.nlm.nih.gov/snp/{id}",
    # a ClinVar variation (the local dbsnp backend's records: "clinvar:12375")
    "clinvar": "https://www.ncbi.nlm.nih.gov/clinvar/variation/{id}/",
    "omim": "https://omim.org/entry/{id}",
    "medgen": "https://www.ncbi.nlm.nih.gov/medgen/{id}",
    "orphanet": "https://www.orpha.net/en/disease/detail/{id}",
    "mondo": "https://monarchinitiative.org/MONDO:{id}",
    "mesh": "https://meshb.nlm.nih.gov/record/ui?ui={id}",
    "hp": "https://hpo.jax.org/browse/term/HP:{id}",
    # the hpo source's gene records ("hpo:7157", id an NCBI Gene ID): the gene's HPO page
    "hpo": "https://hpo.jax.org/browse/gene/NCBIGene:{id}",
    "decipher": "https://www.deciphergenomics.org/syndrome/{id}",
}

#: a disease or term id's prefix as the data files write it ("OMIM:154700", "ORPHA:648",
#: "HP:0001166") -> the catalogue that holds the record
ID_PREFIXES: dict[str, str] = {
    "OMIM": "omim",
    "ORPHA": "orphanet",
    "MONDO": "mondo",
    "MedGen": "medgen",
    "MESH": "mesh",
    "HP": "hp",
    "DECIPHER": "decipher",
}

#: who linked a gene to a disease, in plain words: the gene store's link sources
#: (`genes_source`, ClinVar's "related" genes apart) and HPO's annotations. The one place
#: these names are written: the omim and hpo sources, answers and citations use them.
GENE_LINKERS: dict[str, str] = {
    "omim_title": "OMIM",
    "mim2gene_medgen": "NCBI mim2gene_medgen",
    "clinvar": "ClinVar",
    "clinvar (related)": "ClinVar (related genes)",
    "hpo": "HPO annotations",
}


def record_url(catalogue: str, record_id: str | int) -> str | None:
    """The web page of `record_id` in `catalogue`; None for a catalogue with no template."""
    template = CATALOGUES.get(catalogue)
    return template.format(id=quote(str(record_id), safe="")) if template else None


def catalogue_of(prefixed_id: str) -> tuple[str, str]:
    """("omim", "154700") for "OMIM:154700": the catalogue holding a prefixed record id and
    the id within it. An unknown prefix becomes its lower-cased self ("FOO:1" -> ("foo", "1"))."""
    prefix, _, local_id = prefixed_id.partition(":")
    return ID_PREFIXES.get(prefix, prefix.lower()), local_id


def cited_as(prefixed_id: str) -> str:
    """How a record with a prefixed id is cited, under its own catalogue: "OMIM:154700" ->
    "omim:154700", "ORPHA:648" -> "orphanet:648", "HP:0001166" -> "hp:0001166"."""
    catalogue, local_id = catalogue_of(prefixed_id)
    return f"{catalogue}:{local_id}"
