"""The `omim` source's record as a type: a disease (or gene) entry and the genes linked to it.

Three writers give it, with the keys each always wrote (retrievers/omim/retriever.py):

- an OMIM entry from E-utilities (`omim_entry`), completed from the local gene store when
  there is one (today's symbols, ``gene_ids``, mim2gene_medgen's genes and notes);
- a disease of the local dictionary (``match`` says how its name was found), cited under its
  own catalogue;
- a gene that the disease name itself names (``match="gene_name"``), when no catalogue holds
  the name.

A key only some writers give is written only when given (`OPTIONAL`). The local backend
always wrote its keys in another order than E-utilities' (``gene_ids`` after ``genes``,
``backend`` before the gene notes), and `as_metadata` keeps each order, so the JSON on the
wire is unchanged. Written into `Evidence.metadata` and read back (`OmimRecord.of`) as every
source record is (retrievers/common/source_record.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

from retrievers.common.source_record import SourceRecord

#: the local backend's key order (see the module docstring)
_LOCAL_ORDER = ("title", "genes", "gene_ids", "locations", "entry_type", "prefix", "alt_titles", "genes_source",
                "disease_id", "xrefs", "backend", "form", "match", "gene_link_notes", "gene_links", "asked_as",
                "named_by", "named_as")


class OmimRecord(SourceRecord):
    """An entry's title, its genes (with who linked each), their locations and what kind of
    entry it is."""

    SOURCE: ClassVar[str] = "omim"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({
        "genes_as_listed", "gene_ids", "genes_ambiguous", "gene_link_notes", "partial_response", "backend",
        "gene_links", "disease_id", "xrefs", "form", "match", "asked_as", "named_by", "named_as"})
    title: str
    #: gene symbols (current official ones where the gene store resolved them)
    genes: list[str] = []
    #: cytogenetic locations ("17q21.2")
    locations: list[str] = []
    #: "gene", "gene/phenotype", "phenotype", "phenotype, molecular basis unknown", "removed", "other"
    entry_type: str = "other"
    #: OMIM's prefix symbol (*, +, #, %, ^ or "")
    prefix: str = ""
    alt_titles: str = ""
    #: who gave the genes: "omim_title", "mim2gene_medgen", "local: <catalogues>"; None: no genes
    genes_source: str | None = None
    # ---- written only when given (see the module docstring)
    #: the symbols as OMIM's title lists them (when the store gave today's)
    genes_as_listed: list[str] = []
    #: NCBI Gene IDs of `genes`, in order (None: the store could not resolve that symbol)
    gene_ids: list[int | None] = []
    #: a listed symbol -> the genes it could mean
    genes_ambiguous: dict[str, list[str]] = {}
    #: NCBI's comment on a gene's link ("question": a provisional link)
    gene_link_notes: dict[str, str] = {}
    partial_response: bool = False
    #: which backend answered: "eutils", "local" (or the layered source's layer label)
    backend: str | None = None
    #: gene symbol -> the catalogues linking it to the entry, in plain words (biorag.loop.links)
    gene_links: dict[str, list[str]] = {}
    # the local backend's
    disease_id: str | None = None
    xrefs: list[str] = []
    #: which form of the name the record is: "name", or a subtype/qualified form
    form: str | None = None
    #: how the asked name was matched: "name", "words", "core", "spelling", "series", "gene_name"
    match: str | None = None
    #: the words asked, when the record is the disease (or gene) under other words
    asked_as: str | None = None
    #: a gene named by the disease name: what named it ("symbol", "product name", ...) and as what
    named_by: str | None = None
    named_as: str | None = None

    @property
    def is_local(self) -> bool:
        """Given by the local disease dictionary (not an OMIM entry from E-utilities)."""
        return self.match is not None

    @property
    def gene_keys(self) -> list[str]:
        """Each gene as its Gene ID where known, else its symbol, in order."""
        ids = self.gene_ids or [None] * len(self.genes)
        return [str(i if i is not None else g) for g, i in zip(self.genes, ids, strict=False)]

    def as_metadata(self) -> dict[str, Any]:
        """The record's keys, in its writer's order (see the module docstring)."""
        md = super().as_metadata()
        if not self.is_local:
            return md
        return {**{k: md[k] for k in _LOCAL_ORDER if k in md}, **md}
