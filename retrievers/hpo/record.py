"""The `hpo` source's records as types, one per kind of record it returns:

- `RankedGeneRecord` (``kind="gene"``): a candidate gene ranked for a phenotype set, with the
  HPO term each asked phenotype matched (`MatchedTerm`), the asked terms (`QueryTerm`) and
  its diseases (the best-scoring one first);
- `RankedDiseaseRecord` (``kind="disease"``): a disease ranked for a phenotype set;
- `DiseaseRecord` (``kind="disease_phenotypes"``): a disease's features, its genes, with
  who linked each gene, and its inheritance (`InheritanceTerm`);
- `GeneDiseasesRecord` (``kind="gene_diseases"``): a gene's diseases, with who linked each.

Every record carries the HPO release and the notice HPO's license asks for. Records are
written into `Evidence.metadata` and read back (`<Record>.of(evidence)`) as every source
record is (retrievers/common/source_record.py).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from biorag.contracts.models import Evidence
from biorag.contracts.sources import HeldGene, RecordLinks
from retrievers.common.source_record import SourceRecord

_RELEASE_NOTE = ("hpo_release", "notice")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class QueryTerm(_Frozen):
    """An HPO term the query named: the words that named it, its IC over genes and over
    diseases, and whether it was said in the negative ("no seizures")."""

    id: str
    name: str
    text: str
    ic_gene: float
    ic_disease: float
    excluded: bool = False


class OnsetTerm(_Frozen):
    """The onset a question's words give ("congenital hypotonia"): an HPO onset term, which
    lowers the diseases whose annotated onsets cannot overlap it."""

    id: str
    name: str


class MatchedTerm(_Frozen):
    """How one asked phenotype is explained: the annotation of the disease that explains it,
    the term they share (`via`; the asked term itself when exact), its IC and the credit."""

    query_term: str
    matched_term: str
    matched_name: str
    via: str
    ic: float
    credit: float
    frequency: float | None = None
    exact: bool
    disease_id: str


class DiseaseFeature(_Frozen):
    """A feature (HPO phenotype) of a disease, with its annotated frequency."""

    id: str
    name: str
    frequency: str
    ic: float
    frequency_value: float


class InheritanceTerm(_Frozen):
    """An inheritance annotation of a disease (HPO aspect I): a mode ("Autosomal dominant
    inheritance"), or a qualifier of one ("Typified by incomplete penetrance")."""

    id: str
    name: str
    qualifier: bool


class LinkedDisease(_Frozen):
    disease_id: str
    name: str


class HpoRecord(SourceRecord):
    """What every HPO record carries: the release it was read from and the license notice."""

    SOURCE: ClassVar[str] = "hpo"
    hpo_release: str
    notice: str

    def as_metadata(self) -> dict[str, Any]:
        """The record's own keys (kind first), then the release note."""
        dumped = super().as_metadata()
        return {**{k: v for k, v in dumped.items() if k not in _RELEASE_NOTE},
                **{k: dumped[k] for k in _RELEASE_NOTE}}


class RankedGeneRecord(HpoRecord):
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"unmatched_features", "absent_features", "onset"})
    KIND: ClassVar[str] = "gene"
    kind: Literal["gene"] = "gene"
    symbol: str
    gene_id: int
    matched: list[MatchedTerm]
    query_terms: list[QueryTerm]
    #: listed features no HPO term matched: not ranked, named (written only when there are some)
    unmatched_features: list[str] = []
    #: features the question says are absent ("no hearing loss"): named, not ranked here
    #: (`biorag prioritise` weighs them; written only when there are some)
    absent_features: list[str] = []
    #: the patient's onset the question's words give (an HPO onset term; written only then)
    onset: OnsetTerm | None = None
    #: the gene's diseases, the one that explains the phenotypes best first
    diseases: list[str]


class RankedDiseaseRecord(HpoRecord):
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"unmatched_features", "absent_features", "onset"})
    KIND: ClassVar[str] = "disease"
    kind: Literal["disease"] = "disease"
    name: str
    disease_id: str
    matched: list[MatchedTerm]
    query_terms: list[QueryTerm]
    #: listed features no HPO term matched: not ranked, named (written only when there are some)
    unmatched_features: list[str] = []
    #: features the question says are absent ("no hearing loss"): named, not ranked here
    #: (`biorag prioritise` weighs them; written only when there are some)
    absent_features: list[str] = []
    #: the patient's onset the question's words give (an HPO onset term; written only then)
    onset: OnsetTerm | None = None
    genes: list[str]


class DiseaseRecord(HpoRecord):
    KIND: ClassVar[str] = "disease_phenotypes"
    kind: Literal["disease_phenotypes"] = "disease_phenotypes"
    name: str
    disease_id: str
    #: most frequent and most informative first
    phenotypes: list[DiseaseFeature]
    genes: list[str]
    #: gene symbol -> the catalogues linking it to the disease, in plain words
    gene_links: dict[str, list[str]]
    #: the disease's inheritance annotations, modes first; empty: HPO annotates none
    inheritance: list[InheritanceTerm] = []


class GeneDiseasesRecord(HpoRecord):
    KIND: ClassVar[str] = "gene_diseases"
    kind: Literal["gene_diseases"] = "gene_diseases"
    symbol: str
    gene_id: int
    diseases: list[LinkedDisease]
    #: disease id -> the catalogues linking the gene to it, in plain words
    disease_links: dict[str, list[str]]


def held_genes(evidence: list[Evidence]) -> list[HeldGene]:
    """The genes the HPO records hold: ranked genes and genes asked for their diseases (Gene
    ID and symbol), and the genes of the diseases (symbols: HPO's links carry no ids)."""
    out = [HeldGene(str(r.gene_id), (r.symbol,)) for kind in (RankedGeneRecord, GeneDiseasesRecord)
           for _, r in kind.all_of(evidence)]
    return out + [HeldGene("", (g,)) for kind in (RankedDiseaseRecord, DiseaseRecord)
                  for _, r in kind.all_of(evidence) for g in r.genes]


def record_links(evidence: list[Evidence]) -> list[RecordLinks]:
    """The gene–disease links of the HPO records, in the evidence's order: a disease's genes
    (`DiseaseRecord`) and a gene's diseases (`GeneDiseasesRecord`), each with who linked it."""
    out = []
    for ev in evidence:
        if (disease := DiseaseRecord.of(ev)) is not None:
            out.append(RecordLinks(ev, gene_links=disease.gene_links))
        elif (gene := GeneDiseasesRecord.of(ev)) is not None:
            out.append(RecordLinks(ev, symbol=gene.symbol, diseases=tuple((d.disease_id, d.name) for d in gene.diseases),
                                   disease_links=gene.disease_links))
    return out
