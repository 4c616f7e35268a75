"""Hybrid PubMed search on a real Milvus Lite index built from the bundled sample: the build
writes the lexical side index of the collection it verified, a rebuild writes a new one
behind the same alias switch, `gc` removes the old one, and the retriever fuses BM25 with the
vectors only where no MeSH filter applies (a MeSH boost is no filter: it is fused too)."""

from __future__ import annotations

import pytest

from biorag.contracts.models import SearchFilters
from biorag.ml import lexical_index
from biorag.ml.embedder import Embedder
from biorag.ml.vector_store import open_store
from biorag.understanding.search_request import SearchRequest
from indexing.build import build_index
from retrievers.pubmed.retriever import PubMedRetriever
from tests.index.index_helpers import sample_rows, settings_for, write_jsonl

pytestmark = pytest.mark.milvus


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


@pytest.fixture(scope="module")
def built(tmp_path_factory, embedder):
    tmp = tmp_path_factory.mktemp("hybrid")
    rows = sample_rows(60)
    settings = settings_for(tmp)
    report = build_index(settings, [write_jsonl(tmp / "records.jsonl", rows)], progress=False, embedder=embedder,
                         batch_size=32)
    assert report.ok and report.alias_switched
    keeper = open_store(settings.milvus_uri)
    yield settings, rows, keeper, report
    keeper.close()


def _done(*retrievers: PubMedRetriever) -> None:
    """Stop a retriever's batcher without closing the module's shared client."""
    for r in retrievers:
        r._client = None
        r.close()


def _retriever(settings, embedder, keeper, **index) -> PubMedRetriever:
    index.setdefault("hybrid", True)
    if index:
        settings = settings.model_copy(deep=True)
        for k, v in index.items():
            setattr(settings.index, k, v)
    r = PubMedRetriever.from_settings(settings)
    r._embedder = embedder
    r._client = keeper
    return r


def test_build_writes_the_lexical_index_of_the_verified_collection(built):
    settings, rows, _, report = built
    path = lexical_index.path_for(settings.data_dir, report.collection)
    assert report.lexical["documents"] == report.rows == len(rows)
    ix = lexical_index.LexicalIndex(path)
    assert len(ix) == len(rows) and ix.build_record["collection"] == report.collection
    ix.close()


def test_hybrid_search_fuses_and_keeps_cosine_scores(built, embedder):
    settings, rows, keeper, report = built
    r = _retriever(settings, embedder, keeper)
    dense = _retriever(settings, embedder, keeper, hybrid=False)
    try:
        found = 0
        for row in rows[:20]:
            hits = r.search(SearchRequest(text=row["title"], k=4))
            assert hits.info["fusion"] == "rrf" and hits.info["collection"] == report.collection
            assert len(hits) == 4 and len({h.id for h in hits}) == 4
            found += hits[0].id == str(row["pmid"])
            vec = embedder.embed_queries([row["title"]])[0]
            for h in hits:  # the score is the cosine to the query, whichever list found the hit
                doc = keeper.get(report.collection, ids=[int(h.id)], output_fields=["embedding"])[0]["embedding"]
                import numpy as np

                d = np.asarray(doc, dtype=np.float32)
                assert h.score == pytest.approx(float(d @ vec / (np.linalg.norm(d) * np.linalg.norm(vec))), abs=2e-2)
            assert "fusion" not in dense.search(SearchRequest(text=row["title"], k=4)).info
        assert found >= 18
    finally:
        _done(r, dense)


def test_a_word_only_the_abstract_holds_is_found_by_the_lexical_side(built, embedder):
    """Rare words of an abstract (not in its title): fused search finds the record among its 4,
    at least as often as the vector search alone."""
    settings, rows, keeper, _ = built
    r = _retriever(settings, embedder, keeper)
    dense = _retriever(settings, embedder, keeper, hybrid=False)
    try:
        r.search(SearchRequest(text="amyloid", k=1))
        ix = r.lexical
        fused_found = dense_found = asked = 0
        for row in rows[:30]:
            title_words = set(lexical_index.query_words(row["title"]))
            rare = [w for w in lexical_index.query_words(row["abstract"]) if w not in title_words and len(w) > 6
                    and len(ix.search([w], 3)) == 1]
            if len(rare) < 2:
                continue
            q = " ".join(rare[:3])
            asked += 1
            fused_found += str(row["pmid"]) in {h.id for h in r.search(SearchRequest(text=q, k=4))}
            dense_found += str(row["pmid"]) in {h.id for h in dense.search(SearchRequest(text=q, k=4))}
        assert asked >= 10
        assert fused_found == asked and fused_found >= dense_found
    finally:
        _done(r, dense)


def test_a_mesh_boosted_search_is_fused_too(built, embedder):
    """MeSH as a boost (how the embedded preset searches a tagged question) is no filter: the
    boosted vector list is fused with BM25, so the rare words of an abstract find its record
    whatever descriptor boosts the search."""
    settings, rows, keeper, _ = built
    r = _retriever(settings, embedder, keeper)
    try:
        r.search(SearchRequest(text="amyloid", k=1))
        ix = r.lexical
        asked = found = 0
        for i, row in enumerate(rows[:30]):
            title_words = set(lexical_index.query_words(row["title"]))
            rare = [w for w in lexical_index.query_words(row["abstract"]) if w not in title_words and len(w) > 6
                    and len(ix.search([w], 3)) == 1]
            other = rows[(i + 1) % len(rows)]["mesh"]  # a descriptor of another record boosts
            if len(rare) < 2 or not other:
                continue
            hits = r.search(SearchRequest(text=" ".join(rare[:3]), k=4,
                                          filters=SearchFilters(mesh=[other[0]["ui"]], mesh_mode="boost")))
            assert hits.info["fusion"] == "rrf" and hits.info["mesh_mode"] == "boost", hits.info
            asked += 1
            found += str(row["pmid"]) in {h.id for h in hits}
        assert asked >= 10 and found == asked, (found, asked)
    finally:
        _done(r)


def test_mesh_filtered_search_stays_vector_only(built, embedder):
    settings, rows, keeper, _ = built
    r = _retriever(settings, embedder, keeper)
    try:
        ui = rows[0]["mesh"][0]["ui"]
        hits = r.search(SearchRequest(text=rows[0]["title"], k=4, filters=SearchFilters(mesh=[ui])))
        assert "fusion" not in hits.info and hits.info["mesh"] == [ui]
    finally:
        _done(r)


def test_year_bounds_apply_to_lexical_hits(built, embedder):
    settings, rows, keeper, _ = built
    r = _retriever(settings, embedder, keeper)
    try:
        years = sorted({int(row["year"]) for row in rows if row.get("year")})
        mid = years[len(years) // 2]
        for row in rows[:10]:
            hits = r.search(SearchRequest(text=row["title"], k=4, filters=SearchFilters(year_from=mid)))
            assert all(int(h.metadata["year"]) >= mid for h in hits)
    finally:
        _done(r)


def test_rebuild_moves_vectors_and_lexical_index_together_and_gc_removes_the_old(tmp_path, embedder):
    from indexing.leftovers import collect_garbage

    settings = settings_for(tmp_path)
    first = build_index(settings, [write_jsonl(tmp_path / "a.jsonl", sample_rows(20))], progress=False,
                        embedder=embedder, batch_size=32)
    second = build_index(settings, [write_jsonl(tmp_path / "b.jsonl", sample_rows(20, 20))], progress=False,
                         embedder=embedder, batch_size=32, rebuild=True, allow_shrink=True)
    assert second.alias_switched and second.collection != first.collection
    new_rows = sample_rows(20, 20)
    client = open_store(settings.milvus_uri)
    try:
        r = _retriever(settings, embedder, client)
        hits = r.search(SearchRequest(text=new_rows[3]["title"], k=4))
        assert hits.info["collection"] == second.collection
        assert {h.id for h in hits} <= {str(x["pmid"]) for x in new_rows}  # nothing of the old build
        assert r.lexical.path == lexical_index.path_for(settings.data_dir, second.collection)
        r.close()
        client = open_store(settings.milvus_uri)
        kept = collect_garbage(client, settings, "pubmed")  # the previous build stays for rollback
        assert first.collection in {c.name for c in kept.kept} and not kept.removed
        assert lexical_index.path_for(settings.data_dir, first.collection).exists()
        gc = collect_garbage(client, settings, "pubmed", keep_previous=False)
        assert first.collection in {c.name for c in gc.removed}
        assert not lexical_index.path_for(settings.data_dir, first.collection).exists()
        assert lexical_index.path_for(settings.data_dir, second.collection).exists()
    finally:
        client.close()


def test_a_failed_lexical_write_keeps_the_alias_where_it_was(tmp_path, embedder, monkeypatch):
    import indexing.build as build_mod

    settings = settings_for(tmp_path)
    first = build_index(settings, [write_jsonl(tmp_path / "a.jsonl", sample_rows(10))], progress=False,
                        embedder=embedder, batch_size=32)

    def broken(*a, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(build_mod, "write_lexical_index", broken)
    with pytest.raises(OSError):
        build_index(settings, [write_jsonl(tmp_path / "b.jsonl", sample_rows(10, 10))], progress=False,
                    embedder=embedder, batch_size=32, rebuild=True, allow_shrink=True)
    from biorag.ml import pubmed_schema as ps

    client = open_store(settings.milvus_uri)
    try:
        assert ps.resolve_collection(client, "pubmed") == first.collection
    finally:
        client.close()
