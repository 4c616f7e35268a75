"""Local gene store: NCBI ``gene_info`` + HGNC complete set + mim2gene in one SQLite file.

Answers the gene tool with no network at all (backend ``local``), with the same evidence
as the live tool (see retrievers/gene.py for the metadata keys). Lookups: NCBI Gene ID,
official symbol, alias, previous symbol, Ensembl gene ID (version suffix ignored), HGNC ID
and cytogenetic location (``16q22.1`` lists the genes there).

Ambiguity is surfaced: an alias used by several genes returns all of them, preferred
organism first, exact-case matches before case-insensitive ones, official symbols before
previous symbols before aliases. Nothing is resolved silently.

Build: ``biorag data gene-store build --gene-info Homo_sapiens.gene_info.gz --hgnc
hgnc_complete_set.txt.gz --mim2gene mim2gene.txt`` (each input optional but gene_info or
hgnc is needed; .gz is read transparently). mim2gene may be OMIM's ``mim2gene.txt`` or
NCBI's ``mim2gene_medgen``.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.errors import InputError, SourceUnavailable
from biorag.models import Evidence, SearchFilters
from retrievers.base import Retriever
from retrievers.gene import MANUAL, QUERY_FORMAT, clean_gene_query, gene_evidence

if TYPE_CHECKING:
    from biorag.settings import Settings

SAMPLE_DIR = Path(__file__).parent / "resources" / "gene_store_sample"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE genes (
    gene_id INTEGER PRIMARY KEY, tax_id INTEGER, symbol TEXT, name TEXT, chromosome TEXT,
    map_location TEXT, gene_type TEXT, hgnc_id TEXT, locus_type TEXT, other_designations TEXT
);
CREATE TABLE names (name_lc TEXT NOT NULL, name TEXT NOT NULL, gene_id INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE mim (gene_id INTEGER NOT NULL, mim TEXT NOT NULL, type TEXT);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
"""
_INDEXES = """
CREATE INDEX names_lc ON names(name_lc);
CREATE INDEX names_gene ON names(gene_id);
CREATE INDEX mim_gene ON mim(gene_id);
CREATE INDEX genes_loc ON genes(map_location);
"""
#: rank of a name kind in results (lower first)
KIND_ORDER = {"gene_id": 0, "symbol": 1, "hgnc": 2, "ensembl": 2, "previous": 3, "alias": 4, "locus_tag": 5}
_ENSEMBL = re.compile(r"^(ENS[A-Z]*G\d{6,})(\.\d+)?$", re.I)
_BAND = re.compile(r"^(\d{1,2}|X|Y|MT)([pq]\d*(\.\d+)?)?(-(\d{1,2}|X|Y)?[pq]\d+(\.\d+)?)?$", re.I)


def gene_store_path(settings: Settings) -> Path:
    return Path(settings.gene_store).expanduser() if settings.gene_store else Path(settings.data_dir) / "gene_store.sqlite"


def build_command_hint(path: Path) -> str:
    return (
        f"no local gene store at {path}: build it with `biorag data gene-store build "
        "--gene-info Homo_sapiens.gene_info.gz --hgnc hgnc_complete_set.txt.gz --mim2gene mim2gene.txt` "
        "(or `biorag data gene-store build --sample` for the bundled sample)"
    )


# ---- reading the bulk files ---------------------------------------------------------


def _open_text(path: Path) -> io.TextIOBase:
    if not path.exists():
        raise InputError(f"file not found: {path}")
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def _split(value: str | None, sep: str = "|") -> list[str]:
    if not value or value == "-":
        return []
    return [v.strip().strip('"') for v in value.strip('"').split(sep) if v.strip().strip('"') not in ("", "-")]


def read_gene_info(path: Path) -> Iterator[dict[str, str]]:
    with _open_text(path) as fh:
        header = fh.readline().lstrip("#").rstrip("\n").split("\t")
        if "GeneID" not in header or "Symbol" not in header:
            raise InputError(f"{path} is not an NCBI gene_info file (no GeneID/Symbol columns)")
        for line in fh:
            yield dict(zip(header, line.rstrip("\n").split("\t"), strict=False))


def read_hgnc(path: Path) -> Iterator[dict[str, str]]:
    with _open_text(path) as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        if not reader.fieldnames or "hgnc_id" not in reader.fieldnames:
            raise InputError(f"{path} is not an HGNC complete set (no hgnc_id column)")
        yield from reader


def read_mim2gene(path: Path) -> Iterator[tuple[str, str, str]]:
    """(mim, gene_id, type) from OMIM mim2gene.txt or NCBI mim2gene_medgen."""
    with _open_text(path) as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3:
                continue
            mim = cols[0].strip()
            # OMIM: mim, type, entrez, symbol, ensembl; NCBI medgen: mim, geneid, type, ...
            if cols[1].strip().isdigit() or cols[1].strip() == "-":
                gene_id, kind = cols[1].strip(), cols[2].strip()
            else:
                kind, gene_id = cols[1].strip(), cols[2].strip()
            if gene_id.isdigit() and mim.isdigit():
                yield mim, gene_id, kind


# ---- build --------------------------------------------------------------------------


def build_gene_store(
    out: Path,
    gene_info: Path | None = None,
    hgnc: Path | None = None,
    mim2gene: Path | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Build the SQLite store at `out` (atomically: a temp file renamed at the end)."""
    if gene_info is None and hgnc is None:
        raise InputError("gene-store build needs --gene-info and/or --hgnc")
    from tqdm import tqdm

    t0 = time.perf_counter()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    con.executescript(_SCHEMA)
    genes: dict[int, dict[str, Any]] = {}
    names: set[tuple[str, int, str]] = set()
    counts = {"gene_info": 0, "hgnc": 0, "hgnc_without_entrez": 0, "mim": 0}

    def add_name(name: str, gid: int, kind: str) -> None:
        if name:
            names.add((name, gid, kind))

    if gene_info is not None:
        for row in tqdm(read_gene_info(gene_info), desc="gene_info", unit=" rows", disable=not progress):
            gid = int(row["GeneID"])
            xrefs = _split(row.get("dbXrefs"))
            genes[gid] = {
                "gene_id": gid,
                "tax_id": int(row["tax_id"]) if row.get("tax_id", "").isdigit() else None,
                "symbol": row["Symbol"],
                "name": row.get("Full_name_from_nomenclature_authority") not in (None, "-")
                and row["Full_name_from_nomenclature_authority"]
                or row.get("description", ""),
                "chromosome": None if row.get("chromosome") in (None, "-") else row["chromosome"],
                "map_location": None if row.get("map_location") in (None, "-") else row["map_location"],
                "gene_type": None if row.get("type_of_gene") in (None, "-") else row["type_of_gene"],
                "hgnc_id": next((x.removeprefix("HGNC:") for x in xrefs if x.startswith("HGNC:")), None),
                "locus_type": None,
                "other_designations": "|".join(_split(row.get("Other_designations"))),
            }
            add_name(row["Symbol"], gid, "symbol")
            for syn in _split(row.get("Synonyms")):
                add_name(syn, gid, "alias")
            if row.get("LocusTag") not in (None, "-"):
                add_name(row["LocusTag"], gid, "locus_tag")
            for x in xrefs:
                if x.startswith("Ensembl:"):
                    add_name(x.removeprefix("Ensembl:"), gid, "ensembl")
                elif x.startswith("MIM:"):
                    con.execute("INSERT INTO mim VALUES (?,?,?)", (gid, x.removeprefix("MIM:"), "gene_info"))
            counts["gene_info"] += 1

    if hgnc is not None:
        for row in tqdm(read_hgnc(hgnc), desc="HGNC", unit=" rows", disable=not progress):
            entrez = (row.get("entrez_id") or "").strip()
            if not entrez.isdigit():
                counts["hgnc_without_entrez"] += 1
                continue
            gid = int(entrez)
            g = genes.setdefault(gid, {"gene_id": gid, "tax_id": 9606, "symbol": row["symbol"],
                                       "name": row.get("name"), "chromosome": None,
                                       "map_location": None, "gene_type": None,
                                       "other_designations": ""})
            # HGNC is the nomenclature authority for human: its symbol/name/location win
            g["symbol"], g["name"] = row["symbol"], row.get("name") or g.get("name")
            g["hgnc_id"] = row["hgnc_id"]
            g["locus_type"] = row.get("locus_type")
            if row.get("location"):
                g["map_location"] = g.get("map_location") or row["location"]
                if not g.get("chromosome"):
                    m = re.match(r"^(\d{1,2}|X|Y|MT)", row["location"])
                    g["chromosome"] = m.group(1) if m else None
            add_name(row["symbol"], gid, "symbol")
            add_name(row["hgnc_id"], gid, "hgnc")
            for a in _split(row.get("alias_symbol")):
                add_name(a, gid, "alias")
            for p in _split(row.get("prev_symbol")):
                add_name(p, gid, "previous")
            for e in _split(row.get("ensembl_gene_id")):
                add_name(e, gid, "ensembl")
            for m in _split(row.get("omim_id")):
                con.execute("INSERT INTO mim VALUES (?,?,?)", (gid, m, "hgnc"))
            counts["hgnc"] += 1

    if mim2gene is not None:
        for mim, gid, kind in tqdm(read_mim2gene(mim2gene), desc="mim2gene", unit=" rows", disable=not progress):
            con.execute("INSERT INTO mim VALUES (?,?,?)", (int(gid), mim, kind))
            counts["mim"] += 1

    cols = ("gene_id", "tax_id", "symbol", "name", "chromosome", "map_location", "gene_type",
            "hgnc_id", "locus_type", "other_designations")
    con.executemany(
        f"INSERT INTO genes VALUES ({','.join('?' * len(cols))})",
        ([g.get(c) for c in cols] for g in genes.values()),
    )
    # a symbol recorded as an alias too keeps only its strongest kind per gene
    best: dict[tuple[str, int], str] = {}
    for name, gid, kind in names:
        k = (name, gid)
        if k not in best or KIND_ORDER[kind] < KIND_ORDER[best[k]]:
            best[k] = kind
    con.executemany("INSERT INTO names VALUES (?,?,?,?)",
                    ((n.lower(), n, gid, kind) for (n, gid), kind in best.items()))
    con.executescript(_INDEXES)
    summary = {
        "schema": SCHEMA_VERSION,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": {"gene_info": str(gene_info) if gene_info else None,
                   "hgnc": str(hgnc) if hgnc else None,
                   "mim2gene": str(mim2gene) if mim2gene else None},
        "genes": len(genes),
        "names": len(best),
        **counts,
    }
    con.execute("INSERT INTO meta VALUES ('build', ?)", (json.dumps(summary),))
    con.commit()
    con.close()
    tmp.replace(out)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    summary["path"] = str(out)
    return summary


# ---- lookup -------------------------------------------------------------------------


class GeneStore:
    """Read side of the store. Thread-safe enough for the agent (one connection per thread)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.exists():
            raise SourceUnavailable("gene", build_command_hint(self.path))
        self._con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        self._con.row_factory = sqlite3.Row

    def info(self) -> dict[str, Any]:
        row = self._con.execute("SELECT value FROM meta WHERE key='build'").fetchone()
        return json.loads(row[0]) if row else {}

    def _gene(self, gene_id: int) -> dict[str, Any] | None:
        row = self._con.execute("SELECT * FROM genes WHERE gene_id=?", (gene_id,)).fetchone()
        if row is None:
            return None
        g = dict(row)
        names = self._con.execute("SELECT name, kind FROM names WHERE gene_id=?", (gene_id,)).fetchall()
        g["aliases"] = sorted({n["name"] for n in names if n["kind"] in ("alias", "previous")} - {g["symbol"]})
        g["previous"] = sorted(n["name"] for n in names if n["kind"] == "previous")
        g["ensembl"] = sorted(n["name"] for n in names if n["kind"] == "ensembl")
        g["mim"] = sorted({r[0] for r in self._con.execute("SELECT mim FROM mim WHERE gene_id=?", (gene_id,))})
        return g

    def by_gene_id(self, gene_id: str | int) -> dict[str, Any] | None:
        return self._gene(int(gene_id)) if str(gene_id).isdigit() else None

    def lookup(self, query: str, prefer_taxid: int | None = 9606, limit: int = 50) -> list[tuple[dict[str, Any], str]]:
        """All genes matching an identifier, as (gene, how it matched), best first."""
        q = clean_gene_query(query)
        if not q:
            return []
        if q.isdigit():
            g = self._gene(int(q))
            return [(g, "gene_id")] if g else []
        m = _ENSEMBL.match(q)
        key = m.group(1).lower() if m else q.lower()
        rows = self._con.execute(
            "SELECT gene_id, name, kind FROM names WHERE name_lc=?", (key,)
        ).fetchall()
        if not rows and _BAND.match(q):
            return self._by_location(q, limit)
        found: dict[int, tuple[int, int, str]] = {}
        for r in rows:
            rank = (0 if r["name"] == q or m else 1, KIND_ORDER[r["kind"]])
            prev = found.get(r["gene_id"])
            if prev is None or rank < prev[:2]:
                found[r["gene_id"]] = (*rank, r["kind"])
        out = []
        for gid, (exact, kind_rank, kind) in found.items():
            g = self._gene(gid)
            if g is not None:
                pref = 0 if prefer_taxid is None or g["tax_id"] == prefer_taxid else 1
                out.append(((pref, exact, kind_rank, g["symbol"]), g, kind))
        out.sort(key=lambda t: t[0])
        return [(g, kind) for _, g, kind in out[:limit]]

    def _by_location(self, band: str, limit: int) -> list[tuple[dict[str, Any], str]]:
        rows = self._con.execute(
            "SELECT gene_id FROM genes WHERE map_location=? OR map_location LIKE ? "
            "ORDER BY (gene_type != 'protein-coding'), symbol LIMIT ?",
            (band, band + ".%", limit),
        ).fetchall()
        return [(g, "location") for r in rows if (g := self._gene(r[0])) is not None]

    def close(self) -> None:
        self._con.close()


def store_evidence(g: dict[str, Any], matched: str) -> Evidence:
    md = {
        "symbol": g["symbol"],
        "name": g["name"],
        "aliases": g["aliases"],
        "organism": "Homo sapiens" if g["tax_id"] == 9606 else None,
        "tax_id": g["tax_id"],
        "chromosome": g["chromosome"],
        "map_location": g["map_location"],
        "gene_type": g["gene_type"],
        "gene_type_source": "gene_info" if g["gene_type"] else None,
        "summary": None,
        "mim": g["mim"],
        "ensembl": g["ensembl"],
        "matched": matched,
        "hgnc_id": g.get("hgnc_id"),
        "previous_symbols": g.get("previous", []),
    }
    return gene_evidence(str(g["gene_id"]), md)


class LocalGeneRetriever(Retriever):
    """`gene` source, backend `local`: answers from the SQLite gene store."""

    name = "gene"
    manual = MANUAL
    query_format = QUERY_FORMAT + " (or a cytogenetic band such as 16q22.1)"

    def __init__(self, store: GeneStore, prefer_taxid: int | None = 9606):
        self.store = store
        self.prefer_taxid = prefer_taxid

    @classmethod
    def from_settings(cls, settings: Settings) -> LocalGeneRetriever:
        return cls(GeneStore(gene_store_path(settings)), settings.ncbi.prefer_taxid)

    def search(self, query: str, k: int, filters: SearchFilters | None = None) -> list[Evidence]:
        if not clean_gene_query(query):
            raise InputError("gene: empty query; give a gene symbol, alias, Ensembl ID or Gene ID")
        return [store_evidence(g, how) for g, how in self.store.lookup(query, self.prefer_taxid, limit=k)]

    def close(self) -> None:
        self.store.close()
