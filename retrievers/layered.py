"""Local data first: a source answered by its local backend, with a remote one behind it.

`LayeredRetriever` asks its layers in order and returns the first non-empty answer; a layer
that fails (not recorded, no network, no record) is noted and the next one is asked. Every
hit carries ``metadata["backend"]`` (the layer that answered), and what each layer did is
returned with the hits (``SearchHits.info``; on failure, the raised error's ``info``), which
the agent copies into the retrieve step of the trace, so a user sees whether the offline
store or E-utilities answered. The retriever keeps no record of its last search: the server
shares it between concurrent requests.

Registered backends (application/catalog.py):

- gene ``layered``: the local gene store (every human gene, offline, milliseconds), then NCBI
  E-utilities (live or replayed) for what the store does not hold (other organisms, genes
  newer than the snapshot). Records the store answers get their RefSeq summary from
  E-utilities when it can be had (the store has none): best effort, never in the way.
- dbsnp ``layered``: ClinVar's variants in the gene store (an rsID's gene, offline), then
  dbSNP through E-utilities for an rsID ClinVar does not hold.
- omim ``layered``: the store's disease dictionary (disease -> genes offline), then OMIM
  through E-utilities, then (``local-names``) the genes a name no catalogue holds names
  itself (its symbol or its product's name; `LocalOmimRetriever`).

Without a built store the layered source is its remote backend alone (the trace says so).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import NotHeldOffline, NotRecorded, SourceUnavailable, ToolError
from biorag.contracts.models import Evidence, SearchHits
from biorag.contracts.sources import AnswerField, HeldGene, Reading
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.dbsnp import retriever as dbsnp
from retrievers.gene import evidence as gene_evidence
from retrievers.gene.fields import GeneFields
from retrievers.omim import retriever as omim
from retrievers.omim.local import LocalOmimRetriever
from retrievers.omim.retriever import OmimRetriever

if TYPE_CHECKING:
    from biorag.settings import Settings


class LayeredRetriever(Retriever):
    """Layers asked in order, ``(label, retriever)``; the first with hits answers."""

    def __init__(self, layers: list[tuple[str, Retriever]], missing: dict[str, str] | None = None):
        if not layers:
            raise ValueError("a layered source needs at least one layer")
        self.layers = layers
        self.missing = missing or {}  # layer label -> why it is not there (e.g. no store built)

    def search(self, request: SearchRequest) -> SearchHits:
        query = request.text
        tried: list[dict[str, Any]] = [{"backend": label, "skipped": why} for label, why in self.missing.items()]
        info: dict[str, Any] = {"backend": None, "layers": tried}
        error: ToolError | None = None
        for label, layer in self.layers:
            try:
                hits = layer.search(request)
            except ToolError as e:
                tried.append({"backend": label, "hits": 0, "error": str(e)})
                error = e
                continue
            tried.append({"backend": label, "hits": len(hits)})
            if hits:
                for h in hits:
                    h.metadata["backend"] = label
                info["backend"] = label
                self.complete(label, hits, query, info)
                return SearchHits(hits, info)
        if error is not None:
            error.info = info  # what each layer did travels with the failure
            raise error
        return SearchHits([], info)

    def complete(self, answered_by: str, hits: list[Evidence], query: str, info: dict[str, Any]) -> None:  # noqa: B027
        """Hook: let later layers fill fields the answering layer lacks, noting it in this
        search's `info` (never in shared state: a server shares the retriever). Default: nothing."""

    def close(self) -> None:
        for _, layer in self.layers:
            layer.close()


def _store_if_built(settings: Settings):
    """(GeneStore or None, why not)."""
    from retrievers.stores.gene_store import GeneStore, build_command_hint, gene_store_path

    path = gene_store_path(settings)
    if not path.exists():
        return None, build_command_hint(path)
    return GeneStore(path), ""


class LayeredGeneRetriever(GeneFields, LayeredRetriever):
    """`gene` source: local gene store first, then E-utilities (see the module docstring)."""

    name = "gene"
    manual = gene_evidence.MANUAL
    query_format = gene_evidence.QUERY_FORMAT

    @classmethod
    def from_settings(cls, settings: Settings) -> LayeredGeneRetriever:
        from retrievers.gene.retriever import GeneRetriever, LocalGeneRetriever

        store, why = _store_if_built(settings)
        remote = GeneRetriever.from_settings(settings)
        if store is None:
            return cls([("eutils", remote)], {"local": why})
        return cls([("local", LocalGeneRetriever(store, settings.ncbi.prefer_taxid)), ("eutils", remote)])

    def complete(self, answered_by: str, hits: list[Evidence], query: str, info: dict[str, Any]) -> None:
        remote = dict(self.layers).get("eutils")
        if answered_by != "local" or remote is None:
            return
        why_not = remote.fill_summaries(hits[:1], query)
        info["summary"] = "filled from eutils" if why_not is None else f"not filled: {why_not}"


class LayeredDbSnpRetriever(LayeredRetriever):
    """`dbsnp` source: ClinVar's variants in the gene store first, then dbSNP."""

    name = "dbsnp"
    manual = dbsnp.MANUAL
    query_format = dbsnp.DbSnpRetriever.query_format
    accepts = dbsnp.DbSnpRetriever.accepts
    answers = dbsnp.SNP_FIELDS

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return dbsnp.read_snp_field(field, evidence, about)

    @classmethod
    def genes(cls, evidence: list[Evidence]) -> list[HeldGene]:
        return dbsnp.held_genes(evidence)

    def search(self, request: SearchRequest) -> SearchHits:
        """As every layered source; an rsID the offline ClinVar data lacks, with dbSNP out of
        reach (replayed, no network), is said to be so, with the releases searched."""
        try:
            return super().search(request)
        except (NotRecorded, SourceUnavailable) as e:
            local = dict(self.layers).get("local")
            ids = dbsnp.rs_ids(request.text)
            if local is None or not ids or not hasattr(local, "not_held"):
                raise
            # dbSNP could not be searched: the agent says so beside its answer
            err = NotHeldOffline("dbsnp", local.not_held([f"rs{i}" for i in ids]))
            err.info = getattr(e, "info", None)
            raise err from e

    @classmethod
    def from_settings(cls, settings: Settings) -> LayeredDbSnpRetriever:
        from retrievers.dbsnp.clinvar import LocalVariantRetriever

        store, why = _store_if_built(settings)
        remote = dbsnp.DbSnpRetriever.from_settings(settings)
        if store is None:
            return cls([("eutils", remote)], {"local": why})
        return cls([("local", LocalVariantRetriever(store)), ("eutils", remote)])


class LayeredOmimRetriever(omim.OmimFields, LayeredRetriever):
    """`omim` source: the store's disease dictionary first, then OMIM via E-utilities."""

    @classmethod
    def from_settings(cls, settings: Settings) -> LayeredOmimRetriever:
        store, why = _store_if_built(settings)
        if store is not None and not store.has_diseases:
            store.close()
            store, why = None, "the gene store has no disease dictionary: rebuild it with `biorag data gene-store build`"
        remote = OmimRetriever.from_settings(settings)
        if store is None:
            return cls([("eutils", remote)], {"local": why})
        # a name no catalogue holds is asked of OMIM before the genes the name itself names
        # are trusted (LocalOmimRetriever.named_genes)
        return cls([("local", LocalOmimRetriever(store, named_genes="never")), ("eutils", remote),
                    ("local-names", LocalOmimRetriever(store, named_genes="only"))])
