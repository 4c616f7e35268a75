"""Disease/phenotype dictionary of the local gene store: names with ids, and their genes.

Written into the gene store's SQLite file while it is built (`add_disease_dictionary` is
the store builder's ``extend`` hook; the CLI wires it), read by
`retrievers.stores.gene_store.GeneStore.find_diseases` / `genes_for_disease`. Tables:

- ``disease_names(name_key, name, disease_id, source)``: every name a disease is known by,
  under its `biorag.knowledge.names.name_keys` (case/punctuation/hyphen-free, uninverted).
- ``disease_words(words_key, core_key, name, disease_id, source)``: every name under its
  order-free `biorag.knowledge.names.word_keys`, the reader's fallback when no name matches whole.
- ``diseases(disease_id, name, source)``: one display name per disease id.
- ``disease_xrefs(disease_id, xref)``: other ids of the same concept (a ClinVar row's MedGen
  CUI and MONDO id for its OMIM number; mim2gene_medgen's MedGen CUI for a phenotype MIM).
- ``disease_genes(disease_id, gene_id, source, note)``: genes linked to a disease id.

Sources (each optional):

- ClinVar ``gene_condition_source_id``: DiseaseName for its gene, under the row's strongest
  id (OMIM number > Orphanet/MONDO/OMIM phenotypic series/HPO id > MedGen CUI); the others
  become xrefs. ``note`` is "associated" or "related" (ClinVar's two gene columns).
- NCBI ``mim2gene_medgen`` phenotype rows (already in the store's ``mim_phenotype`` table):
  OMIM phenotype number -> gene, NCBI's comment as ``note``.
- HPO ``phenotype.hpoa`` (names of OMIM/ORPHA/DECIPHER diseases) and
  ``genes_to_phenotype.txt`` (their genes), read by `indexing.hpo_files`.
- MeSH descriptors of tree C (Diseases) and F03 (Mental Disorders), names and aliases, from
  the bundled vocabulary (`biorag.knowledge.mesh`); MeSH links no genes.

Ids are CURIEs: ``OMIM:186580``, ``OMIM:PS118220``, ``ORPHA:137``, ``MONDO:0008162``,
``HP:0001250``, ``MedGen:C1833692``, ``MESH:D003924``, ``DECIPHER:1``. Gene links are kept
only for genes the store holds.
"""

from __future__ import annotations

import csv
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError
from biorag.host.textfile import open_text
from biorag.knowledge.names import name_keys, word_keys

SCHEMA = """
CREATE TABLE disease_names (name_key TEXT NOT NULL, name TEXT NOT NULL, disease_id TEXT NOT NULL, source TEXT NOT NULL);
CREATE TABLE disease_words (words_key TEXT NOT NULL, core_key TEXT NOT NULL, name TEXT NOT NULL, disease_id TEXT NOT NULL, source TEXT NOT NULL);
CREATE TABLE diseases (disease_id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL);
CREATE TABLE disease_xrefs (disease_id TEXT NOT NULL, xref TEXT NOT NULL);
CREATE TABLE disease_genes (disease_id TEXT NOT NULL, gene_id INTEGER NOT NULL, source TEXT NOT NULL, note TEXT);
"""
INDEXES = """
CREATE INDEX disease_names_key ON disease_names(name_key);
CREATE INDEX disease_words_words ON disease_words(words_key);
CREATE INDEX disease_words_core ON disease_words(core_key);
CREATE INDEX disease_xrefs_xref ON disease_xrefs(xref);
CREATE INDEX disease_xrefs_id ON disease_xrefs(disease_id);
CREATE INDEX disease_genes_id ON disease_genes(disease_id);
CREATE INDEX disease_genes_gene ON disease_genes(gene_id);
"""
GCS_COLUMNS = ("GeneID", "AssociatedGenes", "RelatedGenes", "ConceptID", "DiseaseName",
               "SourceName", "SourceID", "DiseaseMIM", "LastUpdated")
#: which dictionary's name is shown for an id, best first
NAME_SOURCE_ORDER = ("hpo", "clinvar", "mesh")
MESH_DISEASE_TREES = ("C", "F03")



def clinvar_source_id(source_name: str, source_id: str) -> str | None:
    """ClinVar's SourceName/SourceID as a CURIE (None for sources with no disease id)."""
    sid = source_id.strip()
    if not sid:
        return None
    if sid.startswith(("MONDO:", "HP:")):
        return sid
    if source_name == "Orphanet" and sid.upper().startswith("ORPHA"):
        return "ORPHA:" + sid[5:].lstrip(":")
    if source_name == "OMIM phenotypic series" and sid.startswith("PS"):
        return "OMIM:" + sid
    if source_name == "OMIM" and sid.isdigit():
        return "OMIM:" + sid
    return None  # GeneReviews NBK ids name a chapter, not a disease


def read_gene_condition_source_id(path: Path) -> Iterator[dict[str, str]]:
    """Rows of ClinVar's gene_condition_source_id (header checked)."""
    with open_text(path) as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = tuple(c.lstrip("#").strip() for c in next(reader, []))
        if header[:len(GCS_COLUMNS)] != GCS_COLUMNS:
            raise InputError(f"{path} is not ClinVar gene_condition_source_id (expected columns "
                             f"{', '.join(GCS_COLUMNS)}; got {', '.join(header[:9])})")
        for cols in reader:
            if len(cols) >= 8:
                yield dict(zip(GCS_COLUMNS, (c.strip() for c in cols), strict=False))


class _Writer:
    """Collects names, xrefs and gene links, then writes them once (deduplicated)."""

    def __init__(self, gene_ids: set[int]):
        self.gene_ids = gene_ids
        self.names: set[tuple[str, str, str, str]] = set()
        self.words: set[tuple[str, str, str, str, str]] = set()
        self.display: dict[str, tuple[int, str, str]] = {}
        self.xrefs: set[tuple[str, str]] = set()
        self.genes: dict[tuple[str, int, str], str] = {}
        self.genes_dropped = 0

    def name(self, disease_id: str, name: str, source: str) -> None:
        name = name.strip()
        if not name:
            return
        for key in name_keys(name):
            self.names.add((key, name, disease_id, source))
        words, core = word_keys(name)
        if words:
            self.words.add((words, core, name, disease_id, source))
        rank = NAME_SOURCE_ORDER.index(source)
        if disease_id not in self.display or rank < self.display[disease_id][0]:
            self.display[disease_id] = (rank, name, source)

    def xref(self, disease_id: str, other: str) -> None:
        if other != disease_id:
            self.xrefs.add((disease_id, other))

    def gene(self, disease_id: str, gene_id: int, source: str, note: str = "") -> None:
        if gene_id not in self.gene_ids:
            self.genes_dropped += 1
            return
        key = (disease_id, gene_id, source)
        if note or key not in self.genes:
            self.genes[key] = note

    def write(self, con: sqlite3.Connection) -> dict[str, int]:
        con.executemany("INSERT INTO disease_names VALUES (?,?,?,?)", sorted(self.names))
        con.executemany("INSERT INTO disease_words VALUES (?,?,?,?,?)", sorted(self.words))
        con.executemany("INSERT INTO diseases VALUES (?,?,?)",
                        sorted((d, name, src) for d, (_, name, src) in self.display.items()))
        con.executemany("INSERT INTO disease_xrefs VALUES (?,?)", sorted(self.xrefs))
        con.executemany("INSERT INTO disease_genes VALUES (?,?,?,?)",
                        sorted((d, g, s, note or None) for (d, g, s), note in self.genes.items()))
        return {"disease_ids": len(self.display), "disease_names": len(self.names),
                "disease_xrefs": len(self.xrefs), "disease_gene_links": len(self.genes),
                "disease_gene_links_unknown_gene": self.genes_dropped}


def _add_clinvar(w: _Writer, path: Path) -> int:
    rows = 0
    for row in read_gene_condition_source_id(path):
        ids = []
        if row["DiseaseMIM"].isdigit():
            ids.append("OMIM:" + row["DiseaseMIM"])
        if (sid := clinvar_source_id(row["SourceName"], row["SourceID"])) and sid not in ids:
            ids.append(sid)
        if row["ConceptID"]:
            ids.append("MedGen:" + row["ConceptID"])
        if not ids:
            continue
        primary = ids[0]
        w.name(primary, row["DiseaseName"], "clinvar")
        for other in ids[1:]:
            w.xref(primary, other)
        if row["GeneID"].isdigit():
            w.gene(primary, int(row["GeneID"]), "clinvar",
                   "associated" if row["AssociatedGenes"] else "related")
        rows += 1
    return rows


def _add_medgen_phenotypes(w: _Writer, con: sqlite3.Connection) -> int:
    """mim2gene_medgen phenotype links, from the store's own ``mim_phenotype`` table."""
    n = 0
    for mim, gene_id, cui, comment in con.execute(
            "SELECT mim, gene_id, medgen_cui, comment FROM mim_phenotype"):
        w.gene("OMIM:" + mim, int(gene_id), "mim2gene_medgen", comment or "")
        if cui:
            w.xref("OMIM:" + mim, "MedGen:" + cui)
        n += 1
    return n


def _add_hpo(w: _Writer, hpo_dir: Path | None) -> dict[str, Any]:
    from indexing.hpo_files import hpo_release, read_disease_genes, read_disease_names

    names = read_disease_names(hpo_dir)
    for disease_id, name in names.items():
        w.name(disease_id, name, "hpo")
    pairs = read_disease_genes(hpo_dir)
    for disease_id, gene_id in pairs:
        w.gene(disease_id, gene_id, "hpo")
    return {"hpo_release": hpo_release(hpo_dir), "hpo_diseases": len(names), "hpo_gene_links": len(pairs)}


def _add_mesh(w: _Writer) -> int:
    from biorag.knowledge.mesh import MeshVocabulary

    n = 0
    for d in MeshVocabulary.load().by_ui.values():
        if any(t.startswith(MESH_DISEASE_TREES) for t in d.tree_numbers):
            w.name("MESH:" + d.ui, d.name, "mesh")
            for alias in d.aliases:
                w.name("MESH:" + d.ui, alias, "mesh")
            n += 1
    return n


def add_disease_dictionary(
    con: sqlite3.Connection,
    gene_ids: set[int],
    gene_condition: Path | None = None,
    hpo: bool = True,
    hpo_dir: Path | None = None,
    mesh: bool = True,
) -> dict[str, Any]:
    """Create and fill the disease tables in an open gene-store database (see module doc).
    `gene_ids`: the genes the store holds (links to others are counted, not kept)."""
    con.executescript(SCHEMA)
    w = _Writer(gene_ids)
    counts: dict[str, Any] = {}
    if gene_condition is not None:
        counts["clinvar_rows"] = _add_clinvar(w, Path(gene_condition))
    counts["medgen_phenotype_rows"] = _add_medgen_phenotypes(w, con)
    if hpo:
        counts.update(_add_hpo(w, hpo_dir))
    if mesh:
        counts["mesh_descriptors"] = _add_mesh(w)
    counts.update(w.write(con))
    con.executescript(INDEXES)
    return counts
