"""Local gene store, the read side: NCBI ``gene_info`` + HGNC complete set + mim2gene (+ NCBI
``mim2gene_medgen`` phenotype links) in one SQLite file, built by
indexing/gene_store_build.py (tables: `biorag.storage.gene_store_schema`).

The gene tool's ``local`` backend (`retrievers.gene.retriever.LocalGeneRetriever`) answers from it with
no network at all, with the same evidence as the live tool. Lookups: NCBI Gene ID,
official symbol, alias, previous symbol, Ensembl gene ID (version suffix ignored), HGNC ID
and cytogenetic location (``16q22.1`` lists the genes there).

Ambiguity is surfaced: an alias used by several genes returns all of them, preferred
organism first, exact-case matches before case-insensitive ones, official symbols before
previous symbols before aliases. Nothing is resolved silently, except by the nomenclature
authority: an Ensembl gene ID that several gene_info records list (a gene and its
readthrough) means the one gene HGNC maps it to (`hgnc_ensembl_choice`).

The OMIM tool uses the store too: `genes_for_mim` gives the genes NCBI links to an OMIM
phenotype number (``mim2gene_medgen``), and `current_symbol` maps a symbol as OMIM lists it
(possibly a previous symbol or alias) to today's official human symbol when, and only when,
exactly one gene fits.

Build: ``biorag data gene-store build`` (every human gene from the bundled snapshot; file
options take other bulk files, see indexing/gene_store_build.py).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.knowledge.disease_gene_order import order_genes
from biorag.knowledge.gene_link_labels import label_by_subtypes
from biorag.knowledge.names import (
    catalogue_form,
    disease_key,
    inheritance_words,
    inverted_keys,
    name_keys,
    one_edit,
    same_inheritance,
    word_keys,
)
from biorag.storage.gene_store_schema import KIND_ORDER, name_kind
from biorag.storage.sqlite_store import open_read_only, read_build_record
from retrievers.stores import clinvar_lookup
from retrievers.stores.gene_annotations import gene_annotations

if TYPE_CHECKING:
    from biorag.settings import Settings

_ENSEMBL = re.compile(r"^(ENS[A-Z]*G\d{6,})(\.\d+)?$", re.I)
#: display order of disease ids in find_diseases (after "has genes")
_ID_ORDER = {p: i for i, p in enumerate(("OMIM", "ORPHA", "MONDO", "MedGen", "MESH", "HP", "DECIPHER"))}
_NAME_SOURCES = ["hpo", "clinvar", "mesh"]
_ID_PREFIXES = {p.lower(): p for p in _ID_ORDER} | {"orphanet": "ORPHA", "mim": "OMIM", "hpo": "HP"}
_BAND = re.compile(r"^(\d{1,2}|X|Y|MT)([pq]\d*(\.\d+)?)?(-(\d{1,2}|X|Y)?[pq]\d+(\.\d+)?)?$", re.I)


def gene_store_path(settings: Settings) -> Path:
    return Path(settings.gene_store).expanduser() if settings.gene_store else Path(settings.data_dir) / "gene_store.sqlite"


def gene_designations(con: sqlite3.Connection, where: str) -> Iterator[tuple[int, str, list[str]]]:
    """Each gene of the store matching `where` (an SQL condition on the genes table, written
    by the caller, never from user input) with its names as written: (gene_id, symbol,
    [full name, other designations...]). The store's product names and the lexicon's
    written-out gene names are both read from it."""
    for gene_id, symbol, name, other in con.execute(
            f"SELECT gene_id, symbol, name, other_designations FROM genes WHERE {where}"):
        yield gene_id, symbol, [name or "", *(other or "").split("|")]


def hgnc_ensembl_choice(con: sqlite3.Connection, ensembl_id: str, gene_ids: set[int]) -> int | None:
    """The one of `gene_ids` that HGNC maps `ensembl_id` to (version suffix ignored); None
    when HGNC maps it to none of them, or the store predates the `hgnc_ensembl` table."""
    if len(gene_ids) < 2:
        return None
    try:
        row = con.execute("SELECT gene_id FROM hgnc_ensembl WHERE ensembl_lc=?",
                          (ensembl_id.lower().split(".")[0],)).fetchone()
    except sqlite3.OperationalError:  # built before schema 6: no authority, stays ambiguous
        return None
    return row[0] if row is not None and row[0] in gene_ids else None


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


# ---- lookup -------------------------------------------------------------------------


def clean_gene_query(query: str) -> str:
    """Strip quotes, brackets and a trailing 'gene' word; keep the identifier's case."""
    q = query.strip().strip("\"'`[]{}()").strip()
    q = re.sub(r"\s+gene$", "", q, flags=re.I)
    return q.strip()


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
        self._con = open_read_only(self.path, "gene", build_command_hint(self.path), rows=True)
        self._tables = {r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        self._products: tuple[dict[str, set[int]], dict[str, set[int]]] | None = None
        self._vocabulary: dict[str, int] | None = None

    @property
    def has_phenotype_links(self) -> bool:
        """True when built with ``--mim2gene-medgen`` (schema 2 and later)."""
        if "mim_phenotype" not in self._tables:
            return False
        return self._con.execute("SELECT 1 FROM mim_phenotype LIMIT 1").fetchone() is not None

    def info(self) -> dict[str, Any]:
        return read_build_record(self._con)

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

    def annotations(self, gene_id: int) -> dict[str, list[dict[str, str]]]:
        """What the gene does and its diseases (`retrievers.stores.gene_annotations`)."""
        return gene_annotations(self._con, int(gene_id), self._tables)

    def variants(self, rsid: str) -> list[dict[str, Any]]:
        """ClinVar's records of an rsID, newest release first (empty for a store built without them)."""
        return clinvar_lookup.by_rsid(self._con, rsid)

    def protein_variants(self, symbol: str, hgvs_p: str) -> list[dict[str, Any]]:
        """ClinVar's records of a gene's protein change ("BRAF", "p.Val600Glu"), newest release first."""
        return clinvar_lookup.by_protein(self._con, symbol, hgvs_p)

    def variant_releases(self) -> list[tuple[str, str]]:
        """(release, what it covers) of the ClinVar releases the store holds, newest first."""
        return clinvar_lookup.releases(self._con)

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
        if m and (chosen := hgnc_ensembl_choice(self._con, key, set(found))) is not None:
            found = {chosen: found[chosen]}
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
            kind = name_kind(r["kind"], r["name"], r["symbol"])  # gene_info's symbol HGNC has renamed since
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

    def find_diseases(self, text: str, limit: int = 20, forms: bool = False) -> list[dict[str, Any]]:
        """Diseases/phenotypes whose name (or a synonym) is `text`, matched on the normalised
        key of `biorag.knowledge.names.disease_key` (case, punctuation, hyphen, possessive and Roman
        numeral variants; "A, B" catalogue order too). Exact-name match only: a span, not a
        sentence.

        Each hit: ``disease_id`` ("OMIM:186580", "ORPHA:…", "MONDO:…", "MedGen:…", "MESH:…"),
        ``name`` (display name), ``source`` (the dictionary whose name matched: "hpo",
        "clinvar" or "mesh"; several: the first of those), ``sources``, ``matched_name``,
        ``xrefs`` (other ids of the concept) and ``n_genes`` (genes linked offline). Ordered:
        diseases with genes first, then OMIM, ORPHA, MONDO, MedGen, MESH, then id.

        With `forms`, the catalogue forms of the name follow (``form``: "subtype" for its
        numbered subtypes, "head" for entries qualifying it after a comma, the latter only
        when no name matched whole; see `biorag.knowledge.names.catalogue_form`)."""
        if not self.has_diseases:
            return []
        keys = sorted(name_keys(text))  # "Diabetes mellitus, type 2" is asked both ways too
        if not keys:
            return []
        rows = [dict(r, form="name") for r in self._con.execute(
            "SELECT n.disease_id, n.name AS matched, n.source, d.name FROM disease_names n "
            "JOIN diseases d ON d.disease_id = n.disease_id "
            f"WHERE n.name_key IN ({','.join('?' * len(keys))})", keys).fetchall()]
        if forms:
            rows += [{"disease_id": did, "matched": m, "source": src, "name": name, "form": form}
                     for key in keys for m, did, src, name, form in catalogue_forms(self._con, key)
                     if form == "subtype" or not rows]
        if not any(self._disease_gene_ids(r["disease_id"]) for r in rows):
            rows += self._by_words(text)  # none found, or only a name with no gene (a MeSH heading)
        found: dict[str, dict[str, Any]] = {}
        for r in rows:
            hit = found.setdefault(r["disease_id"], {
                "disease_id": r["disease_id"], "name": r["name"], "source": r["source"],
                "sources": [], "matched_name": r["matched"], "form": r["form"], "match": r.get("match", "name")})
            if r["source"] not in hit["sources"]:
                hit["sources"].append(r["source"])
        for hit in found.values():
            hit["sources"].sort(key=_NAME_SOURCES.index)
            hit["source"] = hit["sources"][0]
            hit["xrefs"] = self._xrefs(hit["disease_id"])
            hit["n_genes"] = len(self._disease_gene_ids(hit["disease_id"]))
        ordered = sorted(found.values(), key=lambda h: (
            h["form"] != "name", h["n_genes"] == 0, _ID_ORDER.get(h["disease_id"].split(":", 1)[0], len(_ID_ORDER)),
            h["disease_id"]))
        return ordered[:limit]

    def _by_words(self, text: str) -> list[dict[str, Any]]:
        """The fallback when no name matches whole (schema 4 stores): names with the same
        words in any order (`biorag.knowledge.names.word_keys`; ``match`` "words"), else the same core
        words, qualifiers aside (``match`` "core"), keeping only names that state the same
        inheritance as the text (`biorag.knowledge.names.same_inheritance`); then both again with
        misspelt words corrected (`_respelled`; ``match`` "spelling"); then the core words
        with a final number 1 added or taken away (``match`` "series")."""
        if "disease_words" not in self._tables:
            return []
        words, core = word_keys(text)
        if not core:
            return []
        sql = ("SELECT w.disease_id, w.name AS matched, w.source, d.name FROM disease_words w "
               "JOIN diseases d ON d.disease_id = w.disease_id WHERE w.{}=?")
        for match, (w_key, c_key) in (("words", (words, core)), ("spelling", self._respelled(text))):
            if not c_key:
                continue
            rows = [dict(r, form="name", match=match) for r in self._con.execute(sql.format("words_key"), (w_key,))]
            if rows:
                return rows
            rows = [dict(r, form="name", match="core" if match == "words" else match)
                    for r in self._con.execute(sql.format("core_key"), (c_key,))]
            # the inheritance must agree: relaxed for a text stating none, these answers were
            # right 38/43 and 17/30 in benchmarks.disease_names
            rows = [r for r in rows if same_inheritance(text, r["matched"])]
            if rows:
                return rows
        # "Aniridia 1" = "Aniridia": the first of a series is often named without its number;
        # not a lettered subtype ("complementation group A" is no "group I"), and the
        # inheritance stated exactly alike ("omodysplasia 1" is not "autosomal dominant omodysplasia")
        last = disease_key(text).split()[-1:]
        series = core[:-2] if core.endswith(" 1") else core + " 1" if not any(c.isdigit() for c in core) else ""
        if series and not (last and len(last[0]) == 1 and last[0].isalpha()):
            return [dict(r, form="name", match="series") for r in self._con.execute(sql.format("core_key"), (series,))
                    if inheritance_words(text) == inheritance_words(r["matched"])]
        return []

    def _respelled(self, text: str) -> tuple[str, str]:
        """The word keys of `text` with each word of 5+ letters that no disease name uses
        replaced by the word of the names one edit away ("wooly" -> "woolly", "camptomelic"
        -> "campomelic"; the commonest when several); ("", "") when no word changed."""
        if self._vocabulary is None:
            counts: dict[str, int] = {}
            for (key,) in self._con.execute("SELECT words_key FROM disease_words UNION ALL "
                                            "SELECT name_key FROM disease_names"):  # renamed words and the originals
                for w in key.split():
                    counts[w] = counts.get(w, 0) + 1
            self._vocabulary = counts
        vocab = self._vocabulary
        words = disease_key(text).split()
        fixed: dict[str, str] = {}
        for w in set(words):
            if len(w) >= 5 and w.isalpha() and w not in vocab:
                near = [c for c in one_edit(w) if c in vocab]
                if near:
                    fixed[w] = max(near, key=lambda c: (vocab[c], c))
        if not fixed:
            return "", ""
        return word_keys(" ".join(fixed.get(w, w) for w in words))

    # ---- genes a disease name names ------------------------------------------------------

    def genes_named_in(self, text: str, limit: int = 5) -> list[dict[str, Any]]:
        """Human genes a disease name itself names, for names no dictionary holds: the
        gene's official symbol ("Combined immunodeficiency due to ZAP70 deficiency",
        "COG7-congenital disorder of glycosylation"; a symbol without digits only before
        "deficiency", "-related", "-associated" or "-CDG"), or its product's name beside
        "deficiency"/"defect" ("Glycine N-methyltransferase deficiency", "deficiency of
        acetyl-CoA acetyltransferase", "defect in MAPBP-interacting protein"), matched on
        the gene's full name and other designations (NCBI gene_info, HGNC). A product name
        that is only the head of several genes' names ("phosphofructokinase" of
        "phosphofructokinase, liver type", "... muscle", "... platelet") or their name
        without its number gives each of them. Each hit is a gene dict (`by_gene_id`) with
        ``named_as`` (the words of the text) and ``named_by`` ("symbol", "product name",
        "product family name"). In "X due to Y" only Y is read. More than `limit` genes for
        one phrase give nothing."""
        out: dict[int, dict[str, Any]] = {}

        def add(gene_ids: set[int], named_as: str, named_by: str) -> None:
            if 0 < len(gene_ids) <= limit:
                for gid in sorted(gene_ids):
                    if gid not in out and (g := self._gene(gid)) is not None:
                        out[gid] = {**g, "named_as": named_as, "named_by": named_by}

        cause = _CAUSE.split(text)[-1]  # "Sulfite oxidase deficiency due to molybdenum cofactor deficiency"
        for m in _SYMBOL_TOKEN.finditer(cause):
            token, after = m.group(0), cause[m.end():m.end() + 14].lower()
            parts = token.split("-")
            for i, cand in enumerate(dict.fromkeys((token, token.replace("-", ""), *parts))):
                # a part's cue is the rest of the token ("SHOX-related", "CCDC115-CDG")
                cue = after if i < 2 or cand == parts[-1] else "-" + token.split(cand + "-", 1)[-1].lower()
                if _ROMAN_TOKEN.match(cand):
                    continue
                if any(c.isdigit() for c in cand) or cue.startswith(_SYMBOL_CUES):
                    add(self._official_symbol(cand), cand, "symbol")
        words = disease_key(cause).split()
        exact, family = self._product_names()
        for spans in _product_spans(words):
            for n, span in enumerate(spans):  # the longest run of words that names something, per cue
                key = " ".join(span)
                if sum(c.isalpha() for c in key) < 3:
                    continue
                found = self._official_symbol(key, any_case=True) if len(span) == 1 else set()
                if found:
                    add(found, key, "symbol")
                    break
                # a family name only for the whole run: "transaminase" alone of "tyrosine
                # transaminase" names no family member in particular
                fam = family.get(key, set()) if n == 0 else set()
                if key in exact or fam:
                    add(exact.get(key, set()), key, "product name")
                    add(fam - exact.get(key, set()), key, "product family name")
                    break
        return list(out.values())

    def _official_symbol(self, token: str, any_case: bool = False) -> set[int]:
        """The human gene whose current official symbol `token` is (exact case unless
        `any_case`: "Masp2" before "deficiency")."""
        rows = self._con.execute(
            "SELECT g.gene_id, g.symbol FROM names n JOIN genes g ON g.gene_id = n.gene_id "
            "WHERE n.name_lc=? AND n.kind='symbol' AND g.tax_id=9606", (token.lower(),))
        return {gid for gid, sym in rows if sym == token or (any_case and sym.lower() == token.lower())}

    def _product_names(self) -> tuple[dict[str, set[int]], dict[str, set[int]]]:
        """(name key -> genes, family key -> genes) of human genes' full names and other
        designations; a family key is a name's head before its first comma, or the name
        without a final number or letter ("acyl-CoA oxidase 1" -> "acyl coa oxidase").
        Built once per store, at the first use."""
        if self._products is None:
            exact: dict[str, set[int]] = {}
            family: dict[str, set[int]] = {}
            for gid, _symbol, texts in gene_designations(self._con, "tax_id=9606 AND gene_type='protein-coding'"):
                for text in set(texts):
                    key = disease_key(text)
                    if len(key) < 6 or " " not in key and len(key) < 8:
                        continue  # "p14", "AOX": too short to be named by a disease
                    exact.setdefault(key, set()).add(gid)
                    head = disease_key(text.split(",")[0])
                    words = key.split()
                    bare = " ".join(words[:-1]) if len(words) > 1 and (words[-1].isdigit() or len(words[-1]) == 1) else ""
                    for k in {head, bare} - {key, ""}:
                        family.setdefault(k, set()).add(gid)
            self._products = (exact, family)
        return self._products

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
        "associated"/"related", NCBI comments such as "question"). Ordered by how strongly
        the catalogues link each gene to the disease (`biorag.knowledge.disease_gene_order`: causal
        links first, then by subtype number, then by how many entries of the disease's
        name link the gene, then by symbol).

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
        if len(out) < 2:
            return out
        name = self._con.execute("SELECT name FROM diseases WHERE disease_id=?", (did,)).fetchone()
        entries = self._gene_entries([g["gene_id"] for g in out])
        ids = sorted({did for rows in entries.values() for did, _, _ in rows})
        sizes = dict(r for i in range(0, len(ids), 500) for r in self._con.execute(
            "SELECT disease_id, COUNT(DISTINCT gene_id) FROM disease_genes "
            f"WHERE disease_id IN ({','.join('?' * len(ids[i:i + 500]))}) GROUP BY disease_id", ids[i:i + 500]))
        label_by_subtypes(name[0] if name else "", out, entries)
        return order_genes(name[0] if name else "", out, entries, sizes)

    def _gene_entries(self, gene_ids: list[int]) -> dict[int, list[tuple[str, str, list[tuple[str, str | None]]]]]:
        """gene id -> (disease id, name, [(source, note)]) of every entry linking the gene."""
        rows = [r for i in range(0, len(gene_ids), 500) for r in self._con.execute(
            "SELECT g.gene_id, g.disease_id, d.name, g.source, g.note FROM disease_genes g "
            "JOIN diseases d ON d.disease_id = g.disease_id "
            f"WHERE g.gene_id IN ({','.join('?' * len(gene_ids[i:i + 500]))})", gene_ids[i:i + 500])]
        by: dict[tuple[int, str], tuple[str, list[tuple[str, str | None]]]] = {}
        for gid, did, name, source, note in rows:
            by.setdefault((gid, did), (name, []))[1].append((source, note))
        out: dict[int, list[tuple[str, str, list[tuple[str, str | None]]]]] = {}
        for (gid, did), (name, links) in by.items():
            out.setdefault(gid, []).append((did, name, links))
        return out

    def _by_location(self, band: str, limit: int) -> list[tuple[dict[str, Any], str]]:
        rows = self._con.execute(
            "SELECT gene_id FROM genes WHERE map_location=? OR map_location LIKE ? "
            "ORDER BY (gene_type != 'protein-coding'), symbol LIMIT ?",
            (band, band + ".%", limit),
        ).fetchall()
        return [(g, "location") for r in rows if (g := self._gene(r[0])) is not None]

    def close(self) -> None:
        self._con.close()


#: a token that may be a gene symbol as written in a disease name ("ZAP70", "MASP-2", "COG7")
_SYMBOL_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z0-9]*(?:-?[A-Z0-9]+)*(?![A-Za-z0-9])")
#: "X due to Y": the genes of the disease are Y's
_CAUSE = re.compile(r"\b(?:due to|caused by)\b", re.I)
_ROMAN_TOKEN = re.compile(r"^[IVX]+[A-H]?$")
#: what follows a symbol without digits that a disease name names ("SHOX-related")
_SYMBOL_CUES = (" deficiency", "-related", " related", "-associated", " associated", "-cdg", "-congenital")
#: words next to a product name in a disease name, and the words that end the name's span
_DEFICIENCY = frozenset({"deficiency", "defect", "deficient"})
_SPAN_STOP = frozenset({"due", "to", "of", "in", "with", "and", "or", "by", "caused", "the", "a", "an",
                        "associated", "related", "type", "combined", "partial", "complete", "isolated"})


def _product_spans(words: list[str]) -> list[list[list[str]]]:
    """For each deficiency word, the runs of words that may name a product, longest first:
    the words before it back to a stop word ("... due to phosphofructokinase deficiency"),
    and after it past "of"/"in" up to one ("deficiency of acetyl coa acetyltransferase")."""
    groups: list[list[list[str]]] = []
    for i, w in enumerate(words):
        if w not in _DEFICIENCY:
            continue
        j = i
        while j > 0 and words[j - 1] not in _SPAN_STOP and words[j - 1] not in _DEFICIENCY:
            j -= 1
        groups.append([words[k:i] for k in range(j, i)])
        if i + 1 < len(words) and words[i + 1] in ("of", "in"):
            k = i + 2
            while k < len(words) and words[k] not in _SPAN_STOP and words[k] not in _DEFICIENCY:
                k += 1
            groups.append([words[i + 2:e] for e in range(k, i + 2, -1)])
    return [g for g in groups if g]


def catalogue_forms(con: sqlite3.Connection, key: str, limit: int = 200) -> list[tuple[str, str, str, str, str]]:
    """(matched name, disease id, source, display name, form) of the store's disease names
    that are catalogue forms of the family name with key `key` (`biorag.knowledge.names.catalogue_form`:
    "head" or "subtype"): index range scans over the names starting with the key or with
    its inverted forms (`biorag.knowledge.names.inverted_keys`)."""
    rows = [r for prefix in [key, *inverted_keys(key)] for r in con.execute(
        "SELECT n.name, n.disease_id, n.source, d.name FROM disease_names n "
        "JOIN diseases d ON d.disease_id = n.disease_id "
        "WHERE n.name_key >= ? AND n.name_key < ? LIMIT ?", (prefix + " ", prefix + "!", limit)).fetchall()]
    return [(m, str(did), str(src), name, form) for m, did, src, name in rows
            if (form := catalogue_form(key, m))]
