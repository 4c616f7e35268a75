"""Manifests for trained artifacts (fine-tuned embedders, MeSH taggers).

Every artifact directory written by `biorag train ...` holds `biorag_manifest.json`:
what it is (`kind`), the base model, the output dimension, a fingerprint of the data it
was trained on, its evaluation metrics and the date. Loaders call the `check_*`
functions so that a mismatched artifact (an embedder whose dimension differs from the
collection's, a MeSH adapter handed to the embedder setting, ...) is refused with a
message that says what is wrong and how to fix it, instead of failing deep inside
torch or Milvus.

Lives in `biorag/` because both `indexing/` (writes a collection) and `retrievers/`
(queries it) need it and neither may import the other.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from biorag.contracts.errors import ConfigError
from biorag.host.jsonfile import read_json_object

MANIFEST_NAME = "biorag_manifest.json"
FORMAT_VERSION = 1

Kind = Literal["embedder", "mesh-tagger", "training-data"]


class ArtifactManifest(BaseModel):
    """What a trained artifact is and how it was made."""

    format: int = FORMAT_VERSION
    kind: Kind
    base_model: str = Field(description="path or name of the model training started from")
    dim: int | None = Field(None, description="embedding dimension (embedders) or label count (taggers)")
    data_fingerprint: str = Field("", description="sha256 over the training examples, see data_fingerprint()")
    metrics: dict[str, Any] = Field(default_factory=dict)
    created: str = Field(default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    config: dict[str, Any] = Field(default_factory=dict, description="training hyper-parameters")
    extra: dict[str, Any] = Field(default_factory=dict, description="kind-specific details (e.g. tagger head)")

    def identity(self) -> str:
        """Short stable id (kind, base, dim, data) an index can record next to its vectors."""
        blob = json.dumps([self.kind, self.base_model, self.dim, self.data_fingerprint, self.created])
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


class Fingerprinter:
    """Incremental, order-sensitive sha256 over text items (one per training example)."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.n = 0

    def update(self, item: str) -> None:
        self._h.update(item.encode("utf-8"))
        self._h.update(b"\x00")
        self.n += 1

    @property
    def value(self) -> str:
        return f"sha256:{self._h.hexdigest()[:32]}:n={self.n}"


def data_fingerprint(items: Iterable[str]) -> str:
    fp = Fingerprinter()
    for item in items:
        fp.update(item)
    return fp.value


def manifest_path(path: str | Path) -> Path:
    return Path(path) / MANIFEST_NAME


def has_manifest(path: str | Path) -> bool:
    return manifest_path(path).is_file()


def write_manifest(path: str | Path, manifest: ArtifactManifest) -> Path:
    out = manifest_path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(manifest.model_dump_json(indent=2) + "\n")
    return out


def read_manifest(path: str | Path) -> ArtifactManifest:
    """Read an artifact's manifest; a missing or unreadable one is a ConfigError."""
    mpath = manifest_path(path)
    if not Path(path).exists():
        raise ConfigError(f"artifact {path} does not exist")
    if not mpath.is_file():
        raise ConfigError(
            f"{path} has no {MANIFEST_NAME}: it was not written by `biorag train`; "
            "retrain it or give the directory that `biorag train` wrote"
        )
    data = read_json_object(mpath, "manifest", "the artifact is damaged, retrain it")
    if data.get("format", FORMAT_VERSION) > FORMAT_VERSION:
        raise ConfigError(
            f"{mpath} has manifest format {data.get('format')}, newer than this BioRAG understands "
            f"({FORMAT_VERSION}): upgrade BioRAG"
        )
    try:
        return ArtifactManifest(**data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ConfigError(f"{mpath}: field '{where}' {first['msg']}: the artifact is damaged, retrain it") from None


def _expect_kind(path: str | Path, manifest: ArtifactManifest, kind: Kind, hint: str) -> None:
    if manifest.kind != kind:
        raise ConfigError(f"{path} is a '{manifest.kind}' artifact, not a '{kind}': {hint}")


def check_embedder_manifest(
    path: str | Path,
    expected_dim: int | None = None,
    collection: str | None = None,
    expected_identity: str | None = None,
) -> ArtifactManifest | None:
    """Check an embedder directory before it is used against a collection.

    Returns the manifest, or None when `path` is not a directory written by `biorag train`
    (a bundled model name, a plain sentence-transformers folder): those carry no manifest
    and the caller checks the loaded model's dimension itself. Raises ConfigError when the
    artifact is not an embedder, when its dimension differs from `expected_dim` (the
    collection's), or when its identity differs from the one recorded with the collection.
    """
    p = Path(path)
    if not (p.is_dir() and has_manifest(p)):
        return None
    manifest = read_manifest(p)
    _expect_kind(p, manifest, "embedder", "set index.embedder to an embedder directory from `biorag train embedder`")
    where = f"collection '{collection}'" if collection else "the collection"
    if expected_dim is not None and manifest.dim is not None and manifest.dim != expected_dim:
        raise ConfigError(
            f"embedder {p} produces {manifest.dim}-dim vectors but {where} holds {expected_dim}-dim vectors: "
            f"rebuild the index with this embedder (`biorag index build ... --set index.embedder={p}`) "
            "or set index.embedder to the model the collection was built with"
        )
    if expected_identity is not None and manifest.identity() != expected_identity:
        raise ConfigError(
            f"embedder {p} (id {manifest.identity()}, trained {manifest.created}) is not the one {where} "
            f"was built with (id {expected_identity}): vectors would not be comparable; rebuild the index "
            "with this embedder or point index.embedder at the original one"
        )
    return manifest


def check_mesh_tagger_manifest(path: str | Path) -> ArtifactManifest:
    """Check a MeSH tagger directory (from `biorag train mesh`) before loading it."""
    p = Path(path)
    manifest = read_manifest(p)
    _expect_kind(p, manifest, "mesh-tagger", "set mesh.tagger to a directory from `biorag train mesh`")
    head = manifest.extra.get("head")
    if head not in ("classifier", "generative"):
        raise ConfigError(
            f"{p}: unknown MeSH tagger head {head!r} (expected classifier or generative): retrain it"
        )
    return manifest
