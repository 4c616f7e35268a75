"""Gene-set interpretation: what do these genes do together?

Steps (`GeneSetInterpreter.interpret`):

1. **Validate** the genes against the local gene store: today's symbol replaces an old one
   (previous symbol or alias of exactly one human gene); unknown and ambiguous symbols are
   reported and left out. Without a gene store the symbols are checked against the
   libraries' genes only, and the report says so.
2. **Enrich**: hypergeometric test with Benjamini-Hochberg correction
   (biorag/knowledge/enrichment.py) against each term library, the library's genes as universe:
   GO Biological Process, Reactome and HGNC gene groups (bundled), HPO terms (the HPO store), MeSH
   descriptors of the indexed abstracts that name the genes (counts precomputed at index
   build, biorag/storage/gene_mentions.py). A library can be excluded (the GO benchmark is scored
   without GO BP).
3. **Name**: on the embedded preset, an enriched term: the consensus of the top GO BP and
   Reactome terms (the one whose name the others agree with most,
   `biorag.knowledge.enrichment.consensus_term`), else the best of HPO, then MeSH; with a large model, the model names the
   process from the enriched terms and the genes' names, and states claims.
4. **Verify** every claim, GeneAgent-style, against the libraries: "the set is enriched in
   T" needs T among the enriched terms (adjusted p <= alpha); "G takes part in T" needs G in
   T's genes. Supported claims cite the term id with overlap and adjusted p, the Gene ID, or
   PMIDs; unsupported ones are removed and listed with the reason. A model's name that no
   supported term backs is replaced by the best enriched term.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from biorag.contracts.errors import (
    InputError,
    NoRecord,
    QueryRejected,
    SourceUnavailable,
    StructuredOutputError,
)
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.knowledge.enrichment import (
    Enriched,
    broader_cover,
    consensus_term,
    covering_term,
    enrich,
)
from biorag.knowledge.gene_sets import (
    BUNDLED,
    LIBRARY_LABELS,
    LIBRARY_NAMES,
    MAX_TERM_SIZE,
    MIN_TERM_SIZE,
    SYMBOL_LIBRARIES,
    Library,
    QueryLibrary,
    ancestors,
    bundled_library,
    term_parents,
    term_url,
)
from biorag.knowledge.phenotype_names import name_words
from biorag.knowledge.set_rule import SetRule
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import Gene, SearchRequest
from retrievers.geneset.fields import GENESET_FIELDS, MEMBER_GENES, read_geneset_field
from retrievers.geneset.members import member_records
from retrievers.geneset.record import EnrichedTermRecord

if TYPE_CHECKING:
    from biorag.settings import Settings
    from biorag.storage.gene_mentions import GeneMeshCounts
    from retrievers.stores.gene_store import GeneStore
    from retrievers.stores.hpo_store import HpoStore

SOURCE = "geneset"
#: naming prefers process-like libraries; within one, the lowest adjusted p
LIBRARY_ORDER = LIBRARY_NAMES
MANUAL = (
    "Gene-set interpretation (local): given several genes (at least 2), finds the biological "
    "process, pathway or phenotype they share by enrichment against GO Biological Process, "
    "Reactome, HPO and the MeSH terms of abstracts naming them, and names it with verified "
    "claims. Use for: what do these genes do together, the enriched term of a gene list. "
    "Query: the gene symbols. Also lists the genes of a pathway, process or gene group named as "
    "GO BP, Reactome or HGNC name it (query: the name, e.g. Wnt signaling pathway)."
)
_SPLIT = re.compile(r"[\s,;]+")
#: a name `parse_gene_list` keeps: a token with a character it does not strip
_NAME = r"[^\s,;]*[^\s,;\"'()\[\]][^\s,;]*"
#: JSON Schema pattern of a gene list as one string: at least two names (that they are
#: distinct known human genes, at most `geneset.max_genes`, no schema can say)
TWO_NAMES = _NAME + r"[\s,;]+" + _NAME
#: ... and of one item of a gene list given as a list: a name
ONE_NAME = _NAME
_SYMBOL_TOKEN = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9](?![\w-])|(?<![\w-])[A-Z](?![\w-])")
_STOP = {"and", "or", "the", "of", "genes", "gene", "these", "what", "which", "do", "does", "share", "is",
         "are", "together", "a", "an", "in", "for", "process", "pathway", "term", "go", "enriched", "set"}


# ---- input ---------------------------------------------------------------------------------


@dataclass
class GeneCheck:
    listed: str
    symbol: str | None
    gene_id: int | None
    status: Literal["ok", "renamed", "unknown", "ambiguous"]
    candidates: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"listed": self.listed, "symbol": self.symbol, "gene_id": self.gene_id,
                "status": self.status, "candidates": self.candidates}


def parse_gene_list(genes: list[str] | str) -> list[str]:
    """Symbols from a list or a pasted string (spaces, commas, semicolons), first-seen order."""
    items = _SPLIT.split(genes) if isinstance(genes, str) else [t for g in genes for t in _SPLIT.split(g)]
    seen: dict[str, None] = {}
    for t in items:
        t = t.strip().strip("\"'()[]")
        if t and t.upper() not in {s.upper() for s in seen}:
            seen[t] = None
    return list(seen)


def validate_genes(symbols: list[str], store: GeneStore | None, known: frozenset[str]) -> list[GeneCheck]:
    out = []
    for sym in symbols:
        if store is None:
            hit = sym if sym in known else next((k for k in (sym.upper(),) if k in known), None)
            out.append(GeneCheck(sym, hit, None, "ok" if hit else "unknown"))
            continue
        m = store.current_symbol(sym)
        if m.symbol is None:
            out.append(GeneCheck(sym, None, None, "ambiguous" if m.basis == "ambiguous" else "unknown", m.candidates))
        else:
            status = "renamed" if m.symbol != sym else "ok"
            out.append(GeneCheck(sym, m.symbol, m.gene_id, status, m.candidates))
    return out


# ---- claims ----------------------------------------------------------------------------------


class Claim(BaseModel):
    """One statement about the set, to be checked against the libraries."""

    kind: Literal["enriched", "member"] = Field(description="enriched: the set is enriched in the term; member: the gene takes part in it")
    term: str = Field(description="term id (GO:..., R-HSA-..., HGNC group ..., HP:..., MeSH D...) or its exact name")
    gene: str | None = Field(None, description="for member claims: the gene symbol")

    def text(self, term_name: str | None = None) -> str:
        label = f"{term_name} ({self.term})" if term_name and term_name != self.term else self.term
        return f"{self.gene} takes part in {label}" if self.kind == "member" else f"the set is enriched in {label}"


class ModelNaming(BaseModel):
    """What the large model is asked for."""

    name: str = Field(description="a short name for the biological process the genes share")
    claims: list[Claim] = Field(default_factory=list, max_length=12)


@dataclass
class CheckedClaim:
    text: str
    kind: str
    supported: bool
    evidence: list[str] = field(default_factory=list)  # citations: term id + stats, Gene ID, PMID
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        d = {"text": self.text, "kind": self.kind, "evidence": self.evidence}
        if not self.supported:
            d["reason"] = self.reason
        return d


# ---- the report ------------------------------------------------------------------------------


@dataclass
class GeneSetReport:
    genes: list[GeneCheck]
    enriched: dict[str, list[Enriched]]
    notes: list[str]
    universes: dict[str, int]
    name: str | None = None
    name_source: str = "term"
    name_term: Enriched | None = None
    #: what a question naming GO or Reactome is answered with (`GeneSetInterpreter.go_term`,
    #: `.pathway_term`): the CLI shows them, so `ask` and `geneset` name a set alike
    go_term: Enriched | None = None
    pathway_term: Enriched | None = None
    #: why each of those does not answer the set ('' when it does: `SetRule`), as `ask` refuses it
    go_why_not: str = ""
    pathway_why_not: str = ""
    significant: bool = False
    #: why the naming term does not answer what the set shares ('' when it does: `SetRule`)
    why_not: str = ""
    claims: list[CheckedClaim] = field(default_factory=list)
    unsupported: list[CheckedClaim] = field(default_factory=list)
    hpo_notice: str | None = None
    ms: float = 0.0

    @property
    def used(self) -> list[str]:
        return [g.symbol for g in self.genes if g.symbol]

    def top_terms(self, n: int = 10) -> list[Enriched]:
        allterms = [e for lib in LIBRARY_ORDER for e in self.enriched.get(lib, [])]
        return sorted(allterms, key=lambda e: (e.p_adj, e.p))[:n]

    def summary_line(self) -> str:
        if self.name_term is None and not self.name:
            return "No term shares two or more of these genes in the libraries searched."
        t = self.name_term
        if not self.significant:
            return (f"No term answers what these genes share: the closest, {t.name} ({t.term}, "
                    f"{t.k}/{len(self.used)} genes, adjusted p {t.p_adj:.2g}), {self.why_not}.")
        stats = f"{t.term}, {LIBRARY_LABELS[t.library]}, {t.k}/{t.n} genes, adjusted p {t.p_adj:.2g}" if t else ""
        return f"{self.name} ({stats})" if stats else str(self.name)

    def as_dict(self) -> dict[str, Any]:
        return {
            "answer": self.summary_line(),
            "name": self.name,
            "name_source": self.name_source,
            "significant": self.significant,
            "why_not": self.why_not,
            "name_term": self.name_term.as_dict() if self.name_term else None,
            "go_term": {**self.go_term.as_dict(), "why_not": self.go_why_not} if self.go_term else None,
            "pathway_term": ({**self.pathway_term.as_dict(), "why_not": self.pathway_why_not}
                             if self.pathway_term else None),
            "genes": {
                "used": [g.as_dict() for g in self.genes if g.symbol],
                "renamed": [g.as_dict() for g in self.genes if g.status == "renamed"],
                "unknown": [g.listed for g in self.genes if g.status == "unknown"],
                "ambiguous": [g.as_dict() for g in self.genes if g.status == "ambiguous"],
            },
            "enriched": {lib: [e.as_dict() for e in terms[:10]] for lib, terms in self.enriched.items()},
            "universes": self.universes,
            "claims": [c.as_dict() for c in self.claims],
            "unsupported_claims": [c.as_dict() for c in self.unsupported],
            "notes": self.notes,
            "hpo_notice": self.hpo_notice,
            "ms": round(self.ms, 1),
        }


# ---- the interpreter --------------------------------------------------------------------------


class GeneSetInterpreter:
    """Validates, enriches, names and verifies. Stores are optional: what is missing is a note."""

    def __init__(self, settings: Settings, gene_store: GeneStore | None = None, hpo: HpoStore | None = None,
                 mesh: GeneMeshCounts | None = None, libraries: list[str] | None = None, llm=None):
        self.settings = settings
        self.cfg = settings.geneset
        self.gene_store = gene_store
        self.hpo = hpo
        self.mesh = mesh
        self.libraries = list(libraries if libraries is not None else self.cfg.libraries)
        self.llm = llm
        self.rule = SetRule(self.cfg.min_genes, self.cfg.min_share, self.cfg.answer_alpha,
                            self.cfg.min_share_at_min_genes)

    @classmethod
    def from_settings(cls, settings: Settings, exclude: list[str] | None = None) -> GeneSetInterpreter:
        from biorag.storage.gene_mentions import GeneMeshCounts
        from retrievers.stores.gene_store import GeneStore, gene_store_path
        from retrievers.stores.hpo_store import HpoStore, hpo_store_path

        libs = [lib for lib in settings.geneset.libraries if lib not in (exclude or [])]
        gene_store = hpo = None
        try:
            gene_store = GeneStore(gene_store_path(settings))
        except SourceUnavailable:
            pass
        if "hpo" in libs:
            try:
                hpo = HpoStore(hpo_store_path(settings))
            except SourceUnavailable:
                pass
        mesh = GeneMeshCounts.open(settings) if "mesh" in libs else None
        return cls(settings, gene_store, hpo, mesh, libs)

    def close(self) -> None:
        for s in (self.gene_store, self.hpo, self.mesh):
            if s is not None:
                s.close()

    # ---- steps ---------------------------------------------------------------------------
    def _bundled(self) -> dict[str, Library]:
        return {name: self._library(name) for name in BUNDLED if name in self.libraries}

    def _library(self, name: str) -> Library:
        return bundled_library(name, Path(self.settings.data_dir) / "cache" / "genesets")

    def _known_symbols(self) -> frozenset[str]:
        return frozenset().union(*(self._library(n).universe for n in SYMBOL_LIBRARIES))

    def _hpo_library(self, checks: list[GeneCheck]) -> QueryLibrary:
        by_id = {g.gene_id: g.symbol for g in checks if g.gene_id is not None}
        hits_by_id = self.hpo.terms_of_genes(list(by_id))
        sizes = {t: v for t, v in self.hpo.term_sizes(list(hits_by_id)).items()
                 if MIN_TERM_SIZE <= v[1] <= MAX_TERM_SIZE}
        universe_ids = self.hpo.gene_universe()
        return QueryLibrary(
            "hpo", {t: v[0] for t, v in sizes.items()}, {t: v[1] for t, v in sizes.items()},
            {t: {by_id[i] for i in ids} for t, ids in hits_by_id.items() if t in sizes},
            # the universe in symbols: the query genes the store knows stand for themselves;
            # the others only need to be counted
            frozenset({by_id[i] for i in by_id if i in universe_ids}
                      | {f"#{i}" for i in universe_ids if i not in by_id}),
        )

    def interpret(self, genes: list[str] | str | list[Gene]) -> GeneSetReport:
        """The report for `genes`: symbols to check against the gene store (a list, or a
        pasted string), or genes entity linking resolved already (taken as they are)."""
        t0 = time.perf_counter()
        resolved = [g for g in genes if isinstance(g, Gene)] if isinstance(genes, list) else []
        listed = sorted({g.symbol for g in resolved}) if resolved else parse_gene_list(genes)
        if len(listed) < 2:
            raise InputError("give at least 2 genes (symbols separated by spaces or commas), e.g. `biorag geneset TP53 MDM2 CDKN1A`")
        if len(listed) > self.cfg.max_genes:
            raise InputError(f"{len(listed)} genes is more than geneset.max_genes={self.cfg.max_genes}; split the set")
        notes: list[str] = []
        if self.gene_store is None:
            notes.append("no gene store: symbols were checked against the GO BP and Reactome genes only, "
                         "without renaming (build it with `biorag data gene-store build`)")
        checks = ([GeneCheck(g.symbol, g.symbol, int(g.gene_id) if g.gene_id.isdigit() else None, "ok")
                   for g in sorted({g.symbol: g for g in resolved}.values(), key=lambda g: g.symbol)] if resolved
                  else validate_genes(listed, self.gene_store, self._known_symbols()))
        used = {g.symbol for g in checks if g.symbol}
        if len(used) < 2:
            bad = ", ".join(g.listed for g in checks if not g.symbol)
            raise InputError(f"fewer than 2 of the genes are known human genes (not recognised: {bad})")
        enriched: dict[str, list[Enriched]] = {}
        universes: dict[str, int] = {}
        libraries: dict[str, Library | QueryLibrary] = dict(self._bundled())
        if "hpo" in self.libraries:
            if self.hpo is None:
                notes.append("HPO library skipped: no HPO store (build it with `biorag data hpo-store build`)")
            elif not any(g.gene_id for g in checks):
                notes.append("HPO library skipped: HPO links Gene IDs and no gene store gave them")
            else:
                libraries["hpo"] = self._hpo_library(checks)
        if "mesh" in self.libraries:
            if self.mesh is None:
                notes.append("MeSH library skipped: no gene-MeSH counts (they are written by `biorag index build`)")
            else:
                libraries["mesh"] = self.mesh.library(used)
        for name, lib in libraries.items():
            enriched[name] = enrich(used, lib)
            universes[name] = len(lib.universe)
        report = GeneSetReport(checks, enriched, notes, universes,
                               hpo_notice=self.hpo.notice if "hpo" in libraries else None)
        self._name(report, libraries)
        report.ms = (time.perf_counter() - t0) * 1000
        return report

    def _best_term(self, report: GeneSetReport, rule: SetRule | None = None) -> tuple[Enriched | None, str]:
        """The term that names the set and '' , or the closest term and why it does not
        answer the set (`SetRule`: enough of the asked genes, significantly). Among the
        terms that pass `rule`: the consensus of the top terms of the process libraries
        (`geneset.consensus_libraries`, `geneset.consensus_top_k`,
        `biorag.knowledge.enrichment.consensus_term`); with that off, or none of them passing, the
        first library's most significant term, or a broader one of its graph that covers
        more of the genes as significantly (`biorag.knowledge.enrichment.broader_cover`)."""
        rule = rule or self.rule
        asked = len(report.used)
        if self.cfg.consensus_top_k > 0:
            candidates = self._consensus_candidates(report, rule)
            if candidates:
                return consensus_term(candidates, self.cfg.consensus_power, self.cfg.consensus_cross_weight), ""
        for lib in LIBRARY_ORDER:
            if (term := self.library_term(report, lib, rule)) is not None:
                return term, ""
        closest = report.top_terms(1)
        return (closest[0], rule.why_not(closest[0], asked)) if closest else (None, "no term holds 2 of the genes")

    def library_term(self, report: GeneSetReport, library: str, rule: SetRule | None = None) -> Enriched | None:
        """The most significant term of `library` that passes `rule`, or a broader one of
        its graph covering more of the genes as significantly; None when none passes."""
        rule = rule or self.rule
        ok = [e for e in report.enriched.get(library, []) if rule.explains(e, len(report.used))]
        if not ok:
            return None
        return broader_cover(ok[0], ok, ancestors(ok[0].term, term_parents(library)), rule.alpha,
                             self.cfg.broader_strength)

    def go_term(self, report: GeneSetReport) -> Enriched | None:
        """The GO BP term a question naming GO is answered with: the first-ranked
        (`first_go_term`), or, when that holds under `geneset.go_cover_share` of the genes, the
        significant GO term holding most of them (`biorag.knowledge.enrichment.covering_term`)."""
        first = first_go_term(report)
        if first is None:
            return None
        parents = term_parents("go_bp")
        return covering_term(first, report.enriched.get("go_bp", []), len(report.used), self.cfg.go_cover_share,
                             self.rule.alpha, depth=lambda term: len(ancestors(term, parents)))

    def pathway_term(self, report: GeneSetReport) -> Enriched | None:
        """The Reactome pathway a question naming Reactome is answered with: its most
        significant pathway that explains the set, or a broader one covering more of the set
        as significantly ("Phosphorylation of Emi1" 4/5 -> a mitotic cell cycle pathway 5/5);
        none passing: its first-ranked one, a lead."""
        return self.library_term(report, "reactome") or first_go_term(report, "reactome")

    def _consensus_candidates(self, report: GeneSetReport, rule: SetRule) -> list[tuple[Enriched, float]]:
        """The `consensus_top_k` most significant terms of each process library that pass
        `rule`, weighted by their -log10 adjusted p over the library's best (libraries
        differ in size and so in how low their p-values go), most weighted first; ties
        keep LIBRARY_ORDER."""
        pooled = []
        asked = len(report.used)
        for rank, lib in enumerate(lib for lib in LIBRARY_ORDER if lib in self.cfg.consensus_libraries):
            ok = [e for e in report.enriched.get(lib, []) if rule.explains(e, asked)][:self.cfg.consensus_top_k]
            if ok:
                top = ok[0].strength
                pooled += [(e, e.strength / top if top > 0 else 1.0, rank) for e in ok]
        pooled.sort(key=lambda c: (-c[1], c[2]))
        return [(e, w) for e, w, _ in pooled]

    def _use_model(self) -> bool:
        mode = self.cfg.naming
        return mode == "model" or (mode == "auto" and self.settings.llm.backend == "openai")

    def _name(self, report: GeneSetReport, libraries: dict[str, Library | QueryLibrary]) -> None:
        best, why_not = self._best_term(report)
        report.name_term, report.significant, report.why_not = best, best is not None and not why_not, why_not
        report.name = best.name if best else None
        report.go_term, report.pathway_term = self.go_term(report), self.pathway_term(report)
        report.go_why_not, report.pathway_why_not = (self.rule.why_not(e, len(report.used)) if e else ""
                                                     for e in (report.go_term, report.pathway_term))
        claims = self._term_claims(report)
        if self._use_model() and best is not None:
            try:
                naming = self._ask_model(report)
            except StructuredOutputError as e:
                report.notes.append(f"the model's naming failed ({e}); the best enriched term names the set")
            else:
                claims = naming.claims + claims
                supported_name = self._name_supported(naming.name, report)
                if supported_name:
                    report.name, report.name_source = naming.name.strip(), "model"
                else:
                    report.unsupported.append(CheckedClaim(
                        f"the genes share {naming.name.strip()!r}", "name", False,
                        reason="no enriched term supports this name; the best enriched term names the set"))
        for claim in claims:
            checked = self.verify(claim, report, libraries)
            (report.claims if checked.supported else report.unsupported).append(checked)

    def _term_claims(self, report: GeneSetReport) -> list[Claim]:
        """The claims the report makes on its own: the top significant terms of each
        library, and membership of every supporting gene in the naming term."""
        claims: list[Claim] = []
        for lib in LIBRARY_ORDER:
            for e in [e for e in report.enriched.get(lib, []) if e.p_adj <= self.cfg.alpha][:3]:
                claims.append(Claim(kind="enriched", term=e.term))
        if report.name_term is not None and report.significant:
            claims += [Claim(kind="member", term=report.name_term.term, gene=g) for g in report.name_term.overlap]
        return claims

    # ---- verification -------------------------------------------------------------------------
    def _resolve(self, term: str, report: GeneSetReport,
                 libraries: dict[str, Library | QueryLibrary]) -> tuple[str, str, str] | None:
        """(library, term id, name) for a term written as an id or an exact name."""
        key = term.strip()
        norm = " ".join(name_words(key))
        for lib_name, lib in libraries.items():
            if key in lib.names:
                return lib_name, key, lib.names[key]
        for lib_name, lib in libraries.items():
            for tid, name in lib.names.items():
                if " ".join(name_words(name)) == norm:
                    return lib_name, tid, name
        return None

    def verify(self, claim: Claim, report: GeneSetReport,
               libraries: dict[str, Library | QueryLibrary]) -> CheckedClaim:
        found = self._resolve(claim.term, report, libraries)
        if found is None:
            return CheckedClaim(claim.text(), claim.kind, False,
                                reason=f"'{claim.term}' is not a term of the libraries searched ({', '.join(libraries)})")
        lib_name, tid, name = found
        text = Claim(kind=claim.kind, term=tid, gene=claim.gene).text(name)
        if claim.kind == "enriched":
            hit = next((e for e in report.enriched.get(lib_name, []) if e.term == tid), None)
            if hit is None or hit.p_adj > self.cfg.alpha:
                why = (f"adjusted p {hit.p_adj:.2g} > {self.cfg.alpha}" if hit
                       else "fewer than 2 of the genes are in it")
                return CheckedClaim(text, "enriched", False, reason=f"{tid} is not enriched: {why}")
            return CheckedClaim(text, "enriched", True, [
                f"{tid}: {hit.k}/{hit.n} genes ({', '.join(hit.overlap)}), term size {hit.K}, "
                f"adjusted p {hit.p_adj:.2g}"])
        gene = (claim.gene or "").strip()
        check = next((g for g in report.genes if gene and gene.upper() in {g.listed.upper(), (g.symbol or "").upper()}), None)
        if check is None or check.symbol is None:
            return CheckedClaim(text, "member", False, reason=f"{gene or 'no gene'} is not one of the validated genes")
        lib = libraries[lib_name]
        if check.symbol not in lib.members(tid):
            return CheckedClaim(text, "member", False, reason=f"{check.symbol} is not among the genes of {tid} in {LIBRARY_LABELS[lib_name]}")
        evidence = [f"{tid} ({LIBRARY_LABELS[lib_name]}) lists {check.symbol}"]
        if check.gene_id is not None:
            evidence.append(f"Gene ID {check.gene_id}")
        if lib_name == "mesh" and self.mesh is not None:
            evidence += [f"PMID {p}" for p in self.mesh.pmids(check.symbol, tid)]
        return CheckedClaim(text, "member", True, evidence)

    def _name_supported(self, name: str, report: GeneSetReport) -> bool:
        """A model's name stands when most of its words come from significantly enriched terms."""
        words = {w for w in name_words(name) if len(w) > 2 and w not in _STOP}
        if not words:
            return False
        vocab = {w for lib in report.enriched.values() for e in lib if e.p_adj <= self.cfg.alpha
                 for w in name_words(e.name)}
        return len(words & vocab) / len(words) >= 0.5

    def _ask_model(self, report: GeneSetReport) -> ModelNaming:
        from biorag.llm import ChatMessage, make_llm

        llm = self.llm or make_llm(self.settings)
        self.llm = llm
        genes = []
        for g in report.genes:
            if g.symbol:
                info = self.gene_store.by_gene_id(g.gene_id) if self.gene_store and g.gene_id else None
                genes.append(f"{g.symbol}: {info['name']}" if info else g.symbol)
        terms = "\n".join(f"- {e.term} {e.name} ({LIBRARY_LABELS[e.library]}; genes {', '.join(e.overlap)}; "
                          f"adjusted p {e.p_adj:.2g})" for e in report.top_terms(12))
        messages = [
            ChatMessage(role="system", content=(
                "You name the biological process a set of human genes shares. Use only the enriched terms "
                "given; every claim must name a listed term by its id.")),
            ChatMessage(role="user", content=(
                f"Genes:\n{chr(10).join(genes)}\n\nEnriched terms:\n{terms}\n\nReply with JSON: a short "
                "process name, and claims of kind 'enriched' (term) or 'member' (gene takes part in term).")),
        ]
        naming, _raw = llm.structured(messages, ModelNaming, max_tokens=512)
        return naming


def first_go_term(report: GeneSetReport, library: str = "go_bp") -> Enriched | None:
    """The GO Biological Process term the enrichment ranks first: the lowest p-value, the
    more specific term winning a tie (the smaller term, then the one deeper in the GO graph:
    "cholesterol transport" over its parent "sterol transport" when both hold the same
    genes). What a question naming GO asks for; no consensus across libraries. (The same
    ranking of another library with a graph: `library`.)"""
    terms = report.enriched.get(library, [])
    if not terms:
        return None

    def rank(e: Enriched) -> tuple[float, int]:
        return float(f"{e.p:.9g}"), e.K  # equal p-values, however the sum rounded them

    best = min(rank(e) for e in terms)
    tied = [e for e in terms if rank(e) == best]
    if len(tied) == 1:
        return tied[0]
    # the same genes and term size: the descendant in the GO graph is the more specific
    parents = term_parents(library)
    return min(tied, key=lambda e: (-len(ancestors(e.term, parents)), e.term))


# ---- questions in plain words -----------------------------------------------------------------


def genes_in_question(text: str, store: GeneStore | None, known: frozenset[str]) -> list[str]:
    """Gene symbols written in a question: official symbols of the libraries, or a symbol
    the gene store knows as official or previous (aliases are too loose for free text)."""
    out: list[str] = []
    for tok in _SYMBOL_TOKEN.findall(text):
        if tok.lower() in _STOP or not any(c.isupper() for c in tok):
            continue
        if tok in known:
            out.append(tok)
        elif store is not None and tok.upper() == tok:
            m = store.current_symbol(tok)
            if m.symbol and m.basis in ("symbol", "previous"):
                out.append(tok)
    return list(dict.fromkeys(out))


class GeneSetRetriever(Retriever):
    """`geneset` source: the genes named in the query -> enriched terms, best first; the
    first record is the term that names the set (metadata: library, term, overlap, p_adj).
    Asked for the genes of a pathway named in the query (`member_genes`): the library terms
    the name matches, each with its genes (retrievers.geneset.members)."""

    name = SOURCE
    manual = MANUAL
    query_format = "the gene symbols, separated by spaces"
    accepts = ("gene_list", "pathway")
    answers = GENESET_FIELDS

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_geneset_field(field, evidence, about)

    def __init__(self, interpreter: GeneSetInterpreter):
        self.interpreter = interpreter

    @classmethod
    def query_schema(cls, settings: Settings) -> dict[str, Any]:
        return {"pattern": TWO_NAMES}

    @classmethod
    def from_settings(cls, settings: Settings) -> GeneSetRetriever:
        return cls(GeneSetInterpreter.from_settings(settings))

    def search(self, request: SearchRequest) -> list[Evidence]:
        """Enrichment of the request's resolved genes (`request.entities.genes`, a set); with
        fewer than two, of the gene symbols written in its text (a bare text request). Asked for
        a pathway's genes, the text is the pathway's name."""
        if request.asks == MEMBER_GENES.name:
            return member_records(request.text, SOURCE, request.k)
        it = self.interpreter
        typed = request.entities.genes
        genes = list(typed) if len(typed) >= 2 else genes_in_question(request.text, it.gene_store, it._known_symbols())
        if len(genes) < 2:
            raise QueryRejected(SOURCE, "name at least 2 gene symbols to interpret a gene set")
        return self.search_genes(genes, request.k)

    def search_genes(self, genes: list[str], k: int) -> list[Evidence]:
        """The enriched terms of a gene list given as a list (the MCP tool's): every symbol is
        checked, in any case, and the unknown ones are reported in the records' `genes`
        (free text goes through `search`, which reads only symbols written as symbols)."""
        it = self.interpreter
        report = it.interpret(genes)
        go_first, reactome_first = report.go_term, report.pathway_term
        ordered = ([report.name_term] if report.name_term else []) + [
            e for e in report.top_terms(k) if e is not report.name_term]
        ordered = ordered[:k]
        ordered += [e for e in (go_first, reactome_first) if e is not None and all(e is not o for o in ordered)]
        asked = len(report.used)
        out = []
        for rank, e in enumerate(ordered):
            out.append(Evidence(
                source=SOURCE, id=e.term, title=e.name, url=term_url(e.library, e.term),
                text=(f"{e.name} ({e.term}, {LIBRARY_LABELS[e.library]}): {e.k} of {e.n} genes "
                      f"({', '.join(e.overlap)}), term size {e.K}, adjusted p {e.p_adj:.2g}"),
                score=e.p_adj, covers=list(e.overlap),
                metadata=EnrichedTermRecord(
                    library=e.library, term=e.term, name=e.name, supporting_genes=list(e.overlap), query_size=e.n,
                    p_adj=e.p_adj, p=e.p, significant=e.p_adj <= it.cfg.alpha,
                    names_the_set=rank == 0 and e is report.name_term,
                    process_name=report.name if rank == 0 else None, go_first=e is go_first,
                    reactome_first=e is reactome_first, asked=asked, why_not=it.rule.why_not(e, asked),
                    genes=report.as_dict()["genes"], hpo_notice=report.hpo_notice).as_metadata()))
        if not out:
            raise NoRecord(SOURCE, "no term shares two or more of these genes")
        return out

    def close(self) -> None:
        self.interpreter.close()
