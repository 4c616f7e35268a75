"""Local gene store: NCBI ``gene_info`` + HGNC complete set + mim2gene (+ NCBI
``mim2gene_medgen`` phenotype links) in one SQLite file.

Answers the gene tool with no network at all (backend ``local``), with the same evidence
as the live tool (see retrievers/gene.py for the metadata keys). Lookups: NCBI Gene ID,
official symbol, alias, previous symbol, Ensembl gene ID (version suffix ignored), HGNC ID
and cytogenetic location (``16q22.1`` lists the genes there).

Ambiguity is surfaced: an alias used by several genes returns all of them, preferred
organism first, exact-case matches before case-insensitive ones, official symbols before
previous symbols before aliases. Nothing is resolved silently.

The OMIM tool uses the store too: `genes_for_mim` gives the genes NCBI links to an OMIM
phenotype number (``mim2gene_medgen``), and `current_symbol` maps a symbol as OMIM lists it
(possibly a previous symbol or alias) to today's official human symbol when, and only when,
exactly one gene fits.

Build: ``biorag data gene-store build --gene-info Homo_sapiens.gene_info.gz --hgnc
hgnc_complete_set.txt.gz --mim2gene mim2gene.txt --mim2gene-medgen mim2gene_medgen`` (each
input optional but gene_info or hgnc is needed; .gz is read transparently). ``--mim2gene``
(gene MIM numbers) may be OMIM's ``mim2gene.txt`` or NCBI's ``mim2gene_medgen``;
``--mim2gene-medgen`` adds NCBI's phenotype-MIM -> GeneID links (and its gene MIM numbers).
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.errors import InputError, SourceUnavailable
from biorag.models import Evidence, SearchFilters
from biorag.names import name_keys
from biorag.textfile import open_text
from retrievers.base import Retriever
from retrievers.gene import MANUAL, QUERY_FORMAT, clean_gene_query, gene_evidence
from retrievers.gene_fields import GeneFields

if TYPE_CHECKING:
    from biorag.settings import Settings

SAMPLE_DIR = Path(__file__).parent / "resources" / "gene_store_sample"
#: the bundled snapshot of the complete human bulk files (see resources/PROVENANCE.md)
SNAPSHOT_DIR = Path(__file__).parent / "resources" / "human_genes"
SNAPSHOT_FILES = {
    "gene_info": "Homo_sapiens.gene_info.gz",
    "hgnc": "hgnc_complete_set.txt.gz",
    "mim2gene": "mim2gene.txt.gz",
    "mim2gene_medgen": "mim2gene_medgen.gz",
    "gene_condition": "gene_condition_source_id.txt.gz",
}
SCHEMA_VERSION = 3  # 3: disease dictionary tables (written by indexing/disease_dictionary.py)

_SCHEMA = """
CREATE TABLE genes (
    gene_id INTEGER PRIMARY KEY, tax_id INTEGER, symbol TEXT, name TEXT, chromosome TEXT,
    map_location TEXT, gene_type TEXT, hgnc_id TEXT, locus_type TEXT, other_designations TEXT
);
CREATE TABLE names (name_lc TEXT NOT NULL, name TEXT NOT NULL, gene_id INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE mim (gene_id INTEGER NOT NULL, mim TEXT NOT NULL, type TEXT);
CREATE TABLE mim_phenotype (
    mim TEXT NOT NULL, gene_id INTEGER NOT NULL, source TEXT, medgen_cui TEXT, comment TEXT
);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
"""
_INDEXES = """
CREATE INDEX names_lc ON names(name_lc);
CREATE INDEX names_gene ON names(gene_id);
CREATE INDEX mim_gene ON mim(gene_id);
CREATE INDEX mim_mim ON mim(mim);
CREATE INDEX mim_phenotype_mim ON mim_phenotype(mim);
CREATE INDEX genes_loc ON genes(map_location);
"""
#: rank of a name kind in results (lower first)
KIND_ORDER = {"gene_id": 0, "symbol": 1, "hgnc": 2, "ensembl": 2, "previous": 3, "alias": 4, "locus_tag": 5}
_ENSEMBL = re.compile(r"^(ENS[A-Z]*G\d{6,})(\.\d+)?$", re.I)
#: display order of disease ids in find_diseases (after "has genes")
_ID_ORDER = {p: i for i, p in enumerate(("OMIM", "ORPHA", "MONDO", "MedGen", "MESH", "HP", "DECIPHER"))}
_NAME_SOURCES = ["hpo", "clinvar", "mesh"]
_ID_PREFIXES = {p.lower(): p for p in _ID_ORDER} | {"orphanet": "ORPHA", "mim": "OMIM", "hpo": "HP"}
_BAND = re.compile(r"^(\d{1,2}|X|Y|MT)([pq]\d*(\.\d+)?)?(-(\d{1,2}|X|Y)?[pq]\d+(\.\d+)?)?$", re.I)


def gene_store_path(settings: Settings) -> Path:
    return Path(settings.gene_store).expanduser() if settings.gene_store else Path(settings.data_dir) / "gene_store.sqlite"


def snapshot_paths() -> dict[str, Path]:
    """The bundled human bulk files, by build input name."""
    return {key: SNAPSHOT_DIR / name for key, name in SNAPSHOT_FILES.items()}


def build_command_hint(path: Path) -> str:
    return (
        f"no local gene store at {path}: build it with `biorag data gene-store build` "
        "(every human gene, from the bundled snapshot, in seconds)"
    )


def normalise_disease_id(disease_id: str) -> str:
    """A disease CURIE with its prefix spelled as the store writes it ("omim:186580" ->
    "OMIM:186580", "186580" -> "OMIM:186580", "Orphanet:137" -> "ORPHA:137"); "" if empty."""
    did = disease_id.strip()
    if did.isdigit():
        return "OMIM:" + did
    prefix, sep, rest = did.partition(":")
    if not sep:
        return did
    return f"{_ID_PREFIXES.get(prefix.strip().lower(), prefix.strip())}:{rest.strip()}"


# ---- reading the bulk files ---------------------------------------------------------



def _split(value: str | None, sep: str = "|") -> list[str]:
    if not value or value == "-":
        return []
    return [v.strip().strip('"') for v in value.strip('"').split(sep) if v.strip().strip('"') not in ("", "-")]


def read_gene_info(path: Path) -> Iterator[dict[str, str]]:
    with open_text(path) as fh:
        header = fh.readline().lstrip("#").rstrip("\n").split("\t")
        if "GeneID" not in header or "Symbol" not in header:
            raise InputError(f"{path} is not an NCBI gene_info file (no GeneID/Symbol columns)")
        for line in fh:
            yield dict(zip(header, line.rstrip("\n").split("\t"), strict=False))


def read_hgnc(path: Path) -> Iterator[dict[str, str]]:
    with open_text(path) as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        if not reader.fieldnames or "hgnc_id" not in reader.fieldnames:
            raise InputError(f"{path} is not an HGNC complete set (no hgnc_id column)")
        yield from reader


def read_mim2gene(path: Path) -> Iterator[tuple[str, str, str]]:
    """(mim, gene_id, type) from OMIM mim2gene.txt or NCBI mim2gene_medgen."""
    with open_text(path) as fh:
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


MEDGEN_COLUMNS = ("MIM number", "GeneID", "type", "Source", "MedGenCUI", "Comment")


def read_mim2gene_medgen(path: Path) -> Iterator[dict[str, str]]:
    """Rows of NCBI ``mim2gene_medgen`` (values stripped, "-" -> ""), header checked."""
    with open_text(path) as fh:
        header = tuple(c.strip() for c in fh.readline().lstrip("#").rstrip("\n").split("\t"))
        if header[:3] != MEDGEN_COLUMNS[:3]:
            raise InputError(
                f"{path} is not NCBI mim2gene_medgen (expected columns {', '.join(MEDGEN_COLUMNS)}; "
                f"got {', '.join(header[:6])})"
            )
        for line in fh:
            if not line.strip():
                continue
            cols = [c.strip() for c in line.rstrip("\n").split("\t")]
            row = dict(zip(MEDGEN_COLUMNS, cols + [""] * (len(MEDGEN_COLUMNS) - len(cols)), strict=False))
            yield {k: ("" if v == "-" else v) for k, v in row.items()}


# ---- build --------------------------------------------------------------------------


def build_gene_store(
    out: Path,
    gene_info: Path | None = None,
    hgnc: Path | None = None,
    mim2gene: Path | None = None,
    mim2gene_medgen: Path | None = None,
    progress: bool = True,
    extend: Callable[[sqlite3.Connection, set[int]], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Build the SQLite store at `out` (atomically: a temp file renamed at the end).

    `extend(con, gene_ids)` may add tables before the file is committed (the CLI adds the
    disease dictionary of indexing/disease_dictionary.py this way); its counts join the
    summary."""
    try:
        return _build_gene_store(Path(out), gene_info, hgnc, mim2gene, mim2gene_medgen, progress, extend)
    except BaseException:
        Path(out).with_suffix(Path(out).suffix + ".tmp").unlink(missing_ok=True)  # no half-built file left
        raise


def _build_gene_store(out: Path, gene_info: Path | None, hgnc: Path | None, mim2gene: Path | None,
                      mim2gene_medgen: Path | None, progress: bool,
                      extend: Callable[[sqlite3.Connection, set[int]], dict[str, Any]] | None) -> dict[str, Any]:
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
    counts = {"gene_info": 0, "hgnc": 0, "hgnc_without_entrez": 0, "mim": 0,
              "medgen_phenotype_links": 0, "medgen_gene_links": 0, "medgen_without_gene": 0}

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

    if mim2gene_medgen is not None:
        for row in tqdm(read_mim2gene_medgen(mim2gene_medgen), desc="mim2gene_medgen", unit=" rows",
                        disable=not progress):
            mim, gid, kind = row["MIM number"], row["GeneID"], row["type"]
            if not (mim.isdigit() and gid.isdigit()):
                counts["medgen_without_gene"] += 1
            elif kind == "phenotype":
                con.execute("INSERT INTO mim_phenotype VALUES (?,?,?,?,?)",
                            (mim, int(gid), row["Source"], row["MedGenCUI"], row["Comment"]))
                counts["medgen_phenotype_links"] += 1
            else:  # "gene": the gene's own MIM number
                con.execute("INSERT INTO mim VALUES (?,?,?)", (int(gid), mim, "medgen_" + kind))
                counts["medgen_gene_links"] += 1

    cols = ("gene_id", "tax_id", "symbol", "name", "chromosome", "map_location", "gene_type",
            "hgnc_id", "locus_type", "other_designations")
    con.executemany(
        f"INSERT INTO genes VALUES ({','.join('?' * len(cols))})",
        ([g.get(c) for c in cols] for g in genes.values()),
    )
    # a symbol recorded as an alias too keeps only its strongest kind per gene
    best: dict[tuple[str, int], str] = {}
    for name, gid, kind in names:
        if kind == "symbol" and name != genes[gid]["symbol"]:
            kind = "previous"  # gene_info's symbol for a gene HGNC has renamed since
        k = (name, gid)
        if k not in best or KIND_ORDER[kind] < KIND_ORDER[best[k]]:
            best[k] = kind
    con.executemany("INSERT INTO names VALUES (?,?,?,?)",
                    ((n.lower(), n, gid, kind) for (n, gid), kind in best.items()))
    con.executescript(_INDEXES)
    if extend is not None:
        counts.update(extend(con, set(genes)))
    summary = {
        "schema": SCHEMA_VERSION,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "inputs": {"gene_info": str(gene_info) if gene_info else None,
                   "hgnc": str(hgnc) if hgnc else None,
                   "mim2gene": str(mim2gene) if mim2gene else None,
                   "mim2gene_medgen": str(mim2gene_medgen) if mim2gene_medgen else None},
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


def record_inputs(path: Path, inputs: dict[str, str | None]) -> None:
    """Set the ``inputs`` of a built store's build record: every file it was built from, as
    the user knows them (a download is built from temporary names, then moved into place)."""
    con = sqlite3.connect(path)
    try:
        row = con.execute("SELECT value FROM meta WHERE key='build'").fetchone()
        build = json.loads(row[0]) if row else {}
        build["inputs"] = dict(inputs)
        con.execute("INSERT OR REPLACE INTO meta VALUES ('build', ?)", (json.dumps(build),))
        con.commit()
    finally:
        con.close()


# ---- lookup -------------------------------------------------------------------------


@dataclass
class SymbolMatch:
    """How a listed gene symbol maps to today's official symbol.

    ``symbol``/``gene_id`` are set only when exactly one human gene fits; otherwise they are
    None and ``candidates`` names the genes that could be meant (empty: the store knows none).
    ``basis``: how the gene was found: "symbol", "previous", "alias" (kind of name matched),
    with "+mim" when the entry's own MIM number picked it among several; "mim" when only the
    MIM number links it; "ambiguous" or "unknown" when unresolved."""

    listed: str
    symbol: str | None
    gene_id: int | None
    basis: str
    candidates: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.symbol is not None and self.symbol != self.listed


class GeneStore:
    """Read side of the store. Thread-safe enough for the agent (one connection per thread)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.exists():
            raise SourceUnavailable("gene", build_command_hint(self.path))
        self._con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        self._con.row_factory = sqlite3.Row
        self._tables = {r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    @property
    def has_phenotype_links(self) -> bool:
        """True when built with ``--mim2gene-medgen`` (schema 2 and later)."""
        if "mim_phenotype" not in self._tables:
            return False
        return self._con.execute("SELECT 1 FROM mim_phenotype LIMIT 1").fetchone() is not None

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

    def mim_links(self, mim: str | int) -> list[dict[str, Any]]:
        """Genes NCBI's mim2gene_medgen links to an OMIM *phenotype* number, by symbol:
        dicts with gene_id, symbol, map_location, source, medgen_cui and comment (e.g.
        "question": a provisional link, "susceptibility", "nondisease")."""
        if "mim_phenotype" not in self._tables:
            return []
        rows = self._con.execute(
            "SELECT p.gene_id, g.symbol, g.map_location, p.source, p.medgen_cui, p.comment "
            "FROM mim_phenotype p JOIN genes g ON g.gene_id = p.gene_id WHERE p.mim=? "
            "ORDER BY g.symbol, p.gene_id",
            (str(mim),),
        ).fetchall()
        return [dict(r) for r in rows]

    def genes_for_mim(self, mim: str | int) -> list[tuple[int, str, str | None]]:
        """(gene_id, official symbol, cytogenetic location) of the genes linked to an OMIM
        phenotype number by mim2gene_medgen; [] when none (or the store has no such links)."""
        return [(r["gene_id"], r["symbol"], r["map_location"]) for r in self.mim_links(mim)]

    def gene_ids_with_mim(self, mim: str | int) -> set[int]:
        """Genes whose own (gene) MIM number this is, from gene_info, HGNC and mim2gene files."""
        rows = self._con.execute(
            "SELECT DISTINCT gene_id FROM mim WHERE mim=? "
            "AND type NOT IN ('phenotype', 'predominantly phenotypes')",  # OMIM mim2gene's phenotype rows
            (str(mim),),
        )
        return {r[0] for r in rows}

    def current_symbol(self, symbol: str, mim: str | int | None = None, tax_id: int = 9606) -> SymbolMatch:
        """Today's official symbol for a symbol as a source lists it (maybe outdated).

        Candidates are the genes of `tax_id` having `symbol` (any case) as official, previous
        symbol or alias. With `mim` (the OMIM gene entry the symbol comes from): the candidate
        whose own MIM number it is wins; a candidate carrying other MIM numbers only is
        refused (the entry is about another gene). Otherwise the strongest kind of name
        decides (official > previous > alias), and only if exactly one gene has it."""
        rows = self._con.execute(
            "SELECT n.gene_id, n.name, n.kind, g.symbol FROM names n JOIN genes g ON g.gene_id = n.gene_id "
            "WHERE n.name_lc=? AND g.tax_id=? AND n.kind IN ('symbol', 'previous', 'alias')",
            (symbol.strip().lower(), tax_id),
        ).fetchall()
        best: dict[int, tuple[int, str, str]] = {}  # gene_id -> (rank, kind, current symbol)
        for r in rows:
            kind = r["kind"]
            if kind == "symbol" and r["symbol"].lower() != r["name"].lower():
                kind = "previous"  # gene_info's older symbol for a gene HGNC has since renamed
            rank = KIND_ORDER[kind]
            if r["gene_id"] not in best or rank < best[r["gene_id"]][0]:
                best[r["gene_id"]] = (rank, kind, r["symbol"])
        candidates = sorted({sym for _, _, sym in best.values()})
        linked = self.gene_ids_with_mim(mim) if mim is not None else set()
        by_mim = [gid for gid in best if gid in linked]
        if len(by_mim) == 1:
            gid = by_mim[0]
            basis = best[gid][1] if len(best) == 1 else best[gid][1] + "+mim"
            return SymbolMatch(symbol, best[gid][2], gid, basis, candidates)
        if not best:
            human = [g for gid in sorted(linked) if (g := self._gene(gid)) and g["tax_id"] == tax_id]
            if len(human) == 1:
                return SymbolMatch(symbol, human[0]["symbol"], human[0]["gene_id"], "mim", [human[0]["symbol"]])
            return SymbolMatch(symbol, None, None, "unknown", [])
        top = min(rank for rank, _, _ in best.values())
        winners = [gid for gid, (rank, _, _) in best.items() if rank == top]
        if len(winners) == 1 and not linked:
            gid = winners[0]
            if mim is None or not self.gene_mims(gid):
                return SymbolMatch(symbol, best[gid][2], gid, best[gid][1], candidates)
        # several genes fit equally well, or the MIM numbers say the entry is about another gene
        return SymbolMatch(symbol, None, None, "ambiguous", candidates)

    def gene_mims(self, gene_id: int) -> set[str]:
        """The gene's own (gene) MIM numbers."""
        rows = self._con.execute(
            "SELECT DISTINCT mim FROM mim WHERE gene_id=? AND type NOT IN ('phenotype', 'predominantly phenotypes')",
            (gene_id,),
        )
        return {r[0] for r in rows}

    # ---- disease dictionary (tables written by indexing/disease_dictionary.py) ----------

    @property
    def has_diseases(self) -> bool:
        """True when the store carries the disease dictionary (schema 3 and later)."""
        return "disease_names" in self._tables

    def find_diseases(self, text: str, limit: int = 20) -> list[dict[str, Any]]:
        """Diseases/phenotypes whose name (or a synonym) is `text`, matched on the normalised
        key of `biorag.names.disease_key` (case, punctuation, hyphen, possessive and Roman
        numeral variants; "A, B" catalogue order too). Exact-name match only: a span, not a
        sentence.

        Each hit: ``disease_id`` ("OMIM:186580", "ORPHA:…", "MONDO:…", "MedGen:…", "MESH:…"),
        ``name`` (display name), ``source`` (the dictionary whose name matched: "hpo",
        "clinvar" or "mesh"; several: the first of those), ``sources``, ``matched_name``,
        ``xrefs`` (other ids of the concept) and ``n_genes`` (genes linked offline). Ordered:
        diseases with genes first, then OMIM, ORPHA, MONDO, MedGen, MESH, then id."""
        if not self.has_diseases:
            return []
        keys = sorted(name_keys(text))  # "Diabetes mellitus, type 2" is asked both ways too
        if not keys:
            return []
        rows = self._con.execute(
            "SELECT n.disease_id, n.name AS matched, n.source, d.name FROM disease_names n "
            "JOIN diseases d ON d.disease_id = n.disease_id "
            f"WHERE n.name_key IN ({','.join('?' * len(keys))})", keys).fetchall()
        found: dict[str, dict[str, Any]] = {}
        for r in rows:
            hit = found.setdefault(r["disease_id"], {
                "disease_id": r["disease_id"], "name": r["name"], "source": r["source"],
                "sources": [], "matched_name": r["matched"]})
            if r["source"] not in hit["sources"]:
                hit["sources"].append(r["source"])
        for hit in found.values():
            hit["sources"].sort(key=_NAME_SOURCES.index)
            hit["source"] = hit["sources"][0]
            hit["xrefs"] = self._xrefs(hit["disease_id"])
            hit["n_genes"] = len(self._disease_gene_ids(hit["disease_id"]))
        ordered = sorted(found.values(), key=lambda h: (
            h["n_genes"] == 0, _ID_ORDER.get(h["disease_id"].split(":", 1)[0], len(_ID_ORDER)),
            h["disease_id"]))
        return ordered[:limit]

    def _xrefs(self, disease_id: str) -> list[str]:
        rows = self._con.execute(
            "SELECT xref FROM disease_xrefs WHERE disease_id=? UNION "
            "SELECT disease_id FROM disease_xrefs WHERE xref=?", (disease_id, disease_id))
        return sorted(r[0] for r in rows)

    def _disease_gene_ids(self, disease_id: str) -> dict[int, list[tuple[str, str | None]]]:
        """gene_id -> [(source, note)] for the id and the ids recorded as the same concept."""
        ids = [disease_id, *self._xrefs(disease_id)]
        rows = self._con.execute(
            f"SELECT gene_id, source, note FROM disease_genes WHERE disease_id IN ({','.join('?' * len(ids))}) "
            "ORDER BY gene_id, source", ids).fetchall()
        out: dict[int, list[tuple[str, str | None]]] = {}
        for r in rows:
            if (r["source"], r["note"]) not in out.setdefault(r["gene_id"], []):
                out[r["gene_id"]].append((r["source"], r["note"]))
        return out

    def genes_for_disease(self, disease_id: str) -> list[dict[str, Any]]:
        """Genes linked to a disease id offline (ClinVar gene_condition_source_id, NCBI
        mim2gene_medgen, HPO genes_to_phenotype), through the id's xrefs too. Each is a gene
        dict as `by_gene_id` returns, plus ``links``: [{"source", "note"}] (note: ClinVar
        "associated"/"related", NCBI comments such as "question"). Sorted by symbol.

        Ids are CURIEs, prefix case-insensitive ("omim:186580"); a bare 6-digit number is an
        OMIM number."""
        if not self.has_diseases:
            return []
        did = normalise_disease_id(disease_id)
        if not did:
            return []
        out = []
        for gid, links in self._disease_gene_ids(did).items():
            g = self._gene(gid)
            if g is not None:
                g["links"] = [{"source": s, "note": n} for s, n in links]
                out.append(g)
        return sorted(out, key=lambda g: (g["symbol"], g["gene_id"]))

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
        "backend": "local",
    }
    return gene_evidence(str(g["gene_id"]), md)


class LocalGeneRetriever(GeneFields, Retriever):
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
