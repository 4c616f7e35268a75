"""The contract by which sources describe themselves to the core.

Every retriever (retrievers/) declares, as class attributes:

- ``accepts``: the entity kinds its query can be (a gene name, an rsID, a DNA sequence,
  free text, ...). The planner only sends a source the kinds it accepts, and the LLM
  fallback only chooses among sources whose kinds occur in the question;
- ``answers``: the `AnswerField`s it serves: a name, a description, the cue words a
  question uses to ask for it, and the entity kinds the question must name;
- ``read(field, evidence, about)``: the field read from its own evidence, or None;
- optionally ``genes(evidence)``: the genes its own records hold (`HeldGene`: NCBI Gene ID
  and names), read from its typed records. The sufficiency check matches the question's
  resolved genes against them (by Gene ID or symbol, in any order), not against words, and
  a name no dictionary holds counts as known once a record holds a gene by that name;
- optionally ``links(evidence)``: the gene–disease links its own records carry, with who
  made each (`RecordLinks`), read from its typed records (biorag.loop.links).

Question understanding, planning and grounding loop over these declarations and never
name a source, so adding a source is one module in retrievers/ plus one registry line.

Multi-hop questions come from the declarations too: a field whose values are entities
(``yields``, e.g. the genes of a SNP) links a question about one kind (rsID) to a field
about another (the function of a gene).

`Lexicon` is what entity linking reads: dictionaries built from real data (the local gene
store's symbols, aliases, previous symbols, Ensembl/Entrez IDs, disease names). The core
only knows the protocol; retrievers/ implements it over the store and the composition
root (the Agent's builder, application/engine.py) passes it in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, get_args

if TYPE_CHECKING:
    from biorag.contracts.models import Evidence

EntityKind = Literal[
    "gene",  # a gene symbol, alias, previous symbol or clone-based name (TP53, CARD15, RP11-...)
    "ensembl",  # an Ensembl gene ID (ENSG...)
    "entrez",  # an NCBI Gene ID
    "rsid",  # a dbSNP reference SNP ID
    "sequence",  # a DNA (or protein) sequence
    "accession",  # a nucleotide/protein record accession (NM_002801.4)
    "region",  # a genomic interval (chr7:5530601-5530700)
    "passage",  # a sentence quoted in the question to be read ("the gene names in the sentence '...'")
    "disease",  # a disease name (OMIM, ClinVar, MeSH)
    "phenotype",  # a phenotype / HPO term name
    # a pathway, process or gene-group name as the gene-set libraries (GO BP, Reactome, HGNC groups)
    # name their terms ("the Wnt signaling pathway", "glycolysis"): the term's genes are asked for
    "pathway",
    "organism",  # an organism the question names ("in the mouse genome"): context for fields about it
    "gene_list",  # several genes given as a set (gene-set questions)
    "free_text",  # anything: literature and web search
]
ENTITY_KINDS: tuple[EntityKind, ...] = get_args(EntityKind)
#: the kinds that name one gene
GENE_IDS: tuple[EntityKind, ...] = ("gene", "ensembl", "entrez")


@dataclass(frozen=True)
class AnswerField:
    """One thing a source can answer.

    `cues` are lower-case words or phrases (hyphens written as spaces) by which a question
    asks for the field, in any phrasing: "official symbol", "which chromosome";
    `weak_cues` ask for it only when no other field's cue does ("where", "tell me about").
    A cue ending in " $" matches only at the end of the question ("does $": "what ... does").
    `about`
    lists the entity kinds the question must name for this source to answer it. `yields`
    is set when the field's values are themselves entities of that kind (the genes of a
    SNP): such a field can be the first hop of a chain. `default_for` makes the field the
    answer to a question that names such an entity and cues nothing else ("What is TP53?").

    The same `name` may be declared by several sources for different `about` kinds
    ("chromosome" of a gene, of a SNP): the question's entities decide which one answers.
    """

    name: str
    description: str
    cues: tuple[str, ...]
    about: tuple[EntityKind, ...]
    weak_cues: tuple[str, ...] = ()
    yields: EntityKind | None = None
    default_for: tuple[EntityKind, ...] = ()
    #: the kind of entity the field's values name when they are not to be chained (unlike
    #: `yields`): the diseases of a gene, which a gene asked about in a disease is checked
    #: against when the records do not link it to that disease (biorag.loop.links)
    lists: EntityKind | None = None
    #: the field is about a name as such (a gene's official symbol, what it is called now):
    #: the name it is asked of is read as a name of the field's kind, whatever else it names
    #: ("official symbol of WARTS": LATS1's alias, not the skin lesion; biorag.understanding.asked_names)
    subject_is_name: bool = False
    #: the record states the field in general (a gene's function): a question that sets it in
    #: a context of its own ("what does BIN1 do at the synapse?", "the role of PC in invasive
    #: cancer cells") asks the literature (biorag.understanding.literature_asks)
    general_only: bool = False


#: the field of free-text sources (literature, web): passages a generated or extractive
#: answer is built from. It is never read as a structured answer.
PASSAGES = AnswerField(
    "passages", "literature passages on the question",
    ("literature", "papers", "paper", "studies", "study", "articles", "article", "publications",
     "abstracts", "evidence", "research", "reported"),
    ("free_text",))


@dataclass
class Reading:
    """A field read from evidence.

    `values` are the field's values in order (symbols, "chr17", "Yes"); `links` the
    identifiers a next hop should query (Gene IDs are exact where symbols are not; default:
    the values); `text` the answer as shown (default: the values joined). `ambiguous` lists
    candidates when the question's name fits several records equally well: the answer then
    names them and says so, it never picks one. `missing`: names the question asked about
    that no record answers for; the answer says so and is not sufficient."""

    values: list[str]
    used: list[Evidence] = field(default_factory=list)
    explanation: str = ""
    links: list[str] | None = None
    text: str | None = None
    ambiguous: list[str] = field(default_factory=list)
    #: names asked about that no record answers for (the answer is then incomplete)
    missing: list[str] = field(default_factory=list)
    #: why the records, though they hold the field, do not answer the question (a gene
    #: set's best term explains too few of its genes): the answer is insufficient, with
    #: `text` below as a lead only
    refused: str = ""
    #: of `links`, the ones a record says cause the disease (not its modifiers): a next hop
    #: asked through what causes it ("the gene mutated in X") follows these (`grounding.inputs_of`)
    causal_links: list[str] | None = None
    #: the values hold for parts of what was asked, not the whole ("for some of its forms": a
    #: disease whose forms are inherited differently); a Yes to a claim says so
    holds_for: str = ""

    @property
    def answer(self) -> str:
        return self.text if self.text is not None else ", ".join(self.values)

    @property
    def hop_inputs(self) -> list[str]:
        return list(dict.fromkeys(self.links if self.links is not None else self.values))


@dataclass(frozen=True)
class HeldGene:
    """A gene a record holds (is about, or names): its NCBI Gene ID ("" when the record
    gives none) and the names the record carries for it, official symbol first."""

    gene_id: str = ""
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecordLinks:
    """The gene–disease links one record carries, and who made each (the catalogues, in plain
    words: "ClinVar", "HPO annotations"). A disease's record links genes (`gene_links`: symbol
    -> who); a gene's record (`symbol`) links diseases (`diseases`: (id, name) in the record's
    order; `disease_links`: disease id -> who)."""

    evidence: Evidence
    gene_links: Mapping[str, Sequence[str]] = field(default_factory=dict)
    symbol: str = ""
    diseases: tuple[tuple[str, str], ...] = ()
    disease_links: Mapping[str, Sequence[str]] = field(default_factory=dict)


class Source(Protocol):
    """What the core reads from a retriever (class or instance): see the module docstring."""

    name: str
    accepts: tuple[EntityKind, ...]
    answers: tuple[AnswerField, ...]

    def read(self, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None: ...


def declared_fields(sources: Mapping[str, Source] | Iterable[Source]) -> list[tuple[str, AnswerField]]:
    """(source name, field) for every field the given sources declare, in source order."""
    items = sources.values() if isinstance(sources, Mapping) else sources
    return [(s.name, f) for s in items for f in getattr(s, "answers", ())]


def held_genes(evidence: list[Evidence], sources: Mapping[str, Source] | None) -> list[HeldGene]:
    """The genes the records hold, as each record's own source reads its typed records
    (`Source.genes`, where a source declares it)."""
    out: list[HeldGene] = []
    for name, source in (sources or {}).items():
        own = [e for e in evidence if e.source == name]
        genes_of = getattr(source, "genes", None)
        out += genes_of(own) if own and genes_of is not None else []
    return out


def record_links(source: Source, evidence: list[Evidence]) -> list[RecordLinks]:
    """The links that the records of `source` among `evidence` carry (`Source.links`; none
    when the source declares none)."""
    links_of = getattr(source, "links", None)
    return links_of(evidence) if evidence and links_of is not None else []


def accepting(sources: Mapping[str, Source], kinds: Iterable[str]) -> list[str]:
    """Names of the sources that accept at least one of `kinds`, in the given order."""
    wanted = set(kinds)
    return [name for name, s in sources.items() if wanted.intersection(getattr(s, "accepts", ()))]


# ---- entity dictionaries ---------------------------------------------------------------
@dataclass(frozen=True)
class LexiconHit:
    """A dictionary entry a span of the question matched.

    `span` is the lower-cased candidate as looked up; `name` the entry as the dictionary
    spells it; `canonical` the current name (official symbol, preferred disease name);
    `ident` the record's identifier (NCBI Gene ID, disease ID); `how` which kind of name
    matched ("symbol", "alias", "previous", "ensembl", "gene_id", "disease", ...)."""

    span: str
    kind: EntityKind
    name: str
    canonical: str
    ident: str
    how: str


#: how strongly a written-out name (a ``("gene_name",)`` hit's `how`) means its gene: lower is stronger
NAME_STRENGTH = {"full_name": 0, "designation": 1, "designation head": 2}


class Lexicon(Protocol):
    """Exact (case-insensitive) dictionary look-up of candidate spans, in one batch.

    `kinds` picks the dictionaries: ("gene",) for gene names and IDs, ("gene_name",) for
    genes' names written out (hits' `how`: "full_name", "designation", "designation head"),
    ("disease", "phenotype") for disease names. A lexicon that lacks a dictionary returns no
    hits for it (entity linking then falls back to patterns)."""

    def lookup_spans(self, spans: Sequence[str], kinds: Sequence[EntityKind | str]) -> list[LexiconHit]: ...
