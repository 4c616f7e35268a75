"""What a search asks a source: the typed request every `Retriever.search` takes.

The request carries what the question's reading already found, so a source reads nothing
twice (it never re-splits a gene list or re-guesses from cue words what was asked):

- `text`: the query as written (free-text sources search it; a source given no typed
  entity falls back to reading it);
- `k`, and `filters` (MeSH descriptors and years, honoured by the PubMed index);
- `asks`: the answer field of the hop being run (an `AnswerField.name` a source declares,
  e.g. "disease_genes", "gene_diseases", "disease_features"), None when the caller did not
  say (a bare text request);
- `entities`: the resolved entities the query names, by type. A gene list is a set (genes
  are kept in symbol order, whatever order the question wrote them in); a phenotype keeps
  its polarity (observed or excluded); a disease its id; a variant its rsID.

The idea of one typed query per provider follows PaperQA2's client query models; the
code is our own. `parse_request` is the one way to turn a string into a request (the
search API, the CLI, the evaluation harness): it reads the string with the same entity
linking as the agent (`biorag.understanding.analysis.analyse`). The agent builds its requests from
the plan's hop and the question's analysis (`biorag.loop.requests.search_request`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from biorag.contracts.models import SearchFilters
from biorag.contracts.sources import Lexicon, Source
from biorag.understanding.analysis import Analysis, Entity, analyse

_RSID = re.compile(r"^rs\d{1,12}$")


class Gene(BaseModel):
    """A resolved gene: official symbol and NCBI Gene ID ("" when unknown)."""

    model_config = ConfigDict(frozen=True)
    symbol: str = Field(min_length=1)
    gene_id: str = ""


class Disease(BaseModel):
    """A disease the query names: its name and, when a dictionary gave one, its id."""

    model_config = ConfigDict(frozen=True)
    name: str = Field(min_length=1)
    disease_id: str = ""


class Phenotype(BaseModel):
    """An HPO phenotype: term name, HP id, and whether the query says it is present."""

    model_config = ConfigDict(frozen=True)
    name: str = Field(min_length=1)
    hpo_id: str = ""
    polarity: Literal["observed", "excluded"] = "observed"

    @property
    def excluded(self) -> bool:
        return self.polarity == "excluded"


class Variant(BaseModel):
    """A dbSNP variant by its rsID (lower case, "rs" and digits)."""

    model_config = ConfigDict(frozen=True)
    rsid: str

    @field_validator("rsid")
    @classmethod
    def _rsid(cls, v: str) -> str:
        v = v.strip().lower()
        if not _RSID.match(v):
            raise ValueError(f"'{v}' is not an rsID: write rs and its digits, e.g. rs121913343")
        return v


class Entities(BaseModel):
    """The typed entities of a request. Genes are a set: kept deduplicated, in symbol order."""

    genes: list[Gene] = Field(default_factory=list)
    diseases: list[Disease] = Field(default_factory=list)
    phenotypes: list[Phenotype] = Field(default_factory=list)
    variants: list[Variant] = Field(default_factory=list)

    @field_validator("genes")
    @classmethod
    def _as_set(cls, genes: list[Gene]) -> list[Gene]:
        by_symbol = {g.symbol: g for g in genes}
        return [by_symbol[s] for s in sorted(by_symbol)]

    def __bool__(self) -> bool:
        return bool(self.genes or self.diseases or self.phenotypes or self.variants)


class SearchRequest(BaseModel):
    """One search: the query text, how many records, filters, the asked field and the
    typed entities (see the module docstring)."""

    text: str
    k: int = Field(10, ge=1)
    filters: SearchFilters = Field(default_factory=SearchFilters)
    #: the answer field of the hop being run (`AnswerField.name`); None: not said
    asks: str | None = None
    entities: Entities = Field(default_factory=Entities)

    @classmethod
    def of(cls, text: str, k: int = 10, filters: SearchFilters | None = None) -> SearchRequest:
        """A bare text request (no asked field, no typed entities): what a query typed by
        hand or written by a model is before it is parsed."""
        return cls(text=text, k=k, filters=filters or SearchFilters())


def entities_of(found: Sequence[Entity]) -> Entities:
    """The typed entities of what entity linking found: only names a dictionary or pattern
    is sure of, and only what it resolved (a gene with one official symbol, a gene list's
    and a symptom list's members)."""
    genes: list[Gene] = []
    diseases: list[Disease] = []
    phenotypes: list[Phenotype] = []
    variants: list[Variant] = []
    for e in found:
        if not e.confident:
            continue
        if e.kind == "gene" and len(e.canonical) == 1:
            genes.append(Gene(symbol=e.canonical[0], gene_id=e.ident))
        elif e.kind == "gene_list":
            genes += [Gene(symbol=m.name, gene_id=m.ident) for m in e.members]
        elif e.kind == "phenotype":
            phenotypes += [Phenotype(name=m.name, hpo_id=m.ident, polarity=m.polarity) for m in e.members]
        elif e.kind == "disease":
            diseases.append(Disease(name=e.canonical[0] if len(e.canonical) == 1 else e.text, disease_id=e.ident))
        elif e.kind == "rsid" and _RSID.match(rsid := (e.ident or e.text).lower()):
            # a variant named by its protein change carries its rsID as `ident` (none when
            # only a release without rsIDs holds it)
            variants.append(Variant(rsid=rsid))
    return Entities(genes=genes, diseases=diseases, phenotypes=phenotypes, variants=variants)


def asked_of(analysis: Analysis, source: str | None) -> str | None:
    """The field the analysed question asks of `source`: the first hop (or check) run on
    it; with no source, the first hop's field. None when no hop names it."""
    if analysis.intent is None:
        return None
    hops = analysis.intent.hops + analysis.intent.checks
    return next((h.field.name for h in hops if source is None or h.source == source), None)


def parse_request(text: str, k: int = 10, *, source: str | None = None,
                  sources: Mapping[str, Source] | None = None, lexicon: Lexicon | None = None,
                  filters: SearchFilters | None = None) -> SearchRequest:
    """A string read into a typed request, by the entity linking the agent uses. `source`:
    the source the request is for (its asked field is the hop run on it); `sources`: the
    enabled sources whose declared fields give the asked field (without them only entities
    are read). A source that takes free text only gets a bare request: there is nothing to
    resolve in it."""
    target = (sources or {}).get(source) if source else None
    accepts = set(getattr(target, "accepts", ()) or ()) if target is not None else None
    if accepts is not None and accepts <= {"free_text"}:
        return SearchRequest.of(text, k, filters)
    analysis = analyse(text, sources, lexicon)
    return SearchRequest(text=text, k=k, filters=filters or SearchFilters(), asks=asked_of(analysis, source),
                         entities=entities_of(analysis.entities))
