"""What a gene does and which variants lie in it, written into the local gene store while it is
built (`add_gene_annotations`, a `build_gene_store` ``extend`` step; the CLI wires it):

- GO Biological Process terms annotated to each gene directly (NCBI gene2go, with evidence
  codes; `biorag/resources/genesets/go_bp/go_bp_direct_annotations.tsv.gz`), ranked per gene;
- the Reactome pathways each gene is in (the bundled Reactome GMT), ranked per gene;
- ClinVar variants by rsID (a ClinVar VCF: by default the GRCh38 subset bundled in
  `resources/clinvar/`, see resources/PROVENANCE.md; ``--clinvar-vcf`` takes the full file).

Ranks (0 first) put what a gene card should show first. GO: a term a more specific term of
the same gene already says (an ancestor by is_a/part_of, supported at least as directly) is
left out; then experimental evidence first (`GO_EVIDENCE_TIER`), terms of at most
`MAX_SPECIFIC` genes first, terms with two or more non-electronic evidence codes first,
fewer genes (more specific) first. Reactome: a pathway one of its sub-pathways
already says for the gene is left out; then the smaller first. Tables:
`biorag.storage.gene_store_schema.ANNOTATION_SCHEMA`.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError
from biorag.host.textfile import open_text, unreadable
from biorag.knowledge.gene_sets import (
    GO_BP_PARENTS,
    REACTOME_GMT,
    REACTOME_PARENTS,
    RESOURCES,
    ancestors,
    term_parents,
)
from biorag.storage.gene_store_schema import ANNOTATION_SCHEMA, GO_EVIDENCE_TIER

GO_DIRECT = RESOURCES / "go_bp" / "go_bp_direct_annotations.tsv.gz"
GO_TERMS = RESOURCES / "go_bp" / "go_bp_terms.tsv.gz"
CLINVAR_VCF = Path(__file__).parent / "resources" / "clinvar" / (
    "clinvar_20260226_GRCh38_hereditary_cancer_genes_subset.vcf.gz")
#: a term annotated to more genes than this (with its descendants) says little about one
#: gene ("positive regulation of transcription by RNA polymerase II"): ranked after the others
MAX_SPECIFIC = 500
_GO_COLUMNS = ("entrez_id", "symbol", "go_id", "evidence")


def read_go_direct(path: Path) -> Iterator[tuple[int, str, str]]:
    """(gene_id, GO id, evidence code) rows of a gene -> GO BP direct annotation file."""
    with open_text(path) as fh:
        header = tuple(fh.readline().rstrip("\r\n").split("\t"))
        if header[:4] != _GO_COLUMNS:
            raise InputError(f"{path} is not a GO direct annotation file (expected columns "
                             f"{', '.join(_GO_COLUMNS)}; got {', '.join(header[:4])})")
        for line in fh:
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) >= 4 and cols[0].isdigit() and cols[3] in GO_EVIDENCE_TIER:
                yield int(cols[0]), cols[2], cols[3]


def _go_terms(path: Path) -> dict[str, tuple[str, int]]:
    """GO id -> (name, genes annotated to it or below it)."""
    out = {}
    with open_text(path) as fh:
        next(fh, None)
        for line in fh:
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) >= 3:
                out[cols[0]] = (cols[1], int(cols[2]) if cols[2].isdigit() else 0)
    return out


def _support(codes: set[str]) -> int:
    """Independent lines of evidence: codes other than electronic inference."""
    return sum(GO_EVIDENCE_TIER[c] < GO_EVIDENCE_TIER["IEA"] for c in codes)


def rank_go(codes: dict[str, set[str]], sizes: dict[str, int],
            parents: dict[str, frozenset[str]]) -> list[tuple[str, str]]:
    """One gene's GO terms (term -> its evidence codes) as ranked (term, codes) pairs, terms a
    more specific one says left out (see the module docstring)."""
    tier = {t: min(GO_EVIDENCE_TIER[c] for c in cs) for t, cs in codes.items()}
    said: set[str] = set()
    for t in codes:
        said |= {a for a in ancestors(t, parents) if a in codes and tier[t] <= tier[a]}
    kept = [t for t in codes if t not in said]
    kept.sort(key=lambda t: (tier[t], sizes.get(t, 0) > MAX_SPECIFIC, -min(_support(codes[t]), 2), sizes.get(t, 0), t))
    return [(t, ",".join(sorted(codes[t], key=lambda c: (GO_EVIDENCE_TIER[c], c)))) for t in kept]


def rank_pathways(mine: set[str], sizes: dict[str, int], parents: dict[str, frozenset[str]]) -> list[str]:
    """One gene's pathways, those a sub-pathway of the gene already says left out, smaller first."""
    said = set().union(*(ancestors(p, parents) for p in mine)) if mine else set()
    return sorted(mine - said, key=lambda p: (sizes[p], p))


def _symbols(con: sqlite3.Connection) -> dict[str, int]:
    """Human official symbol -> Gene ID, then previous symbols naming one gene only."""
    out = {s: g for s, g in con.execute("SELECT symbol, gene_id FROM genes WHERE tax_id=9606 OR tax_id IS NULL")}
    prev: dict[str, set[int]] = defaultdict(set)
    for name, gid in con.execute("SELECT name, gene_id FROM names WHERE kind='previous'"):
        prev[name].add(gid)
    for name, gids in prev.items():
        if name not in out and len(gids) == 1:
            out[name] = next(iter(gids))
    return out


def add_go(con: sqlite3.Connection, gene_ids: set[int], direct: Path = GO_DIRECT, terms: Path = GO_TERMS) -> dict[str, int]:
    names = _go_terms(terms)
    codes: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for gid, term, code in read_go_direct(direct):
        if gid in gene_ids and term in names:
            codes[gid][term].add(code)
    sizes = {t: n for t, (_, n) in names.items()}
    parents = term_parents("go_bp")
    rows = [(gid, t, ev, r) for gid, mine in codes.items() for r, (t, ev) in enumerate(rank_go(mine, sizes, parents))]
    con.executemany("INSERT INTO gene_go VALUES (?,?,?,?)", rows)
    used = {t for _, t, _, _ in rows}
    con.executemany("INSERT INTO go_terms VALUES (?,?,?)", ((t, names[t][0], names[t][1]) for t in sorted(used)))
    return {"go_annotations": len(rows), "genes_with_go": len(codes)}


def add_pathways(con: sqlite3.Connection, gmt: Path = REACTOME_GMT) -> dict[str, int]:
    symbols = _symbols(con)
    names: dict[str, str] = {}
    sizes: dict[str, int] = {}
    mine: dict[int, set[str]] = defaultdict(set)
    with open_text(gmt) as fh:
        for line in fh:
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) < 3 or not cols[1].startswith("R-"):
                continue
            names[cols[1]], sizes[cols[1]] = cols[0], len(set(cols[2:]))
            for sym in cols[2:]:
                if sym in symbols:
                    mine[symbols[sym]].add(cols[1])
    parents = term_parents("reactome")
    rows = [(gid, p, r) for gid, ps in mine.items() for r, p in enumerate(rank_pathways(ps, sizes, parents))]
    con.executemany("INSERT INTO gene_pathways VALUES (?,?,?)", rows)
    used = {p for _, p, _ in rows}
    con.executemany("INSERT INTO pathways VALUES (?,?,?)", ((p, names[p], sizes[p]) for p in sorted(used)))
    return {"pathway_annotations": len(rows), "genes_with_pathways": len(mine)}


def check_clinvar_vcf(path: Path) -> None:
    """A one-line InputError unless `path` is a readable VCF (checked before a build starts)."""
    try:
        with open_text(path) as fh:
            for line in fh:
                if not line.startswith("##"):
                    if line.startswith("#CHROM\tPOS\tID\tREF\tALT"):
                        return
                    break
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as e:
        raise InputError(f"--clinvar-vcf {path} {unreadable(e) if not isinstance(e, EOFError | zlib.error) else 'is a cut or damaged gzip file'}") from e
    raise InputError(f"--clinvar-vcf {path} is not a VCF file (no '#CHROM POS ID REF ALT ...' header line); "
                     "give ClinVar's clinvar.vcf.gz")


def read_clinvar_vcf(path: Path) -> Iterator[dict[str, Any]]:
    """One dict per (variant, gene) of a ClinVar VCF that carries a dbSNP rsID."""
    assembly = None
    with open_text(path) as fh:
        for line in fh:
            if line.startswith("##"):
                if line.startswith("##reference="):
                    assembly = line.split("=", 1)[1].strip()
                continue
            if line.startswith("#"):
                if not line.startswith("#CHROM\tPOS\tID\tREF\tALT"):
                    raise InputError(f"{path} is not a VCF file (its header line is {line[:60]!r})")
                continue
            cols = line.rstrip("\r\n").split("\t")
            if len(cols) < 8:
                continue
            info = dict(kv.split("=", 1) for kv in cols[7].split(";") if "=" in kv)
            if "RS" not in info:
                continue
            conditions = "|".join(c.replace("_", " ") for c in info.get("CLNDN", "").split("|")
                                  if c and c not in (".", "not_provided", "not_specified"))
            for gene in (info.get("GENEINFO") or ":").split("|"):
                symbol, _, gid = gene.partition(":")
                yield {"rsid": "rs" + info["RS"], "variation_id": cols[2], "gene_id": int(gid) if gid.isdigit() else None,
                       "symbol": symbol or None, "chromosome": cols[0], "position": int(cols[1]),
                       "ref": cols[3], "alt": cols[4], "significance": info.get("CLNSIG", "").replace("_", " "),
                       "conditions": conditions, "assembly": assembly,
                       "review_status": info.get("CLNREVSTAT", "").replace("_", " ").replace(" ,", ",") or None}


def add_variants(con: sqlite3.Connection, vcf: Path = CLINVAR_VCF) -> dict[str, Any]:
    """The VCF's variants and the older ClinVar releases bundled with BioRAG
    (`indexing.clinvar_load`)."""
    from indexing.clinvar_load import add_clinvar_releases

    return add_clinvar_releases(con, vcf, read_clinvar_vcf(vcf))


def add_gene_annotations(con: sqlite3.Connection, gene_ids: set[int], clinvar_vcf: Path | None = CLINVAR_VCF,
                         go_direct: Path = GO_DIRECT, reactome_gmt: Path = REACTOME_GMT) -> dict[str, Any]:
    """The `build_gene_store` extend step: GO BP, Reactome and ClinVar tables; their counts."""
    for path in (go_direct, reactome_gmt, GO_TERMS, GO_BP_PARENTS, REACTOME_PARENTS, clinvar_vcf):
        if path is not None and not Path(path).exists():
            raise InputError(f"gene annotations: {path} not found")
    con.executescript(ANNOTATION_SCHEMA)
    counts: dict[str, Any] = {**add_go(con, gene_ids, go_direct), **add_pathways(con, reactome_gmt)}
    if clinvar_vcf is not None:
        counts |= add_variants(con, Path(clinvar_vcf))
        counts["clinvar_vcf"] = str(clinvar_vcf)
    return counts
