"""The PubMed retriever under concurrency and with MeSH, on a real Milvus Lite
index built from the bundled sample with the real embedder: micro-batching, the automatic
exact path from the build's descriptor counts, MeSH modes, and what the search reports."""

from __future__ import annotations

import json
import threading
from collections import Counter

import pytest

from biorag.contracts.models import SearchFilters
from biorag.loop.agent import Agent
from biorag.loop.plans import Rewrite
from biorag.loop.rules_planner import RulesPlanner
from biorag.ml import pubmed_schema as ps
from biorag.ml.embedder import Embedder
from biorag.ml.vector_store import open_store
from biorag.settings import load_settings
from biorag.understanding.search_request import SearchRequest
from indexing.build import build_index
from indexing.mesh_counts import count_collection, ensure_counts
from retrievers.pubmed.retriever import PubMedRetriever
from tests.index.test_index_milvus import AD, mesh_counts, sample_rows, settings_for, write_jsonl

pytestmark = pytest.mark.milvus

QUERIES = [
    "amyloid beta aggregation and neurotoxicity",
    "tau phosphorylation in neurodegeneration",
    "APOE genotype and risk of late-onset dementia",
    "microglia and neuroinflammation",
    "cognitive decline biomarkers in cerebrospinal fluid",
    "acetylcholinesterase inhibitors treatment outcomes",
    "synaptic loss and memory impairment",
    "oxidative stress in neurons",
]


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


@pytest.fixture(scope="module")
def index(tmp_path_factory, embedder):
    tmp = tmp_path_factory.mktemp("search")
    rows = sample_rows(40)
    # the vector and MeSH paths, as a search with index.hybrid off runs them (the fused
    # path, on by default: test_hybrid_search.py)
    settings = settings_for(tmp, hybrid=False)
    report = build_index(settings, [write_jsonl(tmp / "records.jsonl", rows)], progress=False,
                         embedder=embedder, batch_size=16)
    assert report.ok
    keeper = open_store(settings.milvus_uri)  # Lite: keep one client for the module (see test_index_milvus)
    yield settings, rows, keeper, report.collection
    keeper.close()


class CountingClient:
    """The real Milvus client, counting search calls and the vectors in each."""

    def __init__(self, inner):
        self.inner = inner
        self.searches: list[int] = []
        self.lock = threading.Lock()

    def search(self, *a, **kw):
        with self.lock:
            self.searches.append(len(kw["data"]))
        return self.inner.search(*a, **kw)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def retriever(settings, embedder, keeper, **kw) -> PubMedRetriever:
    r = PubMedRetriever.from_settings(settings)
    r._embedder = embedder
    r._client = keeper
    for k, v in kw.items():
        setattr(r, k, v)
    return r


def test_concurrent_searches_share_embedding_and_milvus_calls(index, embedder):
    settings, _, keeper, _ = index
    one = retriever(settings, embedder, keeper)
    alone = {q: [h.id for h in one.search(SearchRequest.of(q, 4))] for q in QUERIES}
    one._batcher.close()  # keep the shared client open

    client = CountingClient(keeper)
    r = retriever(settings, embedder, client)
    r.embedder.query_cache.clear()
    encodes: list[int] = []
    real = r.embedder._encode_queries
    r.embedder._encode_queries = lambda enc, texts: encodes.append(len(texts)) or real(enc, texts)
    # hold the batch workers until every search is queued, so they must share calls
    gate = threading.Event()
    run = r._run_batch
    r._run_batch = lambda reqs: gate.wait(10) and run(reqs)
    futures = [r.submit(SearchRequest.of(q, 4)) for q in QUERIES]
    gate.set()
    results = [f.result(30) for f in futures]
    del r.embedder._encode_queries
    assert {q: [h.id for h in res] for q, res in zip(QUERIES, results, strict=True)} == alone
    assert sum(encodes) == len(QUERIES) and len(encodes) < len(QUERIES)  # fewer embedding calls
    assert sum(client.searches) == len(QUERIES) and len(client.searches) < len(QUERIES)  # fewer Milvus calls
    assert max(res.info["batch"] for res in results) > 1
    r._batcher.close()


def test_threads_searching_at_once_get_the_same_hits_as_alone(index, embedder):
    settings, rows, keeper, _ = index
    r = retriever(settings, embedder, keeper)
    mid = _descriptor(rows, lambda c: 3 <= c <= 8)
    asks = [(q, SearchFilters(mesh=[mid]) if i % 2 else None) for i, q in enumerate(QUERIES)]
    alone = [[h.id for h in r.search(SearchRequest.of(q, 4, f))] for q, f in asks]
    got: dict[int, list[str]] = {}
    barrier = threading.Barrier(len(asks))

    def one(i: int) -> None:
        barrier.wait()
        got[i] = [h.id for h in r.search(SearchRequest.of(asks[i][0], 4, asks[i][1]))]

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(asks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [got[i] for i in range(len(asks))] == alone
    r._batcher.close()


def _descriptor(rows, wanted) -> str:
    counts = mesh_counts(rows)
    return next(u for u, c in sorted(counts.items()) if wanted(c) and ps.vocabulary().by_ui.get(u))


def test_build_keeps_descriptor_counts_in_the_collection(index):
    settings, rows, keeper, collection = index
    described = keeper.describe_collection(collection)
    stored = ps.read_mesh_counts(described)
    assert stored == {u: n for u, n in mesh_counts(rows).items() if ps.UI_RE.match(u)}
    counted, n, ids = count_collection(keeper, collection, postings=True)
    assert dict(counted) == stored and n == len(rows)
    # Lite: every descriptor here is rare enough to keep the PMIDs of its rows
    postings = ps.read_mesh_postings(described)
    assert postings == {u: sorted(v) for u, v in ids.items()}
    assert postings[AD] == sorted(int(r["pmid"]) for r in rows if AD in {m["ui"] for m in r["mesh"]})


def test_rare_descriptor_searched_exactly_broad_one_by_hnsw(index, embedder):
    settings, rows, keeper, _ = index
    counts = mesh_counts(rows)
    rare = _descriptor(rows, lambda c: c == 2)
    assert counts[AD] > 10  # the sample is about Alzheimer disease: a broad filter
    r = retriever(settings, embedder, keeper, exact_filter_rows=10)
    exact = r.search(SearchRequest.of("memory decline", 4, SearchFilters(mesh=[rare])))
    assert exact.info["path"] == "exact" and exact.info["matching_rows"] == 2
    assert exact.info["exact_by"] == "pmid"  # Lite: the rows read by id from the kept postings
    assert len(exact) == 4 and sum(h.metadata["mesh_match"] for h in exact) == 2  # both matches, then filled
    assert exact.info["filtered_hits"] == 2 and exact.info["widened"] and "searched exactly" in exact.info["note"]
    years = sorted(int(row["year"]) for row in rows if rare in {m["ui"] for m in row["mesh"]})
    late = r.search(SearchRequest.of("memory decline", 4, SearchFilters(mesh=[rare], year_from=years[-1])))  # bounds apply too
    assert late.info["path"] == "exact" and all(h.metadata["year"] >= years[-1] for h in late)
    assert late.info["filtered_hits"] == sum(1 for y in years if y >= years[-1])
    broad = r.search(SearchRequest.of("memory decline", 4, SearchFilters(mesh=[AD])))
    assert broad.info["path"] == "ann" and broad.info["matching_rows"] == counts[AD]
    assert all(h.metadata["mesh_match"] for h in broad) and not broad.info["widened"]
    assert "D009369" not in counts
    absent = r.search(SearchRequest.of("memory decline", 4, SearchFilters(mesh=["Neoplasms"])))  # no record carries it
    assert absent.info["path"] == "none" and absent.info["filtered_hits"] == 0 and len(absent) == 4
    r._batcher.close()


class BeamClient(CountingClient):
    """The real client, keeping the search parameters of each call."""

    def __init__(self, inner):
        super().__init__(inner)
        self.params: list[dict] = []

    def search(self, *a, **kw):
        self.params.append(kw["search_params"]["params"])
        return super().search(*a, **kw)


def test_a_selective_filter_past_the_pmid_fetch_takes_the_widest_beam(index, embedder, monkeypatch):
    """Lite: a filter matching more rows than are fetched by PMID but at most
    exact_filter_rows walks HNSW with a beam SELECTIVE_BEAM_WIDEN times the filtered one
    (at 100k rows the usual filtered beam starves on such filters), and finds what the exact
    path finds; a broad filter keeps the usual filtered beam."""
    import retrievers.pubmed.retriever as pr

    settings, rows, keeper, _ = index
    mid = _descriptor(rows, lambda c: 3 <= c <= 8)
    exact = retriever(settings, embedder, keeper, exact_filter_rows=10)
    by_pmid = exact.search(SearchRequest.of("memory decline", 4, SearchFilters(mesh=[mid])))
    assert by_pmid.info["exact_by"] == "pmid"
    exact._batcher.close()
    monkeypatch.setattr(pr, "BEAM_MIN_ROWS", 2)
    client = BeamClient(keeper)
    r = retriever(settings, embedder, client, exact_filter_rows=10)
    r.exact_by_beam = True
    beam = r.search(SearchRequest.of("memory decline", 4, SearchFilters(mesh=[mid])))
    assert beam.info["path"] == "exact" and beam.info["exact_by"] == "beam" and "HNSW with a beam" in beam.info["note"]
    widest = r.ef * ps.FILTERED_EF_FACTOR * pr.SELECTIVE_BEAM_WIDEN
    assert client.params[0]["ef"] == widest
    assert [h.id for h in beam if h.metadata["mesh_match"]] == [h.id for h in by_pmid if h.metadata["mesh_match"]]
    client.params.clear()
    broad = r.search(SearchRequest.of("memory decline", 4, SearchFilters(mesh=[AD])))
    assert broad.info["path"] == "ann" and client.params[0]["ef"] == r.ef * ps.FILTERED_EF_FACTOR < widest
    r._batcher.close()


def test_boost_ranks_matching_records_up_without_excluding_others(index, embedder):
    settings, rows, keeper, _ = index
    rare = _descriptor(rows, lambda c: c == 2)
    q = "memory decline"
    r = retriever(settings, embedder, keeper, boost_pool=10)  # every record is a candidate
    dense = r.search(SearchRequest.of(q, 40))
    # a strong boost: both records carrying the descriptor come first, the rest follow by similarity
    r.boost_weight = 1.0
    boosted = r.search(SearchRequest.of(q, 6, SearchFilters(mesh=[rare], mesh_mode="boost")))
    assert boosted.info["mesh_mode"] == "boost" and boosted.info["path"] == "ann" and "MeSH boost" in boosted.info["note"]
    assert [h.metadata["mesh_match"] for h in boosted] == [True, True, False, False, False, False]
    assert not any(h.metadata["widened"] for h in boosted)  # nothing is outside a filter
    rest = [h.id for h in dense if rare not in h.metadata["mesh_ui"]][:4]
    assert [h.id for h in boosted[2:]] == rest
    assert all(h.metadata["similarity"] <= h.score for h in boosted)
    # no boost: the dense order
    r.boost_weight = 0.0
    assert [h.id for h in r.search(SearchRequest.of(q, 6, SearchFilters(mesh=[rare], mesh_mode="boost")))] == [h.id for h in dense[:6]]
    r._batcher.close()


class _Stop(Exception):
    pass


@pytest.mark.parametrize("mode", ["filter", "boost", "off"])
def test_agent_trace_shows_what_the_search_did(index, embedder, mode):
    """The agent's retrieve step carries what the search returned about itself."""
    settings, rows, keeper, _ = index
    s = load_settings(overrides={"data_dir": str(settings.data_dir), "planner": "rules", "mesh": {"mode": mode},
                                 "index": {"exact_filter_rows": 10}},
                      disable=["gene", "dbsnp", "omim", "blast", "web"])
    r = retriever(s, embedder, keeper)
    events = []

    def on_event(ev):
        events.append(ev)
        if ev.step == "retrieve":
            raise _Stop  # the retrieval step is what this test is about

    with pytest.raises(_Stop):
        Agent(s, retrievers={"pubmed": r}).answer("Is tau protein phosphorylation increased in Alzheimer Disease?",
                                                  on_event=on_event)
    ev = events[-1]
    assert ev.ok and ev.hits
    if mode == "off":
        assert ev.mesh == [] and "mesh_mode" not in ev.details
    else:
        assert "Alzheimer Disease" in ev.mesh and ev.details["mesh_mode"] == mode
        assert ev.details["path"] == "ann" and ev.details["batch"] >= 1 and ev.details["note"]
        if mode == "filter":
            assert ev.details["filter"].startswith("(mesh_key like") and ev.details["widened"] is False
            counts = mesh_counts(rows)
            assert ev.details["matching_rows"] == sum(counts.get(ps.vocabulary().resolve(t).ui, 0) for t in ev.mesh)
    r._batcher.close()


class _ProposesMesh(RulesPlanner):
    """The rules planner, with the MeSH descriptor a planning model proposes with its query."""

    def __init__(self, term: str):
        self.term = term

    def rewrite(self, state, selection, with_mesh):
        rw = super().rewrite(state, selection, with_mesh)
        return Rewrite(rw.query, [self.term] if with_mesh else [], rw.by)


@pytest.mark.parametrize("rare", [True, False], ids=["exact-widened", "ann-not-widened"])
def test_answer_trace_of_a_mesh_filtered_search_shows_filter_path_and_widening(index, embedder, rare):
    """A whole answer through the agent: the retrieve event of the returned (and dumped)
    trace says which filter ran, whether the search was exact or HNSW, and whether the
    unfiltered search filled the list, as the search returned it."""
    settings, rows, keeper, _ = index
    counts = mesh_counts(rows)
    ui = _descriptor(rows, lambda c: c == 2) if rare else AD
    name = ps.vocabulary().by_ui[ui].name
    s = load_settings(overrides={"data_dir": str(settings.data_dir), "planner": "rules", "mesh": {"mode": "filter"},
                                 "index": {"exact_filter_rows": 10}},
                      disable=["gene", "dbsnp", "omim", "blast", "web"])
    r = retriever(s, embedder, keeper)
    try:
        ans = Agent(s, retrievers={"pubmed": r}, planner=_ProposesMesh(name)).answer(
            "Which changes in memory decline are seen in these patients?")
    finally:
        r._batcher.close()
    (rewrite,) = [e for e in ans.model_dump(mode="json")["trace"] if e["step"] == "rewrite"]
    (ev,) = [e for e in ans.model_dump(mode="json")["trace"] if e["step"] == "retrieve"]
    assert rewrite["details"]["mesh_source"] == "planner" and ev["ok"] and ev["mesh"] == [name]
    d = ev["details"]
    k = s.sources["pubmed"].top_k
    assert d["filter"] == f'(mesh_key like "%|{ui}|%")' and d["mesh"] == [ui] and d["mesh_mode"] == "filter"
    assert d["matching_rows"] == counts[ui] and d["widen_mode"] == "drop_filter" and len(ev["hits"]) == k
    if rare:  # two rows carry it: both scored exactly, the other hits filled from the unfiltered search
        assert d["path"] == "exact" and d["filtered_hits"] == 2 and d["widened"] is True
        assert "searched exactly" in d["note"] and f"filled {k - 2} from unfiltered search" in d["note"]
    else:  # a broad descriptor: HNSW with the filter pushed down, enough hits without widening
        assert counts[ui] > 10 and d["path"] == "ann" and d["filtered_hits"] == k and d["widened"] is False
        assert "filled" not in d["note"]


def test_counts_follow_update_files(tmp_path, embedder):
    settings = settings_for(tmp_path)
    rows = sample_rows(8, start=100)
    first = build_index(settings, [write_jsonl(tmp_path / "base.jsonl", rows)], progress=False, embedder=embedder)
    assert first.ok
    newer = dict(rows[1], mesh=[{"ui": "D009369", "name": "Neoplasms", "major": False}])  # re-upsert, new headings
    upd = tmp_path / "update.jsonl"
    upd.write_text(json.dumps(newer) + "\n" + json.dumps({"delete": [rows[0]["pmid"]]}) + "\n"
                   + json.dumps(rows[2]) + "\n")  # an unchanged re-upsert counts once
    second = build_index(settings, [upd], progress=False, embedder=embedder)
    assert second.ok and second.mode == "update"
    client = open_store(settings.milvus_uri)
    try:
        stored = ps.read_mesh_counts(client.describe_collection(first.collection))
        expected = Counter(u for row in [newer, *rows[2:]] for u in {m["ui"] for m in row["mesh"]})
        assert stored == dict(expected)
        assert stored["D009369"] == 1
        counted, n, ids = count_collection(client, first.collection, postings=True)
        assert dict(counted) == stored and n == 7
        postings = ps.read_mesh_postings(client.describe_collection(first.collection))
        assert postings == {u: sorted(v) for u, v in ids.items()}  # PMIDs follow deletes and re-upserts
        assert postings["D009369"] == [int(newer["pmid"])] and all(int(rows[0]["pmid"]) not in v for v in postings.values())
        # an index without counts (built before they were kept) is counted once
        client.alter_collection_properties(first.collection, properties={ps.MESH_COUNTS_PROPERTY: ""})
        assert ps.read_mesh_counts(client.describe_collection(first.collection)) is None
        assert ensure_counts(client, first.collection) is True
        assert ps.read_mesh_counts(client.describe_collection(first.collection)) == stored
        assert ensure_counts(client, first.collection) is False
    finally:
        client.close()


def test_count_mesh_command_counts_an_index_built_before_counts(tmp_path, embedder):
    """`biorag index count-mesh` gives an old index (no counts property) the counts the
    exact path needs; a second run leaves them, --force recounts."""
    from typer.testing import CliRunner

    from cli.main import app

    settings = settings_for(tmp_path)
    rows = sample_rows(8, start=200)
    report = build_index(settings, [write_jsonl(tmp_path / "rows.jsonl", rows)], progress=False, embedder=embedder)
    assert report.ok
    client = open_store(settings.milvus_uri)
    try:
        client.alter_collection_properties(report.collection, properties={ps.MESH_COUNTS_PROPERTY: ""})
    finally:
        client.close()
    env = {"BIORAG_DATA_DIR": str(tmp_path)}
    runs = [CliRunner().invoke(app, ["index", "count-mesh", *extra, "--json"], env=env) for extra in ([], [], ["--force"])]
    assert all(r.exit_code == 0 for r in runs), [r.output for r in runs]
    first, again, forced = (json.loads(r.stdout[r.stdout.index("{"):]) for r in runs)
    assert (first["counted"], again["counted"], forced["counted"]) == (True, False, True)
    expected = mesh_counts(rows)
    assert first["collection"] == report.collection and first["descriptors"] == len(expected)
    assert first["exact_path_descriptors"] == sum(1 for n in expected.values() if n <= settings.index.exact_filter_rows)
    client = open_store(settings.milvus_uri)
    try:
        assert ps.read_mesh_counts(client.describe_collection(report.collection)) == dict(expected)
    finally:
        client.close()
    text = CliRunner().invoke(app, ["index", "count-mesh"], env=env)
    assert text.exit_code == 0 and "already counted" in text.output
    none = CliRunner().invoke(app, ["index", "count-mesh"], env={"BIORAG_DATA_DIR": str(tmp_path / "empty")})
    assert none.exit_code != 0 and "biorag index build" in none.output
