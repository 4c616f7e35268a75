"""Gene-set term libraries: a named collection of terms, each with its genes.

Three libraries ship with BioRAG (``biorag/resources/genesets``, see PROVENANCE.md there):
GO Biological Process for human (14,209 terms, annotations propagated up the GO graph),
Reactome 2025 (2,785 pathways) and HGNC gene groups (curated complexes and families, e.g.
"Proteasome", "Minichromosome maintenance complex"; written from the HGNC complete set by
`write_hgnc_groups_gmt`). Others are built at run time from local stores (HPO terms,
MeSH descriptors of the abstracts that mention genes) and take the same shape.

A library's universe is every gene it annotates: enrichment counts only query genes that
the library knows, against that universe.
"""

from __future__ import annotations

import csv
import gzip
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from biorag.contracts.errors import InputError
from biorag.knowledge.catalogues import catalogue_of, record_url

RESOURCES = Path(__file__).parents[1] / "resources" / "genesets"
GO_BP_GMT = RESOURCES / "go_bp" / "go_bp_human.gmt.gz"
REACTOME_GMT = RESOURCES / "reactome" / "ReactomePathways_2025.gmt.gz"
GO_BP_PARENTS = RESOURCES / "go_bp" / "go_bp_parents.tsv.gz"
REACTOME_PARENTS = RESOURCES / "reactome" / "ReactomePathwaysRelation_2025.tsv"
HGNC_GROUPS_GMT = RESOURCES / "hgnc_groups" / "hgnc_gene_groups.gmt.gz"
#: bundled libraries by name -> (file, column of the term id, column of the name)
BUNDLED = {
    "go_bp": (GO_BP_GMT, 0, 1),
    "reactome": (REACTOME_GMT, 1, 0),
    "hgnc_groups": (HGNC_GROUPS_GMT, 0, 1),
}
#: libraries built at run time from local stores (HPO store, gene-MeSH counts)
STORE_LIBRARIES = ("hpo", "mesh")
#: every term library by name, in naming order (`geneset.libraries` chooses among them)
LIBRARY_NAMES = (*BUNDLED, *STORE_LIBRARIES)
#: how a library is named in an answer
LIBRARY_LABELS = {"go_bp": "GO Biological Process", "reactome": "Reactome", "hgnc_groups": "HGNC gene groups",
                  "hpo": "HPO", "mesh": "MeSH"}
#: the libraries whose genes make the dictionary of human gene symbols (`bundled_symbols`):
#: HGNC groups also hold lncRNAs, microRNAs and pseudogenes, whose symbols are ordinary
#: words and numbers in free text more often than genes
SYMBOL_LIBRARIES = ("go_bp", "reactome")
#: how an HGNC gene group is cited: its id with the source named, like "MeSH D...", as the
#: bare number says nothing (its page: HGNC_GROUP_URL)
HGNC_GROUP_PREFIX = "HGNC group "
HGNC_GROUP_URL = "https://www.genenames.org/data/genegroup/#!/group/{id}"


#: the page of a GO or Reactome term, by its id ("GO:0006260", "R-HSA-69306")
GO_TERM_URL = "https://amigo.geneontology.org/amigo/term/{id}"
REACTOME_TERM_URL = "https://reactome.org/content/detail/{id}"


def term_url(library: str, term: str) -> str | None:
    """The web page of a term: GO and Reactome terms by their id, an HGNC group by its
    number, an HPO term through the catalogues; None where there is none."""
    if library == "hgnc_groups" and term.startswith(HGNC_GROUP_PREFIX):
        return HGNC_GROUP_URL.format(id=term[len(HGNC_GROUP_PREFIX):])
    if library == "go_bp" and term.startswith("GO:"):
        return GO_TERM_URL.format(id=term)
    if library == "reactome" and term.startswith("R-HSA-"):
        return REACTOME_TERM_URL.format(id=term)
    if library == "hpo" and term.startswith("HP:"):
        return record_url(*catalogue_of(term))
    return None
#: terms outside these sizes say nothing about a set. A 1-gene term cannot tell a set from one
#: gene, a 2,000-gene term ("cellular process") matches everything. 2-gene terms are kept: the
#: set rule (`biorag/knowledge/set_rule.py`: at least 2 of the asked genes, and half the set when a term
#: holds only 2) keeps them from answering by chance. Measured on 2,700 enrichments
#: (`benchmarks.geneset_sufficiency`, results 2026-11-26): min 3 -> 2 took GeneAgent's GO sets
#: from 0.736 to 0.753 right (wrong 0.240 -> 0.223), left NeST and Reactome as they were, and
#: random sets answered 0.015 -> 0.016.
MIN_TERM_SIZE = 2
MAX_TERM_SIZE = 500


class Library:
    """Terms (id, name, genes) held as integer arrays: term -> genes and gene -> terms in
    compressed sparse rows, so that a library loads from its cache in milliseconds and a
    query touches only the rows of its genes."""

    def __init__(self, name: str, term_ids: list[str], term_names: list[str], symbols: list[str],
                 term_ptr, term_genes):
        import numpy as np

        self.name = name
        self.term_ids = list(term_ids)
        self.symbols = list(symbols)
        self._term_names = list(term_names)
        self.term_ptr = np.asarray(term_ptr, dtype=np.int64)
        self.term_genes = np.asarray(term_genes, dtype=np.int32)
        order = np.argsort(self.term_genes, kind="stable")
        term_of_entry = np.repeat(np.arange(len(self.term_ids), dtype=np.int32), np.diff(self.term_ptr))
        self.gene_terms = term_of_entry[order]
        self.gene_ptr = np.concatenate([[0], np.cumsum(np.bincount(self.term_genes, minlength=len(self.symbols)))])
        self._term_index = {t: i for i, t in enumerate(self.term_ids)}
        self._gene_index = {g: i for i, g in enumerate(self.symbols)}
        self.names = dict(zip(self.term_ids, self._term_names, strict=True))
        self.universe = frozenset(self.symbols)

    def __len__(self) -> int:
        return len(self.term_ids)

    def size(self, term: str) -> int:
        i = self._term_index[term]
        return int(self.term_ptr[i + 1] - self.term_ptr[i])

    def members(self, term: str) -> frozenset[str]:
        i = self._term_index.get(term)
        if i is None:
            return frozenset()
        return frozenset(self.symbols[g] for g in self.term_genes[self.term_ptr[i]:self.term_ptr[i + 1]])

    def terms_of(self, genes: set[str]) -> dict[str, set[str]]:
        """term id -> the given genes it contains (terms containing none are left out)."""
        out: dict[str, set[str]] = {}
        for g in genes:
            gi = self._gene_index.get(g)
            if gi is None:
                continue
            for t in self.gene_terms[self.gene_ptr[gi]:self.gene_ptr[gi + 1]]:
                out.setdefault(self.term_ids[t], set()).add(g)
        return out

    # ---- cache ----------------------------------------------------------------------------
    def save(self, path: Path) -> None:
        import numpy as np

        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, term_ids=np.array(self.term_ids), term_names=np.array(self._term_names),
                 symbols=np.array(self.symbols), term_ptr=self.term_ptr, term_genes=self.term_genes)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, name: str) -> Library:
        import numpy as np

        with np.load(path) as z:
            return cls(name, z["term_ids"].tolist(), z["term_names"].tolist(), z["symbols"].tolist(),
                       z["term_ptr"], z["term_genes"])


@dataclass
class QueryLibrary:
    """A library read from a store for one query: only the terms the query genes touch,
    with each term's full size (a store of a million memberships is never loaded whole)."""

    name: str
    names: dict[str, str]
    sizes: dict[str, int]
    hits: dict[str, set[str]]
    universe: frozenset[str]

    def terms_of(self, genes: set[str]) -> dict[str, set[str]]:
        return {t: h & genes for t, h in self.hits.items() if h & genes}

    def size(self, term: str) -> int:
        return self.sizes[term]

    def members(self, term: str) -> frozenset[str]:
        """The term's genes among those the library was read for."""
        return frozenset(self.hits.get(term, ()))


def read_gmt(path: Path, id_col: int, name_col: int, min_size: int = MIN_TERM_SIZE,
             max_size: int = MAX_TERM_SIZE, name: str | None = None) -> Library:
    """A GMT file (tab-separated: two label columns, then genes) as a Library.

    The universe is every gene of the file, whatever the size of its terms; terms outside
    [min_size, max_size] are not kept as terms."""
    if not Path(path).exists():
        raise InputError(f"gene-set library not found: {path}")
    opener = gzip.open if str(path).endswith(".gz") else open
    term_ids: list[str] = []
    term_names: list[str] = []
    index: dict[str, int] = {}
    ptr, members = [0], []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3:
                continue
            genes = [index.setdefault(g, len(index)) for g in dict.fromkeys(cols[2:]) if g]
            if not (min_size <= len(genes) <= max_size):
                continue
            term_ids.append(cols[id_col])
            term_names.append(cols[name_col])
            members.extend(genes)
            ptr.append(len(members))
    if not term_ids:
        raise InputError(f"{path} holds no gene sets of {min_size}-{max_size} genes (is it a GMT file?)")
    return Library(name or Path(path).name, term_ids, term_names, list(index), ptr, members)


def _cache_path(path: Path, cache_dir: Path) -> Path:
    st = path.stat()
    return cache_dir / f"{path.name}.{st.st_size}.{int(st.st_mtime)}.{MIN_TERM_SIZE}-{MAX_TERM_SIZE}.npz"


@lru_cache(maxsize=4)
def bundled_library(name: str, cache_dir: Path | None = None) -> Library:
    """One of the libraries shipped with BioRAG, read once per process. With `cache_dir`,
    the parsed library is kept there as arrays (first use writes it; later loads take
    milliseconds instead of about a second for GO)."""
    if name not in BUNDLED:
        raise InputError(f"unknown gene-set library '{name}': bundled ones are {', '.join(BUNDLED)}")
    path, id_col, name_col = BUNDLED[name]
    cached = _cache_path(path, Path(cache_dir)) if cache_dir else None
    if cached is not None and cached.exists():
        try:
            return Library.load(cached, name)
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is rebuilt below
    lib = read_gmt(path, id_col, name_col, name=name)
    if cached is not None:
        try:
            lib.save(cached)
        except OSError:
            pass  # a read-only data dir only costs the faster start
    return lib


def bundled_symbols() -> frozenset[str]:
    """Every gene symbol of GO BP and Reactome (a dictionary of human gene symbols,
    `SYMBOL_LIBRARIES`)."""
    return frozenset().union(*(bundled_library(n).universe for n in SYMBOL_LIBRARIES))


def hgnc_groups_gmt(hgnc_tsv: Path) -> list[str]:
    """GMT lines of the HGNC gene groups of an HGNC complete set TSV (columns `symbol`,
    `gene_group`, `gene_group_id`, the last two pipe-separated and aligned): one line per
    group, "HGNC group <id>", its name, then its approved symbols; groups and symbols in
    a fixed order so that the file is the same on every rebuild. Only a gene's own groups
    are listed there (not their parent groups), so a group holds the genes HGNC files
    directly under it."""
    opener = gzip.open if str(hgnc_tsv).endswith(".gz") else open
    names: dict[int, str] = {}
    members: dict[int, set[str]] = {}
    with opener(hgnc_tsv, "rt", encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")  # multi-valued fields are quoted
        missing = {"symbol", "gene_group", "gene_group_id"} - set(reader.fieldnames or ())
        if missing:
            raise InputError(f"{hgnc_tsv}: not an HGNC complete set (no column {', '.join(sorted(missing))})")
        for row in reader:
            if row.get("status", "Approved") != "Approved" or not row["gene_group_id"]:
                continue
            ids, labels = row["gene_group_id"].split("|"), row["gene_group"].split("|")
            if len(ids) != len(labels):
                raise InputError(f"{hgnc_tsv}: {row['symbol']} has {len(ids)} group ids but {len(labels)} group names")
            for gid, label in zip(ids, labels, strict=True):
                names[int(gid)] = label
                members.setdefault(int(gid), set()).add(row["symbol"])
    return ["\t".join([f"{HGNC_GROUP_PREFIX}{gid}", names[gid], *sorted(members[gid])])
            for gid in sorted(members)]


def write_hgnc_groups_gmt(hgnc_tsv: Path, out: Path = HGNC_GROUPS_GMT) -> int:
    """Write the bundled HGNC groups library from an HGNC complete set (gzip without a
    timestamp: a rebuild from the same file is byte-identical). Returns the group count.

        python -c "from biorag.knowledge.gene_sets import write_hgnc_groups_gmt as w; \\
            print(w('indexing/resources/human_genes/hgnc_complete_set.txt.gz'))"
    """
    lines = hgnc_groups_gmt(hgnc_tsv)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(("\n".join(lines) + "\n").encode("utf-8"))
    return len(lines)


#: the term graph of a bundled library -> (file, its child and parent columns, the kinds of
#: edge that make the parent a broader form of the child; None: every row is one). GO's
#: "regulates" edges are left out: regulating a process is not a broader name for it.
TERM_GRAPHS = {
    "go_bp": (GO_BP_PARENTS, 0, 1, {"isa", "part_of"}),
    "reactome": (REACTOME_PARENTS, 1, 0, None),
}


@lru_cache(maxsize=4)
def term_parents(name: str) -> dict[str, frozenset[str]]:
    """term -> its direct broader terms in a bundled library's graph ({} for a library
    without one: HPO and MeSH are built at run time)."""
    if name not in TERM_GRAPHS:
        return {}
    path, child_col, parent_col, kinds = TERM_GRAPHS[name]
    opener = gzip.open if str(path).endswith(".gz") else open
    parents: dict[str, set[str]] = {}
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 2 or (kinds is not None and (len(cols) < 3 or cols[2] not in kinds)):
                continue  # the header and edges of other kinds
            parents.setdefault(cols[child_col], set()).add(cols[parent_col])
    return {child: frozenset(ps) for child, ps in parents.items()}


def ancestors(term: str, parents: dict[str, frozenset[str]]) -> set[str]:
    """Every broader term of `term` (transitively) in a graph from `term_parents`."""
    seen: set[str] = set()
    todo = list(parents.get(term, ()))
    while todo:
        t = todo.pop()
        if t not in seen:
            seen.add(t)
            todo.extend(parents.get(t, ()))
    return seen
