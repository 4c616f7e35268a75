"""The local gene store's tables and the ranking of gene names: the contract between its
builder (indexing/gene_store_build.py, with indexing/disease_dictionary.py's tables) and
its reader (retrievers/stores/gene_store.py).

Tables (the disease dictionary's are described in indexing/disease_dictionary.py):

- ``genes``: one row per NCBI Gene ID (symbol, name, chromosome, cytogenetic location, type,
  HGNC id and locus type);
- ``names(name_lc, name, gene_id, kind)``: every identifier a gene is known by, with its
  kind (`KIND_ORDER`);
- ``hgnc_ensembl(ensembl_lc, gene_id)``: the Ensembl gene id HGNC, the nomenclature
  authority, maps to each gene, for the ids exactly one HGNC record lists (gene_info may
  list one Ensembl id under several genes: a gene and its readthrough);
- ``mim(gene_id, mim, type)``: the gene's own OMIM numbers and where they came from;
- ``mim_phenotype``: NCBI mim2gene_medgen's OMIM phenotype -> gene links;
- ``ANNOTATION_SCHEMA`` (written by indexing/gene_annotations.py): what a gene does (GO BP
  terms with their evidence codes, Reactome pathways, each ranked per gene, 0 first) and
  ClinVar variants by rsID;
- ``REGULATION_SCHEMA`` (written by indexing/regulation.py): TRRUST v2's transcription
  factor -> target rows, one per mode, with their PMIDs.
"""

from __future__ import annotations

SCHEMA_VERSION = 7  # 3: disease dictionary tables (written by indexing/disease_dictionary.py); 4: disease_words;
#                     5: gene_go, gene_pathways, variants (ANNOTATION_SCHEMA); 6: hgnc_ensembl;
#                     7: variants of three ClinVar releases, variant_releases

SCHEMA = """
CREATE TABLE genes (
    gene_id INTEGER PRIMARY KEY, tax_id INTEGER, symbol TEXT, name TEXT, chromosome TEXT,
    map_location TEXT, gene_type TEXT, hgnc_id TEXT, locus_type TEXT, other_designations TEXT
);
CREATE TABLE names (name_lc TEXT NOT NULL, name TEXT NOT NULL, gene_id INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE hgnc_ensembl (ensembl_lc TEXT PRIMARY KEY, gene_id INTEGER NOT NULL);
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
ANNOTATION_SCHEMA = """
CREATE TABLE go_terms (go_id TEXT PRIMARY KEY, name TEXT NOT NULL, n_genes INTEGER);
CREATE TABLE gene_go (gene_id INTEGER NOT NULL, go_id TEXT NOT NULL, evidence TEXT NOT NULL, rank INTEGER NOT NULL);
CREATE TABLE pathways (pathway_id TEXT PRIMARY KEY, name TEXT NOT NULL, n_genes INTEGER);
CREATE TABLE gene_pathways (gene_id INTEGER NOT NULL, pathway_id TEXT NOT NULL, rank INTEGER NOT NULL);
CREATE TABLE variants (
    rsid TEXT, variation_id TEXT NOT NULL, gene_id INTEGER, symbol TEXT, chromosome TEXT,
    position INTEGER, ref TEXT, alt TEXT, significance TEXT, conditions TEXT, assembly TEXT,
    review_status TEXT, grch37_position INTEGER, hgvs_c TEXT, hgvs_p TEXT, release TEXT
);
CREATE TABLE variant_releases (release TEXT NOT NULL, label TEXT NOT NULL, variants INTEGER, rsids INTEGER);
CREATE INDEX gene_go_gene ON gene_go(gene_id, rank);
CREATE INDEX gene_pathways_gene ON gene_pathways(gene_id, rank);
CREATE INDEX variants_rsid ON variants(rsid);
CREATE INDEX variants_protein ON variants(symbol, hgvs_p);
CREATE INDEX variants_grch37 ON variants(chromosome, grch37_position);
"""
REGULATION_SCHEMA = """
CREATE TABLE regulation (
    tf TEXT NOT NULL, target TEXT NOT NULL, organism TEXT NOT NULL, mode TEXT NOT NULL,
    pmids TEXT NOT NULL, n_pmids INTEGER NOT NULL
);
CREATE INDEX regulation_tf ON regulation(tf COLLATE NOCASE);
CREATE INDEX regulation_target ON regulation(target COLLATE NOCASE);
"""
#: GO evidence codes by how directly they support an annotation (lower first): experimental
#: and high-throughput experimental, then curator statements and phylogenetic inference,
#: then other computational and author statements, then electronic; "ND" (no data) is no
#: annotation at all (https://geneontology.org/docs/guide-go-evidence-codes/)
GO_EVIDENCE_TIER = {
    **dict.fromkeys(("EXP", "IDA", "IPI", "IMP", "IGI", "IEP", "HTP", "HDA", "HMP", "HGI", "HEP"), 0),
    **dict.fromkeys(("TAS", "IC", "IBA", "IBD", "IKR", "IRD"), 1),
    **dict.fromkeys(("ISS", "ISO", "ISA", "ISM", "IGC", "RCA", "NAS"), 2),
    "IEA": 3,
}
#: evidence codes of experiments
EXPERIMENTAL_EVIDENCE = frozenset(c for c, t in GO_EVIDENCE_TIER.items() if t == 0)

#: rank of a name kind in results (lower first)
KIND_ORDER = {"gene_id": 0, "symbol": 1, "hgnc": 2, "ensembl": 2, "previous": 3, "alias": 4, "locus_tag": 5}


def name_kind(kind: str, name: str, current_symbol: str) -> str:
    """The kind a name has today: a "symbol" that is not the gene's current symbol (gene_info
    still lists the symbol HGNC has since renamed) is a previous symbol."""
    if kind == "symbol" and name != current_symbol:
        return "previous"
    return kind
