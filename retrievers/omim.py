"""OMIM tool: disease or gene name -> OMIM entries with their loci and genes
(E-utilities esearch db=omim, then esummary).

Evidence: ``source="omim"``, ``id`` = MIM number, ``title`` = OMIM title,
``url`` = https://omim.org/entry/<mim>. ``metadata``: an `OmimRecord`
(retrievers/omim_record.py; read it back with `OmimRecord.of`), keys always present:
``title`` (OMIM's title, e.g. "KERATIN 12, TYPE I; KRT12"), ``genes`` (list of gene symbols:
for gene entries the symbol after ';' in the title; empty for phenotype entries),
``locations`` (list of cytogenetic locations, e.g. ["17q21.2"]), ``entry_type``
("gene", "gene/phenotype", "phenotype", "phenotype, molecular basis unknown", "other",
from OMIM's prefix symbol), ``prefix`` (the raw symbol: *, +, #, %, ^ or ""),
``genes_source`` ("omim_title", "mim2gene_medgen" or None when there are no genes),
``gene_links`` (gene symbol -> who linked it to the entry, in plain words: "OMIM", "ClinVar",
...; for records that list genes).

With a local gene store (retrievers/gene_store.py; found like the gene tool finds it:
``settings.gene_store`` or ``data_dir/gene_store.sqlite``) two gaps of esummary are filled:

- phenotype entries (no gene in the title) get ``genes`` (current official symbols),
  ``gene_ids`` and the genes' ``locations`` from NCBI's ``mim2gene_medgen`` links, with
  ``genes_source="mim2gene_medgen"``; ``gene_link_notes`` keeps NCBI's comments per symbol
  (e.g. "question": a provisional link).
- gene entries whose title carries an outdated symbol get today's official symbol in
  ``genes`` (``genes_as_listed`` keeps OMIM's, ``gene_ids`` the Gene IDs), only when exactly
  one human gene fits (the entry's own MIM number breaks ties); otherwise the listed symbol
  stays and ``genes_ambiguous`` names the candidates.

Without a store nothing is added: no gene is ever guessed.

`LocalOmimRetriever` (below) answers disease names from the store's disease dictionary with
no network; the ``layered`` backend (retrievers/layered.py) asks it first and E-utilities
only for what it lacks. ``backend`` in the metadata says which answered. Its records are
cited under their own catalogue (``Evidence.cite_as``: "medgen:C0343073", "orphanet:558",
"mondo:…", "mesh:…", "hp:…", "decipher:…"; an OMIM number stays "omim:<mim>"), and
``Evidence.linked_by`` names the catalogues that linked the genes (ClinVar, NCBI
mim2gene_medgen, HPO annotations), as it does for E-utilities records whose genes came from
mim2gene_medgen.

Ask with a disease name for its genes and loci ("Meesmann corneal dystrophy" returns the
phenotypes MECD1/MECD2 at 17q21.2/12q13.13 and the genes KRT12, KRT3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from biorag.catalogues import GENE_LINKERS, catalogue_of, cited_as, record_url
from biorag.errors import InputError
from biorag.models import Evidence
from biorag.prompts import MANUALS
from biorag.retriever import Retriever
from biorag.search_request import SearchRequest
from biorag.sources import AnswerField, Reading, RecordLinks
from retrievers.eutils import EUtils, EUtilsRetriever
from retrievers.omim_record import OmimRecord

if TYPE_CHECKING:
    from biorag.settings import Settings
    from retrievers.gene_store import GeneStore

MANUAL = MANUALS["omim"]  # the text lives with every other prompt

ENTRY_TYPES = {
    "*": "gene",
    "+": "gene/phenotype",
    "#": "phenotype",
    "%": "phenotype, molecular basis unknown",
    "^": "removed",
    "": "other",
}
_SYMBOL = re.compile(r"^[A-Z0-9][A-Z0-9@.\-]*[A-Z0-9@]$|^[A-Z0-9]$")


def omim_entry(doc: dict[str, Any]) -> OmimRecord:
    """The record of an OMIM entry from its esummary document (genes from its title only)."""
    oid = str(doc.get("oid") or "")
    prefix = oid[0] if oid and not oid[0].isdigit() else ""
    title = str(doc.get("title") or "")
    kind = ENTRY_TYPES.get(prefix, "other")
    genes: list[str] = []
    if kind in ("gene", "gene/phenotype") and ";" in title:
        sym = title.rsplit(";", 1)[1].strip()
        if _SYMBOL.match(sym):
            genes = [sym]
    locus = str(doc.get("locus") or "")
    locations = [loc.strip() for loc in re.split(r"[,;]\s*", locus) if loc.strip()]
    return OmimRecord(title=title, genes=genes, locations=locations, entry_type=kind, prefix=prefix,
                      alt_titles=doc.get("alttitles") or "", genes_source="omim_title" if genes else None)


def with_store_genes(mim: str, rec: OmimRecord, store: GeneStore) -> OmimRecord:
    """An entry's genes completed from the local gene store (see the module docstring)."""
    if rec.genes:
        matches = [store.current_symbol(sym, mim=mim) for sym in rec.genes]
        ambiguous = {m.listed: m.candidates for m in matches if m.basis == "ambiguous"}
        return rec.with_fields(genes=[m.symbol or m.listed for m in matches], genes_as_listed=list(rec.genes),
                               gene_ids=[m.gene_id for m in matches],
                               **({"genes_ambiguous": ambiguous} if ambiguous else {}))
    links = store.mim_links(mim) if rec.entry_type != "removed" else []
    if not links:
        return rec
    notes = {r["symbol"]: r["comment"] for r in links if r["comment"]}
    return rec.with_fields(
        genes=[r["symbol"] for r in links], gene_ids=[r["gene_id"] for r in links], genes_source="mim2gene_medgen",
        locations=list(dict.fromkeys(rec.locations + [r["map_location"] for r in links if r["map_location"]])),
        **({"gene_link_notes": notes} if notes else {}))


def omim_metadata(doc: dict[str, Any]) -> dict[str, Any]:
    """`omim_entry` as the metadata dict the evidence carries."""
    return omim_entry(doc).as_metadata()


def link_genes(mim: str, md: dict[str, Any], store: GeneStore) -> dict[str, Any]:
    """`with_store_genes` over an entry's metadata dict."""
    return with_store_genes(mim, OmimRecord.model_validate(md), store).as_metadata()


def _genes_line(rec: OmimRecord) -> str:
    if rec.genes_source == "mim2gene_medgen":
        notes = rec.gene_link_notes
        return "Genes (NCBI mim2gene_medgen): " + ", ".join(
            g + (f" (NCBI comment: {notes[g]})" if g in notes else "") for g in rec.genes)
    listed = rec.genes_as_listed or rec.genes
    parts = []
    for cur, old in zip(rec.genes, listed, strict=True):
        if old in rec.genes_ambiguous:
            parts.append(f"{old} (ambiguous symbol: could be {', '.join(rec.genes_ambiguous[old])})")
        elif cur != old:
            parts.append(f"{cur} (listed by OMIM as {old})")
        else:
            parts.append(cur)
    return "Gene: " + ", ".join(parts)


def omim_evidence(mim: str, rec: OmimRecord | dict[str, Any]) -> Evidence:
    """An OMIM entry's evidence; `rec` may be its metadata dict (`omim_metadata`)."""
    if not isinstance(rec, OmimRecord):
        rec = OmimRecord.model_validate(rec)
    linker = GENE_LINKERS.get(rec.genes_source, rec.genes_source) if rec.genes_source else None
    if linker and "gene_links" not in rec.model_fields_set:  # who linked each gene (biorag.links)
        rec = rec.with_fields(gene_links={g: [linker] for g in rec.genes})
    lines = [f"MIM {rec.prefix}{mim} ({rec.entry_type}): {rec.title}"]
    if rec.genes:
        lines.append(_genes_line(rec))
    lines.append("Location: " + (", ".join(rec.locations) or "not mapped"))
    return Evidence(
        source="omim",
        id=str(mim),
        title=rec.title,
        text="\n".join(lines),
        url=record_url("omim", mim),
        metadata=rec.as_metadata(),
        linked_by=[linker] if linker else [],
    )


DISEASE_GENES = AnswerField(
    "disease_genes", "genes related to a disease",
    ("gene", "genes", "which gene", "which genes", "what gene", "what genes", "related genes",
     "associated genes", "causal gene", "causal genes", "disease gene", "disease genes",
     "responsible gene", "genetic cause", "genetic basis", "mutated", "mutations in",
     # what changes in the genome ("What genetic changes contribute to D?", "which mutations
     # lead to D", "the genetics of D"): the disease's genes, the record that holds them
     "genetic change", "genetic alteration", "genetic defect", "genetic variant", "genetics",
     "mutation", "variant", "pathogenic variant"),
    ("disease",), yields="gene",
    weak_cues=("related", "associated", "linked", "cause", "causes", "causing", "responsible",
               "underlie", "underlies", "underlying", "implicated", "involved"))
DISEASE_LOCATIONS = AnswerField(
    "map_location", "cytogenetic locations of the genes related to a disease",
    ("cytogenetic", "cytogenetic location", "cytogenetic locations", "band", "bands",
     "map location", "map locations", "chromosome location", "chromosome locations",
     "chromosomal location", "chromosomal locations", "locus", "loci", "cytoband"),
    ("disease",),
    weak_cues=("location", "locations", "where", "located", "map", "mapped"))
OMIM_FIELDS = (DISEASE_GENES, DISEASE_LOCATIONS)


def omim_links(evidence: list[Evidence]) -> list[RecordLinks]:
    """The genes each record links to its disease, with who linked each (biorag.links);
    records without gene links (genes a disease name merely names) link nothing."""
    return [RecordLinks(ev, gene_links=r.gene_links) for ev, r in OmimRecord.all_of(evidence) if r.gene_links]


def _genes_explanation(used: list[tuple[Evidence, OmimRecord]]) -> str:
    """Which source answered: OMIM itself, or the local catalogues that link the genes (and
    whether the disease was found by its words or only names its gene)."""
    local = [(ev, r) for ev, r in used if r.is_local]  # the local backend's records
    if not local:
        return "genes of the OMIM entries"
    sources = sorted({who for ev, r in local if r.match != "gene_name" for who in ev.linked_by})
    parts = [f"genes linked to the disease offline by {', '.join(sources)}"] if sources else []
    matches = sorted({str(r.match) for _, r in local} - {"name", "gene_name"})
    if matches:
        parts.append(f"disease found by its {' and '.join(matches)} key")
    if any(r.match == "gene_name" for _, r in local):
        parts.append("genes the disease name itself names (no offline catalogue has the disease)")
    if len(local) < len(used):
        parts.append("genes of the OMIM entries")
    return "; ".join(parts)


def read_omim_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
    """Genes (current symbols where the store resolved them) or their locations, over the
    entries found for the disease, in OMIM's relevance order."""
    used = [(ev, r) for ev, r in OmimRecord.all_of(evidence) if r.genes]
    if field.name == "disease_genes":
        genes = list(dict.fromkeys(g for _, r in used for g in r.genes))
        links = list(dict.fromkeys(k for _, r in used for k in r.gene_keys))
        return Reading(genes, [ev for ev, _ in used], _genes_explanation(used), links=links) if genes else None
    if field.name == "map_location":
        locs = list(dict.fromkeys(loc for _, r in used for loc in r.locations))
        return Reading(locs, [ev for ev, r in used if r.locations],
                       "cytogenetic locations of the OMIM entries") if locs else None
    return None


class OmimRetriever(EUtilsRetriever):
    name = "omim"
    manual = MANUAL
    query_format = "a disease or phenotype name, e.g. Marfan syndrome"
    accepts = ("disease", "phenotype")
    answers = OMIM_FIELDS

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_omim_field(field, evidence, about)

    @classmethod
    def links(cls, evidence: list[Evidence]) -> list[RecordLinks]:
        return omim_links(evidence)

    def __init__(self, eutils: EUtils, retmax: int = 20, store: GeneStore | None = None):
        super().__init__(eutils, retmax)
        self.store = store  # optional local gene store: phenotype genes, current symbols

    @classmethod
    def from_settings(cls, settings: Settings) -> OmimRetriever:
        from retrievers.gene_store import GeneStore, gene_store_path

        path = gene_store_path(settings)
        store = GeneStore(path) if path.exists() else None
        return cls(EUtils.from_settings(settings, cls.name), settings.ncbi.retmax, store)

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        q = " ".join(query.strip().strip("\"'").split())
        if not q:
            raise InputError("omim: empty query; give a disease name")
        if q.isdigit() and len(q) == 6:
            ids = [q]
        else:
            ids = self.eutils.esearch("omim", q, retmax=self.retmax).found("omim", f"OMIM has no entry for {q!r}")
            if not ids:
                return []
        summ = self.eutils.esummary("omim", ids)
        out = []
        for uid in ids:  # keep esearch relevance order
            doc = summ.docs.get(uid)
            if doc is None:
                continue
            rec = omim_entry(doc)
            if self.store is not None:
                rec = with_store_genes(uid, rec, self.store)
            rec = rec.with_fields(**({"partial_response": True} if summ.truncated else {}), backend="eutils")
            out.append(omim_evidence(uid, rec))
        return out[:k]

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


# ---- the local backend: the gene store's disease dictionary -------------------------
# who linked a record's genes in plain words: biorag.catalogues.GENE_LINKERS (imported above,
# and importable from here)

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


class LocalOmimRetriever(Retriever):
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

    name = "omim"
    manual = MANUAL
    query_format = OmimRetriever.query_format
    accepts = OmimRetriever.accepts
    answers = OMIM_FIELDS

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_omim_field(field, evidence, about)

    @classmethod
    def links(cls, evidence: list[Evidence]) -> list[RecordLinks]:
        return omim_links(evidence)

    def __init__(self, store: GeneStore, named_genes: Literal["fallback", "never", "only"] = "fallback"):
        self.store = store
        # the layered backend asks OMIM before it trusts the genes a name names ("never" in
        # front of E-utilities, "only" behind it)
        self.named_genes = named_genes

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalOmimRetriever:
        from retrievers.gene_store import GeneStore, gene_store_path

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
