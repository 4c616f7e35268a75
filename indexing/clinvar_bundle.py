"""ClinVar's older tables, reduced to the columns the gene store reads, bundled with BioRAG.

The gene store's variants come from three ClinVar releases (`indexing.clinvar_load` reads
them); the newest, the 2026 GRCh38 VCF subset, is bundled as it came. The other two are too
wide to bundle whole (34 and 16 columns, most of them submitter and accession lists), so this
module writes one compact table per release, every variant kept, in one layout
(`BUNDLE_COLUMNS`):

- ClinVar's ``variant_summary`` of January 2021 (a prefix by AlleleID): one row per (allele,
  gene) with its GRCh38 position and, from the same allele's GRCh37 row, its GRCh37 one;
  the HGVS c. and p. names come from the row's ``Name``.
- the MacArthur-lab flattening of ClinVar of May 2016: GRCh37 only, no rsIDs, HGVS c./p.

Run once by a developer when the shared files change (nothing reads ``../shared`` at run
time)::

    python -m indexing.clinvar_bundle --shared ../shared/data/clinvar

It writes into ``indexing/resources/clinvar/`` (see the PROVENANCE.md there).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from biorag.contracts.errors import InputError
from biorag.host.textfile import open_text
from biorag.knowledge.clinvar_conditions import NO_CONDITION

BUNDLE_DIR = Path(__file__).parent / "resources" / "clinvar"
SUMMARY_2021_SRC = "clinvar_variant_summary_2021-01_alleleid_15041-76255_prefix.tsv.gz"
MACARTHUR_2016_SRC = "clinvar_macarthur_2016-05_GRCh37_all_genes.tsv.gz"
SUMMARY_2021 = "clinvar_2021-01_variant_summary_reduced.tsv.gz"
MACARTHUR_2016 = "clinvar_2016-05_grch37_reduced.tsv.gz"
#: the layout of both bundled tables; empty cells are unknowns
BUNDLE_COLUMNS = ("rsid", "variation_id", "gene_id", "symbol", "chromosome", "position", "grch37_position",
                  "ref", "alt", "significance", "review_status", "conditions", "hgvs_c", "hgvs_p",
                  "last_evaluated")
_NAME = re.compile(r"^(?P<tx>[^(:\s]+)(?:\([^)]*\))?:(?P<c>[cnmg]\.[^\s]+)(?:\s+\((?P<p>p\.[^)]+)\))?")
_SUMMARY_HEADER = ("#AlleleID", "Type", "Name", "GeneID", "GeneSymbol")
_MACARTHUR_HEADER = ("chrom", "pos", "ref", "alt", "mut", "measureset_id", "symbol")


def conditions_of(text: str, seps: str = "|;") -> str:
    """Condition names, deduplicated case-insensitively, joined by "|"; placeholders dropped."""
    seen: dict[str, str] = {}
    for name in re.split(f"[{re.escape(seps)}]", text):
        name = name.strip()
        if name.lower() not in NO_CONDITION:
            seen.setdefault(name.lower(), name)
    return "|".join(seen.values())


def hgvs_of_name(name: str) -> tuple[str, str]:
    """(c. name with its transcript, p. name) of a variant_summary ``Name``; "" where absent."""
    m = _NAME.match(name.strip())
    if not m:
        return "", ""
    return f"{m.group('tx')}:{m.group('c')}", m.group("p") or ""


def _rows(path: Path, header: tuple[str, ...]) -> Iterator[dict[str, str]]:
    csv.field_size_limit(1 << 24)  # the 2016 table's PMID lists run past csv's default 128 KiB
    with open_text(path) as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        if tuple(reader.fieldnames or ())[:len(header)] != header:
            raise InputError(f"{path} does not start with the columns {', '.join(header)}")
        yield from reader


def reduce_summary(path: Path) -> Iterator[tuple[str, ...]]:
    """The 2021 variant_summary as bundle rows (GRCh38 rows, GRCh37 position joined in)."""
    grch37: dict[str, str] = {}
    grch38: list[dict[str, str]] = []
    for row in _rows(path, _SUMMARY_HEADER):
        if row["Assembly"] == "GRCh37" and row["PositionVCF"] not in ("", "-1", "na"):
            grch37[row["#AlleleID"]] = row["PositionVCF"]
        elif row["Assembly"] == "GRCh38":
            grch38.append(row)
    for row in grch38:
        rs = row["RS# (dbSNP)"]
        hgvs_c, hgvs_p = hgvs_of_name(row["Name"])
        symbols = [s for s in row["GeneSymbol"].split(";") if s and s != "-"] or [""]
        gid = row["GeneID"] if row["GeneID"].isdigit() and len(symbols) == 1 else ""
        pos = row["PositionVCF"] if row["PositionVCF"] not in ("-1", "na") else ""
        ref, alt = (row["ReferenceAlleleVCF"], row["AlternateAlleleVCF"]) if pos else ("", "")
        for sym in symbols:
            yield (f"rs{rs}" if rs.isdigit() and rs != "-1" else "", row["VariationID"], gid, sym,
                   row["Chromosome"] if row["Chromosome"] != "na" else "", pos, grch37.get(row["#AlleleID"], ""),
                   "" if ref == "na" else ref, "" if alt == "na" else alt, row["ClinicalSignificance"],
                   row["ReviewStatus"], conditions_of(row["PhenotypeList"]), hgvs_c, hgvs_p,
                   "" if row["LastEvaluated"] == "-" else row["LastEvaluated"])


def reduce_macarthur(path: Path) -> Iterator[tuple[str, ...]]:
    """The 2016 MacArthur-lab table as bundle rows (GRCh37 only: no GRCh38 position, no rsID)."""
    for row in _rows(path, _MACARTHUR_HEADER):
        hgvs_p = row["hgvs_p"].split(":", 1)[-1] if row["hgvs_p"] else ""
        yield ("", row["measureset_id"], "", row["symbol"], row["chrom"], "", row["pos"], row["ref"], row["alt"],
               row["clinical_significance"], row["review_status"], conditions_of(row["all_traits"], ";"),
               row["hgvs_c"], hgvs_p, "")


def write_bundle(rows: Iterable[tuple[str, ...]], out: Path) -> int:
    """`rows` written as a gzip TSV (deterministic: no name or time in the gzip header)."""
    n = 0
    tmp = out.with_suffix(".part")
    try:
        with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
            text = io.TextIOWrapper(gz, encoding="utf-8", newline="")
            text.write("\t".join(BUNDLE_COLUMNS) + "\n")
            for r in rows:
                text.write("\t".join(v.replace("\t", " ") for v in r) + "\n")
                n += 1
            text.flush()
            text.detach()
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Reduce the shared ClinVar tables of 2021 and 2016 into the "
                                 "bundled ones in indexing/resources/clinvar/.")
    ap.add_argument("--shared", type=Path, required=True, help="folder holding the shared ClinVar files")
    ap.add_argument("--out", type=Path, default=BUNDLE_DIR, help="where to write (default: %(default)s)")
    args = ap.parse_args(argv)
    try:
        for src, dst, reduce in ((SUMMARY_2021_SRC, SUMMARY_2021, reduce_summary),
                                 (MACARTHUR_2016_SRC, MACARTHUR_2016, reduce_macarthur)):
            if not (args.shared / src).is_file():
                raise InputError(f"{args.shared / src} not found")
            n = write_bundle(reduce(args.shared / src), args.out / dst)
            print(f"{dst}: {n} rows", file=sys.stderr)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
