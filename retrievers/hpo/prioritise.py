"""Phenotype-driven gene prioritisation of one case: the case's HPO ids checked against the
store (or its words read into terms, negations as excluded features), genes ranked by their
best disease (biorag.knowledge.phenotype_scoring), and a report a clinician can check: per gene the
disease with its id and the catalogues linking the gene to it, which patient features matched
which disease features, what the disease does not explain, and the score. Written as JSON (`as_dict`) or an Exomiser-like gene TSV."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from biorag.contracts.errors import InputError
from biorag.knowledge.phenopackets import Case
from biorag.knowledge.phenotype_types import GeneScore, Patient, ScoringParams
from retrievers.stores.hpo_store import HpoStore

DEFAULT_TOP_K, MAX_TOP_K = 10, 100
LINKS_SCHEMA = 3  # the HPO store schema with linked_gene_diseases (indexing/hpo_store_build.py)
TSV_COLUMNS = ("#RANK", "GENE_SYMBOL", "ENTREZ_GENE_ID", "PHENO_SCORE", "DISEASE_ID", "DISEASE_NAME",
               "MATCHED_PHENOTYPES", "UNEXPLAINED_PHENOTYPES", "CONTRADICTED_EXCLUDED", "LINKED_BY")


@dataclass
class Prioritised:
    case: Case
    observed: list[str]
    excluded: list[str]
    genes: list[GeneScore]
    names: dict[str, str]
    release: str
    notice: str
    warnings: list[str] = field(default_factory=list)

    def _term(self, tid: str) -> dict[str, str]:
        return {"id": tid, "label": self.names.get(tid, tid)}

    def as_dict(self) -> dict[str, Any]:
        c = self.case
        return {
            "case": {"id": c.id, "source": c.source, "sex": c.sex, "age": c.age, "onset": c.onset,
                     "onset_age_years": c.onset_age_years, "text": c.text,
                     "observed": [self._term(t) for t in self.observed],
                     "excluded": [self._term(t) for t in self.excluded]},
            "genes": [self._gene(i, g) for i, g in enumerate(self.genes, 1)],
            "warnings": self.warnings,
            "hpo_release": self.release,
            "notice": self.notice,
        }

    def _gene(self, rank: int, g: GeneScore) -> dict[str, Any]:
        b = g.best
        return {
            "rank": rank, "symbol": g.symbol, "gene_id": g.gene_id, "score": g.score,
            "disease": {"id": b.disease_id, "name": b.name},
            "linked_by": list(g.linked_by),
            "matched": [{"patient": self._term(m.patient_term), "disease": self._term(m.disease_term),
                         "shared": self._term(m.via), "exact": m.exact, "frequency": m.frequency,
                         "log_lr": m.log_lr} for m in b.matched],
            "unexplained": [self._term(t) for t in b.unexplained],
            "contradicted": [self._term(t) for t in b.contradicted],
            "considered": [self._term(t) for t in b.considered],
            "other_diseases": [{"id": d, "name": n, "score": s} for d, n, s in g.other_diseases],
        }

    def tsv_rows(self) -> list[list[str]]:
        rows = []
        for i, g in enumerate(self.genes, 1):
            b = g.best
            matched = "; ".join(f"{m.patient_term}->{m.disease_term}" for m in b.matched)
            rows.append([str(i), g.symbol, str(g.gene_id), f"{g.score:.4f}", b.disease_id, b.name, matched,
                         ";".join(b.unexplained), ";".join(b.contradicted), "; ".join(g.linked_by)])
        return rows

    def lines(self) -> list[str]:
        """The ranking as text: one line of ranked genes first, then one line per gene."""
        out = [", ".join(g.symbol for g in self.genes) or "(no gene)"]
        for i, g in enumerate(self.genes, 1):
            b = g.best
            matched = ", ".join(f"{self.names.get(m.patient_term, m.patient_term)}"
                                + ("" if m.patient_term == m.disease_term else
                                   f" ~ {self.names.get(m.disease_term, m.disease_term)}") for m in b.matched)
            unexplained = ", ".join(self.names.get(t, t) for t in b.unexplained) or "none"
            linked = f", linked by {' and '.join(g.linked_by)}" if g.linked_by else ""
            excluded = "".join(f"; {label}: " + ", ".join(self.names.get(t, t) for t in terms)
                               for label, terms in (("excluded but typical of it (lowers it)", b.contradicted),
                                                    ("excluded, seen in it at times (raises it: a sign of the "
                                                     "differential weighed)", b.considered)) if terms)
            out.append(f"{i}. {g.symbol} (Gene ID {g.gene_id}) score {g.score:.2f} via {b.name} ({b.disease_id}{linked}); "
                       f"matches: {matched or 'none'}; not explained: {unexplained}{excluded}")
        return out


def check_top_k(top_k: int) -> int:
    if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top_k: {top_k!r}; give a number from 1 to {MAX_TOP_K}")
    return top_k


def prioritise(store: HpoStore, case: Case, top_k: int = DEFAULT_TOP_K, params: ScoringParams | None = None,
               leave_out: tuple[str, ...] = ()) -> Prioritised:
    """Rank genes for a case. A case in words has its terms found (negated ones excluded);
    ids the store does not know are dropped with a warning; no usable feature is an error."""
    check_top_k(top_k)
    warnings = list(case.warnings)
    observed, excluded = list(case.observed), list(case.excluded)
    if case.text is not None:
        found = store.find_terms(case.text)
        observed += [t.id for t in found if not t.excluded]
        excluded += [t.id for t in found if t.excluded]
        if not observed:
            raise InputError(f"{case.source}: no HPO phenotype found in the text; name the features "
                             "(e.g. 'seizures, ataxia, microcephaly') or give HPO ids")
    obs = store.resolve_terms(observed, "feature")
    exc = store.resolve_terms(excluded, "excluded feature")
    warnings += obs.warnings + exc.warnings
    if not obs.ids:
        raise InputError(f"{case.source}: none of the observed features is a term of HPO {store.release} "
                         f"({'; '.join(obs.warnings)})")
    if store.info().get("schema", 0) < LINKS_SCHEMA:
        warnings.append(f"the HPO store at {store.path} predates the mim2gene_medgen and ClinVar gene links "
                        "(schema < 3): rebuild it with `biorag data hpo-store build`")
    model = store.model()
    patient = Patient(obs.ids, [t for t in exc.ids if t not in obs.ids], case.onset, case.onset_age_years,
                      case.age_years, case.sex)
    genes = model.rank_genes(patient, params or ScoringParams(), top_k, leave_out)
    names = {tid: model.term_names[model.index[tid]] for tid in _terms_of(patient, genes) if tid in model.index}
    return Prioritised(case, patient.observed, patient.excluded, genes, names, store.release, store.notice,
                       warnings)


def _terms_of(patient: Patient, genes: list[GeneScore]) -> set[str]:
    out = set(patient.observed) | set(patient.excluded)
    for g in genes:
        out |= {t for m in g.best.matched for t in (m.disease_term, m.via) if t}
    return out
