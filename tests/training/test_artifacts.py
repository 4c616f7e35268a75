"""Manifests: round trip, and mismatched or damaged artifacts refused with clear messages."""

from __future__ import annotations

import pytest

from biorag.contracts.errors import ConfigError
from biorag.storage.artifacts import (
    MANIFEST_NAME,
    ArtifactManifest,
    check_embedder_manifest,
    check_mesh_tagger_manifest,
    data_fingerprint,
    read_manifest,
    write_manifest,
)


def _embedder(tmp_path, dim=384):
    m = ArtifactManifest(kind="embedder", base_model="all-MiniLM-L6-v2", dim=dim,
                         data_fingerprint=data_fingerprint(["a", "b"]), metrics={"after": {"recall@4": 0.9}})
    write_manifest(tmp_path, m)
    return m


def test_round_trip(tmp_path):
    m = _embedder(tmp_path)
    back = read_manifest(tmp_path)
    assert back == m
    assert back.identity() == m.identity()
    assert back.created.endswith("Z") and back.metrics["after"]["recall@4"] == 0.9


def test_fingerprint_depends_on_content_and_order():
    assert data_fingerprint(["a", "b"]) == data_fingerprint(["a", "b"])
    assert data_fingerprint(["a", "b"]) != data_fingerprint(["b", "a"])
    assert data_fingerprint(["ab"]) != data_fingerprint(["a", "b"])
    assert data_fingerprint(["a", "b"]).endswith(":n=2")


def test_embedder_dimension_mismatch_is_refused(tmp_path):
    _embedder(tmp_path, dim=768)
    assert check_embedder_manifest(tmp_path, expected_dim=768).dim == 768
    with pytest.raises(ConfigError) as e:
        check_embedder_manifest(tmp_path, expected_dim=384, collection="pubmed_v2")
    msg = str(e.value)
    assert "768-dim" in msg and "384-dim" in msg and "pubmed_v2" in msg and "index.embedder" in msg


def test_embedder_identity_mismatch_is_refused(tmp_path):
    m = _embedder(tmp_path)
    assert check_embedder_manifest(tmp_path, 384, expected_identity=m.identity()) is not None
    with pytest.raises(ConfigError, match="not the one"):
        check_embedder_manifest(tmp_path, 384, expected_identity="0123456789abcdef")


def test_plain_models_pass_through(tmp_path):
    assert check_embedder_manifest("all-MiniLM-L6-v2", 384) is None  # bundled name, no manifest
    assert check_embedder_manifest(tmp_path, 384) is None  # a folder without a manifest


def test_wrong_kind_is_refused(tmp_path):
    write_manifest(tmp_path, ArtifactManifest(kind="mesh-tagger", base_model="x", extra={"head": "classifier"}))
    with pytest.raises(ConfigError, match="'mesh-tagger' artifact, not a 'embedder'"):
        check_embedder_manifest(tmp_path, 384)
    assert check_mesh_tagger_manifest(tmp_path).extra["head"] == "classifier"
    other = tmp_path / "emb"
    _embedder(other)
    with pytest.raises(ConfigError, match="mesh.tagger"):
        check_mesh_tagger_manifest(other)


def test_damaged_or_missing_manifests(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        read_manifest(tmp_path / "nope")
    with pytest.raises(ConfigError, match="not written by `biorag train`"):
        check_mesh_tagger_manifest(tmp_path)
    (tmp_path / MANIFEST_NAME).write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        read_manifest(tmp_path)
    (tmp_path / MANIFEST_NAME).write_text('{"kind": "spaceship", "base_model": "x"}')
    with pytest.raises(ConfigError, match="field 'kind'"):
        read_manifest(tmp_path)
    (tmp_path / MANIFEST_NAME).write_text('{"format": 99, "kind": "embedder", "base_model": "x"}')
    with pytest.raises(ConfigError, match="upgrade BioRAG"):
        read_manifest(tmp_path)
    write_manifest(tmp_path, ArtifactManifest(kind="mesh-tagger", base_model="x", extra={"head": "oracle"}))
    with pytest.raises(ConfigError, match="unknown MeSH tagger head 'oracle'"):
        check_mesh_tagger_manifest(tmp_path)


def test_load_tagger_refuses_non_taggers(tmp_path):
    from biorag.ml.mesh_classifier import load_tagger

    with pytest.raises(ConfigError, match="does not exist"):
        load_tagger(tmp_path / "missing")
    _embedder(tmp_path)
    with pytest.raises(ConfigError, match="'embedder' artifact"):
        load_tagger(tmp_path)
