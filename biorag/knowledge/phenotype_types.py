"""The phenotype ranking's vocabulary: HPO frequency and onset terms, the constants of the
scoring (`ScoringParams`, with how each was chosen), a patient, and the scores the ranking
returns. The math is in `biorag.knowledge.phenotype_scoring`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

#: HPO frequency terms as fractions (HP:0040280 obligate … HP:0040285 excluded)
FREQUENCY_TERMS = {"HP:0040280": 1.0, "HP:0040281": 0.9, "HP:0040282": 0.55, "HP:0040283": 0.17,
                   "HP:0040284": 0.02, "HP:0040285": 0.0}
#: onset terms as age ranges in years (HPO's own definitions, rounded)
ONSET_YEARS = {"HP:0030674": (-1.0, 0.0), "HP:0011460": (-1.0, -0.6), "HP:0011461": (-0.6, 0.0),
               "HP:0003577": (-1.0, 0.0), "HP:0003623": (0.0, 0.08), "HP:0410280": (0.0, 16.0),
               "HP:0003593": (0.08, 1.0), "HP:0011463": (1.0, 5.0), "HP:0003621": (5.0, 16.0),
               "HP:0003581": (16.0, 120.0), "HP:0011462": (16.0, 40.0), "HP:0003596": (40.0, 60.0),
               "HP:0003584": (60.0, 120.0)}
X_RECESSIVE, X_DOMINANT, X_LINKED, Y_LINKED = "HP:0001419", "HP:0001423", "HP:0001417", "HP:0001450"
#: the catalogue named for HPO's own gene-disease links (genes_to_phenotype)
HPO_LINK = "HPO annotations"


def frequency_fraction(value: str) -> float | None:
    """HPO frequency ("HP:0040281", "3/7", "45%") as a fraction; None when not given."""
    if not value:
        return None
    if value in FREQUENCY_TERMS:
        return FREQUENCY_TERMS[value]
    if m := re.fullmatch(r"(\d+)/(\d+)", value):
        return int(m.group(1)) / max(int(m.group(2)), 1)
    if m := re.fullmatch(r"([\d.]+)%", value):
        return float(m.group(1)) / 100
    return None


@dataclass(frozen=True)
class ScoringParams:
    method: str = "lr"  # "lr" (likelihood ratio) or "resnik" (best-match average)
    noise: float = 0.01
    #: a feature matched only through an ancestor t gets partial x f x exp(IC(t)); through
    #: the root: partial. 5-fold by-cohort CV (dev, 1,029 cases, with the mim2gene_medgen and
    #: ClinVar links), MRR at 0.5, 0.3, 0.2, 0.1: 0.489, 0.493, 0.494, 0.497 (top-10 0.588,
    #: 0.596, 0.595, 0.591). 0.1 lets a disease matching the common feature and nearly the
    #: rare one outrank one matching the rare one exactly (tests/geneset/test_hpo.py's IC
    #: test fails), so the grid stops at 0.2, which every fold chose
    partial: float = 0.2
    unknown_frequency: float = 0.5
    frequency_power: float = 0.5  # 0: annotation frequencies ignored
    #: an excluded feature the disease shows at least `excluded_typical` of the time (HPO
    #: "very frequent", "obligate") lowers it: LR = 1 - excluded_weight x f
    excluded_weight: float = 0.05
    excluded_typical: float = 0.8
    #: any other excluded feature the disease shows (rarely, occasionally, at an unknown
    #: frequency) raises it by excluded_relevance x its credit as an observed feature (the
    #: positive part). Published cases list as absent what the differential they weighed
    #: would show: penalising those features ranked the gold gene lower (dev, 1,029 cases,
    #: 886 with excluded features: penalty 0.3 / 0.05 / none, top-1 0.520 / 0.532 / 0.534),
    #: reading them as pointers to that differential ranks it higher (0.5: top-1 0.574,
    #: top-10 0.706). 0 turns it off
    excluded_relevance: float = 0.5
    #: a disease annotated with n phenotypes loses annotation_size x log(n): the more a
    #: disease is annotated with, the likelier it matches a feature by chance
    annotation_size: float = 1.0
    #: the share of that penalty waived for a disease whose name names every observed term
    #: (`biorag.knowledge.phenotype_naming`, which says why). 0 turns it off
    named_size: float = 1.0
    #: a gene's other diseases add support x log(sum of exp(score - best)) over all its
    #: diseases (a soft maximum): 0 ranks by the best disease alone; n equally good diseases
    #: add support x log(n), weak ones almost nothing, never a sum of scores. A gene that two
    #: diseases point to edges out one a single disease does (PAX6 for aniridia). 5-fold
    #: by-cohort cross-validation over 0, 0.1, 0.25, 0.5, 1 (dev, 1,029 cases): MRR 0.4835,
    #: 0.4881, 0.4882, 0.4885, 0.4894; top-1 0.430 at 0 and 0.435 at 0.1-0.5. 1 scored best
    #: by 0.001 MRR but lets a gene's many diseases with a common feature outrank a gene
    #: matching a rare one (tests/geneset/test_hpo.py's IC test fails at 1): 0.25, within
    #: noise of the best, keeps information content first
    support: float = 0.25
    #: a gene's pooled profile (its diseases' annotations as one, each feature credited by
    #: the disease that explains it best, the size penalty on the pool) can raise it: its
    #: score is the larger of the disease-based score and (1 - gene_profile) x that +
    #: gene_profile x the pooled score. A patient whose features are split between two
    #: entries of one gene (an OMIM and an Orphanet disease, two allelic disorders) is
    #: explained by the gene as a whole; a gene with many diseases never pays for their
    #: pooled size below its best disease. Dev, with excluded_relevance 0.5: 0.3 lifts top-1
    #: 0.574 -> 0.580, top-10 0.706 -> 0.709 (a plain mix, which could also lower a gene,
    #: scored the same and put TRIM44 above PAX6 for aniridia, cataract and nystagmus)
    gene_profile: float = 0.3
    #: not calibrated (the development cases carry no onset or sex): a disease whose
    #: annotated onsets all miss the patient's, or a sex its inheritance rules out
    onset_mismatch: float = 0.3
    female_x_recessive: float = 0.3
    female_y_linked: float = 0.01

    def with_(self, **changes: Any) -> ScoringParams:
        return replace(self, **changes)


@dataclass
class Patient:
    """What the ranking reads: HPO ids (already resolved to live terms), onset term, age and sex."""

    observed: list[str]
    excluded: list[str] = field(default_factory=list)
    onset: str | None = None  # an HPO onset term id
    onset_age_years: float | None = None
    age_years: float | None = None  # at last encounter: onset cannot be later
    sex: str | None = None  # MALE / FEMALE / OTHER_SEX / UNKNOWN_SEX


@dataclass
class Match:
    patient_term: str
    disease_term: str | None  # the disease's annotation that explains it, None when none does
    via: str | None  # the shared term (the patient term itself when exact)
    frequency: float | None
    exact: bool
    log_lr: float


@dataclass
class DiseaseScore:
    disease_id: str
    name: str
    score: float
    matched: list[Match] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    #: excluded by the patient, shown by the disease typically (>= excluded_typical): lowered it
    contradicted: list[str] = field(default_factory=list)
    #: excluded by the patient, shown by the disease less often or at an unknown frequency:
    #: read as the differential the case weighed, they raised it (ScoringParams.excluded_relevance)
    considered: list[str] = field(default_factory=list)
    genes: list[str] = field(default_factory=list)


@dataclass
class GeneScore:
    gene_id: int
    symbol: str
    score: float
    best: DiseaseScore
    other_diseases: list[tuple[str, str, float]] = field(default_factory=list)  # (id, name, score)
    #: the catalogues linking the gene to its best disease ("HPO annotations", "ClinVar", ...)
    linked_by: list[str] = field(default_factory=list)
