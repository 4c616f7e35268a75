"""Entity-linking dictionaries over the local gene store (the `biorag.contracts.sources.Lexicon`
protocol the core's question understanding reads).

Gene names: every name the store holds for a gene of the preferred organism (human by
default): official symbols, aliases, previous symbols, Ensembl and HGNC IDs, locus tags
and the clone-based names (RP11-..., CTD-..., AC...) that gene_info and HGNC list. One
indexed ``IN`` query per question. Disease and phenotype names: the store's disease
dictionary (ClinVar, HPO, MeSH names and synonyms, matched on `biorag.knowledge.names.disease_key`,
as `GeneStore.find_diseases` matches them) in one more query, when the store has one;
otherwise none (patterns take over). British spellings of both are looked up in their
American form too (`biorag.knowledge.names.american_spelling`: "haemochromatosis", "tumour").

Full gene names (``kinds`` ("gene_name",)): a gene named by its name written out ("the
myoglobin gene", "fat mass and obesity associated"): the HGNC name of every human gene with
an HGNC record ("full_name"), gene_info's other designations ("designation") and the part of
a name or designation before its first comma ("designation head": "FAST kinase
domain-containing protein 5, mitochondrial"),
matched case-, hyphen- and punctuation-free. Loaded into memory at the first such look-up
(about 130,000 names, about a second; understanding asks only when a question names no gene
by its symbol or an ID).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path

from biorag.contracts.sources import NAME_STRENGTH, EntityKind, LexiconHit
from biorag.knowledge.names import (
    american_spelling,
    deletions,
    disease_key,
    one_edit,
    roman_value,
    transpositions,
)
from biorag.storage.sqlite_store import open_read_only
from biorag.understanding.question_words import english_words
from retrievers.stores import clinvar_lookup
from retrievers.stores.gene_store import (
    build_command_hint,
    catalogue_forms,
    gene_designations,
    hgnc_ensembl_choice,
)

_NON_WORD = re.compile(r"[^a-z0-9]+")
#: the last word of a disease name that says only that it is one ("sickle cell disease")
_GENERIC_HEADS = frozenset({"disease", "disorder"})
_DIGITS = "0123456789"


def _symbol_edits(word: str) -> set[str]:
    """`biorag.knowledge.names.one_edit`, with digits changed and added too (BRCA3 -> BRCA1)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (one_edit(word) | {a + c + b[1:] for a, b in splits if b for c in _DIGITS}
            | {a + c + b for a, b in splits for c in _DIGITS})


def gene_name_key(text: str) -> str:
    """The matching key of a gene's written-out name: lower case, words of letters and
    digits only ("BRCA1/BRCA2-containing complex, subunit 2" -> "brca1 brca2 containing
    complex subunit 2")."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


#: the store's kinds of name -> what linking calls them
_HOW = {"symbol": "symbol", "previous": "previous", "alias": "alias", "ensembl": "ensembl",
        "hgnc": "hgnc", "locus_tag": "alias", "gene_id": "gene_id"}


class StoreLexicon:
    def __init__(self, path: Path, prefer_taxid: int | None = 9606):
        self.path = Path(path)
        self._con = open_read_only(self.path, "gene", build_command_hint(self.path))
        self._lock = threading.Lock()  # one connection, shared by the server's threads
        self.prefer_taxid = prefer_taxid
        tables = {r[0] for r in self._con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        self.has_diseases = {"disease_names", "diseases"} <= tables
        self._names: dict[str, tuple[tuple[int, str, str], ...]] | None = None  # key -> (id, symbol, how)
        self._first_words: set[str] = set()  # the first words of those keys
        #: a one-letter deletion of a word of 5 letters or more in a disease name -> those words
        self._disease_words: dict[str, frozenset[str]] | None = None
        #: the words of 4 letters in disease names
        self._short_disease_words: frozenset[str] = frozenset()

    def lookup_spans(self, spans: Sequence[str], kinds: Sequence[EntityKind | str]) -> list[LexiconHit]:
        hits: list[LexiconHit] = []
        if "gene" in kinds or "ensembl" in kinds:
            hits += self._genes(spans)
        if "gene_name" in kinds:
            hits += self._gene_names(spans)
        if ("disease" in kinds or "phenotype" in kinds) and self.has_diseases:
            hits += self._diseases(spans)
        if "variant" in kinds:
            hits += self._variants(spans)
        return hits

    def _variants(self, spans: Sequence[str]) -> list[LexiconHit]:
        """A gene's protein change held in ClinVar ("BRAF p.Val600Glu"): kind "rsid", its
        rsID as `ident` ("" when no release ties one to it), "GENE p.Xxx1Yyy" as `canonical`."""
        out = []
        for span in spans:
            word, _, hgvs_p = span.partition(" ")
            if not hgvs_p.startswith("p."):
                continue
            symbols = list(dict.fromkeys(h.canonical for h in self._genes([word]) if h.how in ("symbol", "previous", "alias")))
            for symbol in symbols[:2]:
                with self._lock:
                    rows = clinvar_lookup.by_protein(self._con, symbol, hgvs_p)
                if rows:
                    rsid = next((r["rsid"] for r in rows if r["rsid"]), "")
                    out.append(LexiconHit(span.lower(), "rsid", span, f"{symbol} {hgvs_p}", rsid, "protein change"))
                    break
        return out

    def _gene_names(self, spans: Sequence[str]) -> list[LexiconHit]:
        names = self._load_names()
        out = []
        for span in spans:
            # the first word of the key, not of the span: "fibrillin-1" is keyed "fibrillin 1"
            key = gene_name_key(span)
            first = key.split(" ", 1)[0]
            if first not in self._first_words and american_spelling(first) not in self._first_words:
                continue  # no name starts with this word: most phrases of a question
            for k in dict.fromkeys([key, american_spelling(key)]):
                for gene_id, symbol, how in names.get(k, ()):
                    out.append(LexiconHit(span.lower(), "gene", span, symbol, str(gene_id), how))
                if k in names:
                    break
        return out

    def _load_names(self) -> dict[str, tuple[tuple[int, str, str], ...]]:
        with self._lock:
            if self._names is None:
                taxon = "" if self.prefer_taxid is None else f" AND tax_id = {int(self.prefer_taxid)}"
                best: dict[str, dict[int, tuple[str, str]]] = {}

                def add(text: str, gene_id: int, symbol: str, how: str) -> None:
                    key = gene_name_key(text)
                    if key:
                        old = best.setdefault(key, {}).get(gene_id)
                        if old is None or NAME_STRENGTH[how] < NAME_STRENGTH[old[1]]:
                            best[key][gene_id] = (symbol, how)

                for gene_id, symbol, texts in gene_designations(self._con, f"hgnc_id IS NOT NULL{taxon}"):
                    for i, text in enumerate(texts):
                        how = "full_name" if i == 0 else "designation"
                        add(text, gene_id, symbol, how)
                        if "," in text:
                            add(text.split(",")[0], gene_id, symbol, "designation head")
                # tuples of strings and ints only: the garbage collector stops tracking them,
                # so 130,000 names add no pause to later collections
                self._names = {k: tuple((g, sym, how) for g, (sym, how) in genes.items()) for k, genes in best.items()}
                del best
                self._first_words = {k.split(" ", 1)[0] for k in self._names}
            return self._names

    def _diseases(self, spans: Sequence[str]) -> list[LexiconHit]:
        by_key: dict[str, list[str]] = {}
        american: set[str] = set()  # keys only looked up as the American spelling of a span
        for span in spans:
            if key := disease_key(span):
                by_key.setdefault(key, []).append(span)
                if (us := american_spelling(key)) != key:
                    by_key.setdefault(us, []).append(span)
                    american.add(us)
        if not by_key:
            return []
        with self._lock:
            rows = self._con.execute(
                "SELECT n.name_key, n.disease_id, n.source, d.name FROM disease_names n "
                "JOIN diseases d ON d.disease_id = n.disease_id "
                f"WHERE n.name_key IN ({','.join('?' * len(by_key))})", list(by_key)).fetchall()
        hits = [LexiconHit(span.lower(), "disease", name, name, str(did), str(source))
                for key, did, source, name in rows for span in by_key[key]]
        known = {key for key, *_ in rows}
        unknown = [k for k in by_key if k not in known and " " in k and k not in american]
        return (hits + self._disease_heads(unknown, by_key) + self._misspelt_diseases(unknown, by_key)
                + self._other_head(unknown, by_key))

    def _other_head(self, keys: list[str], by_key: dict[str, list[str]]) -> list[LexiconHit]:
        """"<stem> disease" (or disorder) that no name matches, where the names of the form
        "<stem> <one word>" that link genes all name one disease ("sickle cell disease":
        "Sickle cell anemia", whatever catalogue lists it). Stems of two words or more only."""
        out: list[LexiconHit] = []
        for key in keys:
            words = key.split()
            if len(words) < 3 or words[-1] not in _GENERIC_HEADS:
                continue
            stem = " ".join(words[:-1])
            with self._lock:
                rows = self._con.execute(
                    "SELECT n.name_key, n.disease_id, n.source, d.name FROM disease_names n "
                    "JOIN diseases d ON d.disease_id = n.disease_id WHERE n.name_key LIKE ? AND n.name_key NOT LIKE ? "
                    "AND EXISTS (SELECT 1 FROM disease_genes g WHERE g.disease_id = n.disease_id)",
                    (stem + " %", stem + " % %")).fetchall()
            if rows and len({name.lower() for _k, _d, _s, name in rows}) == 1:
                out += [LexiconHit(span.lower(), "disease", name, name, str(did), f"{source} other head")
                        for _k, did, source, name in rows for span in by_key[key]]
        return out

    def _misspelt_diseases(self, keys: list[str], by_key: dict[str, list[str]]) -> list[LexiconHit]:
        """A name of two words or more with one misspelt word ("hereditary hemochromatossis",
        "sliver-russell syndrome", "split-hnad/foot malformation"): a word of 5 letters or
        more that no disease name holds, read as each word of the names it is one edit away
        from, or a word of 4 letters that no name holds, read as each word of the names it is
        one swap of neighbouring letters away from; the name is the one correction that
        matches a name whole (none when several do). A misspelling that some catalogue name
        also holds ("marfan syndrom": one name is written with "syndrom") is read so too when
        it is no English word."""
        vocabulary = self._disease_vocabulary()
        short_words = self._short_disease_words
        fixed: dict[str, set[str]] = {}  # a corrected key -> the keys it corrects
        for key in keys:
            words = key.split()
            long = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
            # a word of the names is listed under itself
            odd = [i for i in long if words[i] not in vocabulary.get(words[i], ())]
            # a word of 4 letters is read only with two neighbouring letters swapped
            # ("split hnad foot"): a letter changed, added or left out makes another word
            # too often ("hand", "band", "land")
            odd += [i for i, w in enumerate(words) if len(w) == 4 and w.isalpha() and w not in short_words
                    and roman_value(w, suffix=True) is None]  # "viia" after a misspelt "tyep"
            if len(odd) > 1:
                continue
            for i in odd or [i for i in long if words[i] not in english_words()]:
                w = words[i]
                near = (transpositions(w) & short_words if len(w) == 4 else
                        set().union(*(vocabulary.get(v, frozenset()) for v in {w} | deletions(w))))
                for n in near:
                    if n != w and (len(n) == len(w) or w in deletions(n) or n in deletions(w)
                                   or deletions(n) & deletions(w)):
                        # keyed again: a numeral after the corrected word reads as one ("tpye i")
                        fixed.setdefault(disease_key(" ".join([*words[:i], n, *words[i + 1:]])), set()).add(key)
        if not fixed:
            return []
        with self._lock:
            rows = self._con.execute(
                "SELECT n.name_key, n.disease_id, n.source, d.name FROM disease_names n "
                "JOIN diseases d ON d.disease_id = n.disease_id "
                f"WHERE n.name_key IN ({','.join('?' * len(fixed))})", list(fixed)).fetchall()
        corrections: dict[str, set[str]] = {}
        for name_key, *_ in rows:
            for key in fixed[name_key]:
                corrections.setdefault(key, set()).add(name_key)
        return [LexiconHit(span.lower(), "disease", name, name, str(did), f"{source} misspelt")
                for name_key, did, source, name in rows for key in fixed[name_key]
                if len(corrections[key]) == 1 for span in by_key[key]]

    def _disease_vocabulary(self) -> dict[str, frozenset[str]]:
        """The words of 5 letters or more of the disease names, under themselves and each of
        their one-letter deletions, and apart, those of 4 letters (loaded at the first
        misspelling looked up)."""
        with self._lock:
            if self._disease_words is None:
                words = {w for (key,) in self._con.execute("SELECT DISTINCT name_key FROM disease_names")
                         for w in key.split() if len(w) >= 4 and w.isalpha()}
                index: dict[str, set[str]] = {}
                for w in words:
                    for v in ({w} | deletions(w) if len(w) >= 5 else ()):
                        index.setdefault(v, set()).add(w)
                self._short_disease_words = frozenset(w for w in words if len(w) == 4)
                self._disease_words = {k: frozenset(v) for k, v in index.items()}
            return self._disease_words

    def _disease_heads(self, keys: list[str], by_key: dict[str, list[str]]) -> list[LexiconHit]:
        """Catalogue names whose head is the span: "Bile acid malabsorption, primary, 1" is
        a form of "bile acid malabsorption" (the part before the catalogue's first comma).
        Only for spans of two words or more that no name matches whole."""
        out: list[LexiconHit] = []
        with self._lock:
            for key in keys:
                out += [LexiconHit(span.lower(), "disease", name, name, str(did), f"{source} head")
                        for matched, did, source, name, form in catalogue_forms(self._con, key)
                        if form == "head" for span in by_key[key]]
        return out


    def _genes(self, spans: Sequence[str]) -> list[LexiconHit]:
        keys = list(dict.fromkeys(s.lower().split(".")[0] if s.lower().startswith("ens") else s.lower()
                                  for s in spans if s))
        if not keys:
            return []
        taxon = "" if self.prefer_taxid is None else " AND g.tax_id = ?"
        sql = (f"SELECT n.name_lc, n.name, n.kind, g.gene_id, g.symbol FROM names n "
               f"JOIN genes g ON g.gene_id = n.gene_id WHERE n.name_lc IN ({','.join('?' * len(keys))}){taxon}")
        params = [*keys, *([] if self.prefer_taxid is None else [self.prefer_taxid])]
        with self._lock:
            rows = self._con.execute(sql, params).fetchall()
            rows = self._hgnc_ensembl(rows)
        out = []
        for name_lc, name, kind, gene_id, symbol in rows:
            how = _HOW.get(kind, "alias")
            if how == "symbol" and name != symbol:
                how = "previous"  # gene_info's older symbol for a gene HGNC has since renamed
            out.append(LexiconHit(name_lc, "ensembl" if kind == "ensembl" else "gene", name, symbol,
                                  str(gene_id), how))
        return out

    def _hgnc_ensembl(self, rows: list[tuple]) -> list[tuple]:
        """The rows without the gene_info records that share an Ensembl id with the one gene
        HGNC maps it to (a gene and its readthrough): the authority decides."""
        shared: dict[str, set[int]] = {}
        for name_lc, _name, kind, gene_id, _symbol in rows:
            if kind == "ensembl":
                shared.setdefault(name_lc, set()).add(gene_id)
        chosen = {k: c for k, ids in shared.items() if (c := hgnc_ensembl_choice(self._con, k, ids)) is not None}
        return [r for r in rows if not (r[2] == "ensembl" and r[0] in chosen and r[3] != chosen[r[0]])]

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """Official symbols of the preferred organism one edit (a letter left out, added,
        changed, or two swapped) from `name`, case ignored: the "did you mean" of a name
        no dictionary holds."""
        edits = sorted(_symbol_edits(name.lower()) - {name.lower()})
        taxon = "" if self.prefer_taxid is None else " AND g.tax_id = ?"
        found: set[str] = set()
        with self._lock:
            for i in range(0, len(edits), 500):
                chunk = edits[i:i + 500]
                found |= {r[0] for r in self._con.execute(
                    f"SELECT g.symbol FROM names n JOIN genes g ON g.gene_id = n.gene_id "
                    f"WHERE n.name_lc IN ({','.join('?' * len(chunk))}) AND n.kind = 'symbol'{taxon}",
                    [*chunk, *([] if self.prefer_taxid is None else [self.prefer_taxid])])}
        return sorted(found)[:limit]

    def close(self) -> None:
        self._con.close()
