"""Build the local gene store (`biorag data gene-store build`): NCBI ``gene_info`` + HGNC
complete set + mim2gene (+ NCBI ``mim2gene_medgen`` phenotype links) in one SQLite file,
read by retrievers/stores/gene_store.py. The tables are described in `biorag.storage.gene_store_schema`.

Inputs: ``--gene-info Homo_sapiens.gene_info.gz --hgnc hgnc_complete_set.txt.gz --mim2gene
mim2gene.txt --mim2gene-medgen mim2gene_medgen`` (each optional but gene_info or hgnc is
needed; .gz is read transparently), or the bundled snapshot of the complete human files
(`snapshot_paths`, the default) or the chromosome-16 sample (`SAMPLE_DIR`, for tests and
demos); see resources/PROVENANCE.md. ``--mim2gene`` (gene MIM numbers) may be OMIM's
``mim2gene.txt`` or NCBI's ``mim2gene_medgen``; ``--mim2gene-medgen`` adds NCBI's
phenotype-MIM -> GeneID links (and its gene MIM numbers).

When gene_info and HGNC disagree, HGNC (the nomenclature authority for human genes) wins
the symbol, name and location; a gene_info symbol HGNC has since renamed becomes a
previous symbol.
"""

from __future__ import annotations

import csv
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError
from biorag.host.textfile import open_text
from biorag.storage.gene_store_schema import INDEXES, KIND_ORDER, SCHEMA, SCHEMA_VERSION, name_kind
from biorag.storage.sqlite_store import build_atomically, read_build_record, write_build_record

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


def snapshot_paths() -> dict[str, Path]:
    """The bundled human bulk files, by build input name."""
    return {key: SNAPSHOT_DIR / name for key, name in SNAPSHOT_FILES.items()}


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
    if gene_info is None and hgnc is None:
        raise InputError("gene-store build needs --gene-info and/or --hgnc")
    t0 = time.perf_counter()
    with build_atomically(Path(out), SCHEMA) as con:
        summary = _fill(con, gene_info, hgnc, mim2gene, mim2gene_medgen, progress, extend)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    summary["path"] = str(out)
    return summary


def _fill(con: sqlite3.Connection, gene_info: Path | None, hgnc: Path | None, mim2gene: Path | None,
          mim2gene_medgen: Path | None, progress: bool,
          extend: Callable[[sqlite3.Connection, set[int]], dict[str, Any]] | None) -> dict[str, Any]:
    from tqdm import tqdm

    genes: dict[int, dict[str, Any]] = {}
    names: set[tuple[str, int, str]] = set()
    hgnc_ensembl: dict[str, set[int]] = {}  # Ensembl id -> the genes HGNC lists it for
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
                hgnc_ensembl.setdefault(e.lower(), set()).add(gid)
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
        kind = name_kind(kind, name, genes[gid]["symbol"])  # gene_info's symbol HGNC has renamed since
        k = (name, gid)
        if k not in best or KIND_ORDER[kind] < KIND_ORDER[best[k]]:
            best[k] = kind
    con.executemany("INSERT INTO names VALUES (?,?,?,?)",
                    ((n.lower(), n, gid, kind) for (n, gid), kind in best.items()))
    con.executemany("INSERT INTO hgnc_ensembl VALUES (?,?)",
                    ((e, next(iter(gids))) for e, gids in sorted(hgnc_ensembl.items()) if len(gids) == 1))
    con.executescript(INDEXES)
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
    write_build_record(con, summary)
    return summary


def record_inputs(path: Path, inputs: dict[str, str | None]) -> None:
    """Set the ``inputs`` of a built store's build record: every file it was built from, as
    the user knows them (a download is built from temporary names, then moved into place)."""
    con = sqlite3.connect(path)
    try:
        build = read_build_record(con)
        build["inputs"] = dict(inputs)
        write_build_record(con, build)
        con.commit()
    finally:
        con.close()
