"""The local gene store's tables and the ranking of gene names: the contract between its
builder (indexing/gene_store_build.py, with indexing/disease_dictionary.py's tables) and
its reader (retrievers/gene_store.py).

Tables (the disease dictionary's are described in indexing/disease_dictionary.py):

- ``genes``: one row per NCBI Gene ID (symbol, name, chromosome, cytogenetic location, type,
  HGNC id and locus type);
- ``names(name_lc, name, gene_id, kind)``: every identifier a gene is known by, with its
  kind (`KIND_ORDER`);
- ``mim(gene_id, mim, type)``: the gene's own OMIM numbers and where they came from;
- ``mim_phenotype``: NCBI mim2gene_medgen's OMIM phenotype -> gene links.
"""

from __future__ import annotations

SCHEMA_VERSION = 4  # 3: disease dictionary tables (written by indexing/disease_dictionary.py); 4: disease_words

SCHEMA = """
CREATE TABLE genes (
    gene_id INTEGER PRIMARY KEY, tax_id INTEGER, symbol TEXT, name TEXT, chromosome TEXT,
    map_location TEXT, gene_type TEXT, hgnc_id TEXT, locus_type TEXT, other_designations TEXT
);
CREATE TABLE names (name_lc TEXT NOT NULL, name TEXT NOT NULL, gene_id INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE mim (gene_id INTEGER NOT NULL, mim TEXT NOT NULL, type TEXT);
CREATE TABLE mim_phenotype (
    mim TEXT NOT NULL, gene_id INTEGER NOT NULL, source TEXT, medgen_cui TEXT, comment TEXT
);
"""
INDEXES = """
CREATE INDEX names_lc ON names(name_lc);
CREATE INDEX names_gene ON names(gene_id);
CREATE INDEX mim_gene ON mim(gene_id);
CREATE INDEX mim_mim ON mim(mim);
CREATE INDEX mim_phenotype_mim ON mim_phenotype(mim);
CREATE INDEX genes_loc ON genes(map_location);
"""
#: rank of a name kind in results (lower first)
KIND_ORDER = {"gene_id": 0, "symbol": 1, "hgnc": 2, "ensembl": 2, "previous": 3, "alias": 4, "locus_tag": 5}


def name_kind(kind: str, name: str, current_symbol: str) -> str:
    """The kind a name has today: a "symbol" that is not the gene's current symbol (gene_info
    still lists the symbol HGNC has since renamed) is a previous symbol."""
    if kind == "symbol" and name != current_symbol:
        return "previous"
    return kind
