"""Gene -> MeSH descriptor counts of the local PubMed index, precomputed at index build.

Gene-set interpretation uses the MeSH descriptors of the abstracts that mention the genes
as one more term library. Scanning abstracts per request would blow the 2 s budget, so
`biorag index build` writes, once the new collection verifies (indexing/gene_mesh_counts.py),
one SQLite file per index alias: ``<data_dir>/gene_mesh/<alias>.sqlite`` with

- ``mentions(symbol, mesh_ui, n_pmids, pmids)``: abstracts tagged with the descriptor
  that name the gene (``pmids``: up to 5, comma-separated, to cite);
- ``descriptors(mesh_ui, name, n_genes)``: how many genes are named under a descriptor;
- ``genes(symbol, n_pmids)``: the universe, every gene named in some abstract.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.knowledge.gene_sets import MAX_TERM_SIZE, MIN_TERM_SIZE, QueryLibrary
from biorag.storage.sqlite_store import open_read_only, read_build_record

if TYPE_CHECKING:
    from biorag.settings import Settings

SCHEMA = """
CREATE TABLE mentions (symbol TEXT NOT NULL, mesh_ui TEXT NOT NULL, n_pmids INTEGER, pmids TEXT);
CREATE TABLE descriptors (mesh_ui TEXT PRIMARY KEY, name TEXT, n_genes INTEGER);
CREATE TABLE genes (symbol TEXT PRIMARY KEY, n_pmids INTEGER);
CREATE INDEX mentions_symbol ON mentions(symbol);
"""
PMIDS_KEPT = 5


def gene_mesh_path(settings: Settings, alias: str | None = None) -> Path:
    return Path(settings.data_dir) / "gene_mesh" / f"{alias or settings.index.collection}.sqlite"


class GeneMeshCounts:
    """Read side: a MeSH library for a query, and the PMIDs that back a gene-descriptor pair."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._con = open_read_only(self.path, "gene-mesh-counts")
        self._universe: frozenset[str] | None = None

    @classmethod
    def open(cls, settings: Settings) -> GeneMeshCounts | None:
        """The counts of the configured index, or None when none were built."""
        path = gene_mesh_path(settings)
        return cls(path) if path.exists() else None

    def info(self) -> dict[str, Any]:
        return read_build_record(self._con)

    @property
    def universe(self) -> frozenset[str]:
        if self._universe is None:
            self._universe = frozenset(r[0] for r in self._con.execute("SELECT symbol FROM genes"))
        return self._universe

    def library(self, genes: set[str]) -> QueryLibrary:
        hits: dict[str, set[str]] = {}
        names: dict[str, str] = {}
        sizes: dict[str, int] = {}
        if genes:
            marks = ",".join("?" * len(genes))
            rows = self._con.execute(
                f"SELECT m.symbol, m.mesh_ui, d.name, d.n_genes FROM mentions m JOIN descriptors d "
                f"ON d.mesh_ui=m.mesh_ui WHERE m.symbol IN ({marks}) AND d.n_genes BETWEEN ? AND ?",
                [*sorted(genes), MIN_TERM_SIZE, MAX_TERM_SIZE],
            )
            for sym, ui, name, n in rows:
                hits.setdefault(ui, set()).add(sym)
                names[ui], sizes[ui] = name, n
        return QueryLibrary("mesh", names, sizes, hits, self.universe)

    def pmids(self, symbol: str, mesh_ui: str) -> list[str]:
        row = self._con.execute("SELECT pmids FROM mentions WHERE symbol=? AND mesh_ui=?", (symbol, mesh_ui)).fetchone()
        return row[0].split(",") if row and row[0] else []

    def close(self) -> None:
        self._con.close()
