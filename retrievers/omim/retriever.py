"""OMIM tool: disease or gene name -> OMIM entries with their loci and genes
(E-utilities esearch db=omim, then esummary).

Evidence: ``source="omim"``, ``id`` = MIM number, ``title`` = OMIM title,
``url`` = https://omim.org/entry/<mim>. ``metadata``: an `OmimRecord`
(retrievers/omim/record.py; read it back with `OmimRecord.of`), keys always present:
``title`` (OMIM's title, e.g. "KERATIN 12, TYPE I; KRT12"), ``genes`` (list of gene symbols:
for gene entries the symbol after ';' in the title; empty for phenotype entries),
``locations`` (list of cytogenetic locations, e.g. ["17q21.2"]), ``entry_type``
("gene", "gene/phenotype", "phenotype", "phenotype, molecular basis unknown", "other",
from OMIM's prefix symbol), ``prefix`` (the raw symbol: *, +, #, %, ^ or ""),
``genes_source`` ("omim_title", "mim2gene_medgen" or None when there are no genes),
``gene_links`` (gene symbol -> who linked it to the entry, in plain words: "OMIM", "ClinVar",
...; for records that list genes).

With a local gene store (retrievers/stores/gene_store.py; found like the gene tool finds it:
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

`LocalOmimRetriever` (retrievers/omim/local.py) answers disease names from the store's disease dictionary with
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
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading, RecordLinks
from biorag.knowledge.catalogues import GENE_LINKERS, record_url
from biorag.knowledge.gene_link_labels import labelled_genes, labelled_text, link_label
from biorag.loop.prompts import MANUALS
from biorag.understanding.search_request import SearchRequest
from biorag.understanding.user_text import BLANKS
from retrievers.common.eutils import EUtils, EUtilsRetriever
from retrievers.omim.record import OmimRecord

if TYPE_CHECKING:
    from biorag.settings import Settings
    from retrievers.stores.gene_store import GeneStore

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
    if linker and "gene_links" not in rec.model_fields_set:  # who linked each gene (biorag.loop.links)
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
    """The genes each record links to its disease, with who linked each (biorag.loop.links);
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
        if not genes:
            return None
        # a gene any record qualifies (susceptibility, modifier, ...) is listed under that label
        notes = {g: n for _, r in used for g, n in r.gene_link_notes.items() if link_label(n) != "causal"}
        groups = labelled_genes(genes, notes)
        ordered = [g for gs in groups.values() for g in gs]
        causal = None
        if ordered != genes or len(groups) > 1:
            keys: dict[str, str] = {}
            for _, r in used:
                for g, k in zip(r.genes, r.gene_keys, strict=False):
                    keys.setdefault(g, k)
            links = list(dict.fromkeys(keys.get(g, g) for g in ordered))
            causal = [keys.get(g, g) for g in groups["causal"]] if "causal" in groups and len(groups) > 1 else None
        return Reading(ordered, [ev for ev, _ in used], _genes_explanation(used), links=links,
                       text=labelled_text(groups), causal_links=causal)
    if field.name == "map_location":
        locs = list(dict.fromkeys(loc for _, r in used for loc in r.locations))
        return Reading(locs, [ev for ev, r in used if r.locations],
                       "cytogenetic locations of the OMIM entries") if locs else None
    return None


class OmimFields:
    """The `omim` source's declarations, mixed into each backend's retriever class
    (E-utilities, local, layered), as `GeneFields` is for the gene source."""

    name = "omim"
    manual = MANUAL
    query_format = "a disease or phenotype name, e.g. Marfan syndrome"
    accepts = ("disease", "phenotype")
    answers = OMIM_FIELDS

    @classmethod
    def query_schema(cls, settings: Any) -> dict[str, Any]:
        """Not only blanks and quotes: the search strips them and refuses what is left empty."""
        return {"pattern": f"[^{BLANKS}" + "\"']"}

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_omim_field(field, evidence, about)

    @classmethod
    def links(cls, evidence: list[Evidence]) -> list[RecordLinks]:
        return omim_links(evidence)


class OmimRetriever(OmimFields, EUtilsRetriever):
    def __init__(self, eutils: EUtils, retmax: int = 20, store: GeneStore | None = None):
        super().__init__(eutils, retmax)
        self.store = store  # optional local gene store: phenotype genes, current symbols

    @classmethod
    def from_settings(cls, settings: Settings) -> OmimRetriever:
        from retrievers.stores.gene_store import GeneStore, gene_store_path

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
