"""The `dbsnp` source's record as a type: one rsID, its location, genes and significance.

Both backends give it: dbSNP through E-utilities (retrievers/dbsnp/retriever.py) and ClinVar's
variants in the gene store (retrievers/dbsnp/clinvar.py), which adds the ClinVar
variation ids, the conditions and the assembly; the layered source adds the ``backend``
that answered. Those keys are written only by the backend that has them (`OPTIONAL`), so
each backend's records keep exactly the keys they had. Written into `Evidence.metadata` and
read back (`VariantRecord.of`) as every source record is (retrievers/common/source_record.py).
"""

from __future__ import annotations

from typing import Any, ClassVar

from retrievers.common.source_record import SourceRecord


class VariantRecord(SourceRecord):
    """An rsID's record: GRCh38 location, the genes it lies in (symbols and NCBI Gene IDs),
    alleles, clinical significance and what dbSNP or ClinVar add."""

    SOURCE: ClassVar[str] = "dbsnp"
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"partial_response", "clinvar_variations", "conditions",
                                                 "assembly", "backend", "review_status", "release",
                                                 "release_label", "protein_change", "grch37_position",
                                                 "older_releases"})
    chromosome: str | None = None
    #: GRCh38, 1-based
    position: int | None = None
    genes: list[str] = []
    gene_ids: list[str] = []
    #: "G>A", from the SPDI or ClinVar's alleles
    alleles: str | None = None
    clinical_significance: list[str] = []
    function_class: list[str] = []
    spdi: str | None = None
    hgvs: list[str] = []
    #: per study, {study, freq}, as dbSNP gives it
    maf: list[dict[str, Any]] = []
    assembly_accession: str | None = None
    snp_class: str | None = None
    #: dbSNP's: E-utilities gave only part of the response
    partial_response: bool = False
    # ClinVar's (see the module docstring)
    clinvar_variations: list[str] = []
    conditions: list[str] = []
    assembly: str | None = None
    #: ClinVar's review status of each classification read
    review_status: list[str] = []
    #: the ClinVar release read (its date) and what that release covers
    release: str | None = None
    release_label: str | None = None
    #: HGVS p. name ("p.Val600Glu") when the variant was asked by its protein change
    protein_change: str | None = None
    grch37_position: int | None = None
    #: what older releases said ("2016-05-05: Pathogenic")
    older_releases: list[str] = []
    #: which layer of the layered source answered ("local" or "eutils")
    backend: str | None = None

    @property
    def where(self) -> str:
        return f"chr{self.chromosome}:{self.position}" if self.chromosome else "location unknown"
