"""The omim source's local backend: disease names answered from the gene store's disease
dictionary (ClinVar, NCBI mim2gene_medgen, HPO and MeSH names; genes linked offline), with
no network. Its records are `OmimRecord`s with the keys of an E-utilities entry
(retrievers/omim/retriever.py says what each key holds) plus ``disease_id``, ``xrefs`` and
``backend="local"``; the ``layered`` backend (retrievers/layered.py) asks it first and
E-utilities only for what it lacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from biorag.contracts.errors import InputError
from biorag.contracts.models import Evidence
from biorag.knowledge.catalogues import GENE_LINKERS, catalogue_of, cited_as, record_url
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.omim.record import OmimRecord
from retrievers.omim.retriever import OmimFields

if TYPE_CHECKING:
    from biorag.settings import Settings
    from retrievers.stores.gene_store import GeneStore

#: how a name that is not the catalogue's own was matched (`GeneStore.find_diseases`)
_MATCH_NOTES = {
    "words": "the same words in another order",
    "core": "the same words, qualifiers (inheritance, 'familial', 'syndrome'/'disease') aside",
    "spelling": "the same words once a misspelt word was corrected to one the names use",
    "series": "the first of a series, named with or without its number 1",
}


#: a ClinVar link to a gene of a broader term's subtypes, or inside a deleted region
_RELATED = {"source": "clinvar", "note": "related"}


def _link_source(link: dict[str, Any]) -> str:
    """The source of one gene link of the store as GENE_LINKERS keys it (ClinVar's "related"
    genes apart)."""
    return link["source"] + (" (related)" if link == _RELATED else "")


def disease_evidence(hit: dict[str, Any], genes: list[dict[str, Any]], asked: str | None = None) -> Evidence:
    """An omim-source record for a disease of the local dictionary (`GeneStore.find_diseases`
    hit plus `genes_for_disease`), with the keys of an OMIM entry (see the module docstring)
    and ``disease_id``, ``xrefs``, ``backend="local"``; ``asked_as`` (the words `asked`) when
    the name was matched other than as written. Genes linked only as ClinVar "related" genes
    (genes of a broader term's subtypes, or inside a deleted region) are used only when the
    disease has no other gene link."""
    catalogue, local_id = catalogue_of(hit["disease_id"])
    strong = [g for g in genes if any(link != _RELATED for link in g["links"])] or genes
    sources = sorted({_link_source(link) for g in strong for link in g["links"]})
    notes = {g["symbol"]: n for g in strong for link in g["links"]
             if (n := link["note"]) and link["source"] == "mim2gene_medgen"}
    # a family's gene qualified where NCBI links it to a subtype (biorag.knowledge.gene_link_labels)
    notes |= {g["symbol"]: g["subtype_note"] for g in strong if g.get("subtype_note") and g["symbol"] not in notes}
    match = hit.get("match", "name")
    rec = OmimRecord(
        title=hit["name"], genes=[g["symbol"] for g in strong], gene_ids=[g["gene_id"] for g in strong],
        locations=list(dict.fromkeys(g["map_location"] for g in strong if g["map_location"])),
        entry_type="phenotype", prefix="", alt_titles="",
        genes_source="local: " + ", ".join(sources) if strong else None,
        disease_id=hit["disease_id"], xrefs=hit.get("xrefs", []), backend="local",
        form=hit.get("form", "name"), match=match,
        gene_links={g["symbol"]: sorted({GENE_LINKERS.get(s, s) for s in map(_link_source, g["links"])})
                    for g in strong},
        **({"gene_link_notes": notes} if notes else {}),
        **({"asked_as": asked} if asked is not None and match != "name" else {}))
    lines = [f"{hit['disease_id']} ({', '.join(hit['sources'])} name): {hit['name']}"]
    if match in _MATCH_NOTES:
        lines.append(f"Found as {hit['matched_name']!r}: {_MATCH_NOTES[match]}")
    if strong:
        lines.append(f"Genes ({', '.join(sources)}): " + ", ".join(
            g["symbol"] + (f" (NCBI comment: {notes[g['symbol']]})" if g["symbol"] in notes else "") for g in strong))
    lines.append("Location: " + (", ".join(rec.locations) or "not mapped"))
    own = catalogue == "omim"  # an OMIM entry is this source's own record; others are cited as theirs
    return Evidence(source="omim", id=local_id if own else hit["disease_id"], title=hit["name"],
                    text="\n".join(lines), url=record_url(catalogue, local_id), metadata=rec.as_metadata(),
                    cite_as=None if own else cited_as(hit["disease_id"]),
                    linked_by=[GENE_LINKERS.get(s, s) for s in sources])


_NAMED_BY = {
    "symbol": "the name carries the gene's official symbol",
    "product name": "the name carries the name of the gene's product",
    "product family name": "the name carries a name shared by several genes' products (their family)",
}


def named_gene_evidence(query: str, gene: dict[str, Any]) -> Evidence:
    """An omim-source record for a gene the disease name itself names (`GeneStore.genes_named_in`),
    given only when no catalogue knows the name: weaker than a curated disease-gene link,
    and it says so (``match="gene_name"``, ``genes_source``)."""
    how = _NAMED_BY[gene["named_by"]]
    rec = OmimRecord(
        title=query, genes=[gene["symbol"]], gene_ids=[gene["gene_id"]],
        locations=[gene["map_location"]] if gene.get("map_location") else [],
        entry_type="gene", prefix="", alt_titles="",
        genes_source=f"local: gene store names ({gene['named_by']} {gene['named_as']!r})",
        disease_id=None, xrefs=[], backend="local", form="name", match="gene_name",
        asked_as=query, named_by=gene["named_by"], named_as=gene["named_as"])
    text = (f"{query!r} is in no offline disease catalogue; {how}: {gene['named_as']!r} names "
            f"{gene['symbol']} (Gene ID {gene['gene_id']}, {gene.get('name') or ''}).\n"
            f"Gene: {gene['symbol']}\nLocation: " + (", ".join(rec.locations) or "not mapped"))
    return Evidence(source="omim", id=f"gene:{gene['gene_id']}", title=f"{gene['symbol']} ({query})", text=text,
                    url=record_url("gene", gene["gene_id"]), metadata=rec.as_metadata(),
                    cite_as=f"gene:{gene['gene_id']}", linked_by=["the disease name (gene store names)"])


class LocalOmimRetriever(OmimFields, Retriever):
    """`omim` source answered by the local gene store's disease dictionary (ClinVar, NCBI
    mim2gene_medgen, HPO and MeSH names; genes linked offline). A disease name gives its
    best-matching disease with its genes (one record: the names of one disease in several
    catalogues would otherwise add each catalogue's gene list), followed by the catalogue
    forms of the name that have genes: its numbered subtypes ("Distal renal tubular acidosis
    3, ..."), or, when no entry has the name itself, the entries qualifying it ("Bile acid
    malabsorption, primary, 1"): the genes of a disease family are its subtypes' genes.
    Names the dictionary lacks fall back to the genes the name itself names (its official
    symbol, or its product's name beside "deficiency"; `named_gene_evidence`); otherwise
    they, and diseases with no linked gene, give nothing, so the layered backend asks OMIM."""

    def __init__(self, store: GeneStore, named_genes: Literal["fallback", "never", "only"] = "fallback"):
        self.store = store
        # the layered backend asks OMIM before it trusts the genes a name names ("never" in
        # front of E-utilities, "only" behind it)
        self.named_genes = named_genes

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalOmimRetriever:
        from retrievers.stores.gene_store import GeneStore, gene_store_path

        return cls(GeneStore(gene_store_path(settings)))

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        q = " ".join(query.strip().strip("\"'").split())
        if not q:
            raise InputError("omim: empty query; give a disease name")
        out: list[Evidence] = []
        hits = [] if self.named_genes == "only" else self.store.find_diseases(q, forms=True)
        for hit in [h for h in hits if h["n_genes"]]:
            if hit["form"] == "name" and any(r.form == "name" for _, r in OmimRecord.all_of(out)):
                continue  # one record for the name itself (see the class docstring)
            genes = self.store.genes_for_disease(hit["disease_id"])
            if genes:
                out.append(disease_evidence(hit, genes, asked=q))
        if not out and self.named_genes != "never" and not (self.named_genes == "only" and self.store.find_diseases(q)):
            out = [named_gene_evidence(q, g) for g in self.store.genes_named_in(q)]
        return out[:max(k, 1)]

    def close(self) -> None:
        self.store.close()
