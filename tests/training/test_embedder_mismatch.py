"""An index refuses an embedder it was not built with, even at the same dimension."""

from biorag.ml.embedder import identity, mismatch
from biorag.ml.pubmed_schema import make_meta
from biorag.storage.artifacts import ArtifactManifest, write_manifest


def _artifact(tmp_path, name, fingerprint):
    d = tmp_path / name
    d.mkdir()
    write_manifest(d, ArtifactManifest(kind="embedder", base_model="all-MiniLM-L6-v2", dim=384,
                                       data_fingerprint=fingerprint))
    return str(d)


def test_same_dimension_other_model_is_refused(tmp_path):
    import json

    a, b = _artifact(tmp_path, "a", "f1"), _artifact(tmp_path, "b", "f2")
    meta = json.loads(make_meta(a, None, 384, "HNSW", embedder_id=identity(a)))
    assert mismatch(meta, a) is None
    problem = mismatch(meta, b)
    assert problem and "not be comparable" in problem and "rebuild" in problem
    # the bundled model is recognised by name
    bundled = json.loads(make_meta("all-MiniLM-L6-v2", None, 384, "HNSW", embedder_id=identity("all-MiniLM-L6-v2")))
    assert mismatch(bundled, "all-MiniLM-L6-v2") is None and mismatch(bundled, a)


def test_collections_from_before_the_id_was_recorded_are_accepted():
    assert mismatch({"embedder": "all-MiniLM-L6-v2", "dim": 384}, "all-MiniLM-L6-v2") is None
