"""The micro-batcher behind concurrent searches, and the query-embedding LRU."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from biorag.ml.embedder import Embedder, QueryCache
from biorag.ml.microbatch import MicroBatcher


class SlowSquare:
    """A batch function with a fixed cost per call (like an embedding or a Milvus call)."""

    def __init__(self, cost_s: float = 0.03):
        self.cost_s = cost_s
        self.calls: list[list[int]] = []
        self.lock = threading.Lock()

    def __call__(self, items: list[int]) -> list:
        time.sleep(self.cost_s)
        with self.lock:
            self.calls.append(list(items))
        return [ValueError(f"bad item {x}") if x < 0 else x * x for x in items]


def _hammer(batcher: MicroBatcher, items: list[int]) -> dict[int, object]:
    out: dict[int, object] = {}
    start = threading.Barrier(len(items))

    def one(x: int) -> None:
        start.wait()
        try:
            out[x] = batcher(x)
        except ValueError as e:
            out[x] = e

    threads = [threading.Thread(target=one, args=(x,)) for x in items]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return out


def test_concurrent_callers_share_calls_and_get_their_own_results():
    fn = SlowSquare()
    b = MicroBatcher(fn, workers=2, max_wait_s=0.005)
    items = list(range(1, 17))
    out = _hammer(b, items)
    b.close()
    assert out == {x: x * x for x in items}  # same results as one at a time
    assert sum(len(c) for c in fn.calls) == 16
    assert len(fn.calls) < 16 and max(len(c) for c in fn.calls) > 1  # it really batched
    assert b.stats.items == 16 and b.stats.batches == len(fn.calls)


def test_one_bad_item_fails_only_its_caller():
    fn = SlowSquare()
    b = MicroBatcher(fn, workers=1)
    out = _hammer(b, [3, -1, 4, 5])
    b.close()
    assert isinstance(out[-1], ValueError) and out[3] == 9 and out[4] == 16 and out[5] == 25


def test_batch_function_crash_fails_every_item_of_the_batch():
    def boom(items):
        raise RuntimeError("store down")

    b = MicroBatcher(boom, workers=1)
    with pytest.raises(RuntimeError, match="store down"):
        b(1)
    b.close()


def test_a_lone_caller_does_not_wait_for_companions():
    fn = SlowSquare(cost_s=0.0)
    b = MicroBatcher(fn, workers=2, max_wait_s=0.5)  # a wait would be obvious
    t = time.perf_counter()
    for x in range(5):
        assert b(x) == x * x
    b.close()
    assert time.perf_counter() - t < 0.5  # five calls, none waited 0.5 s
    assert [len(c) for c in fn.calls] == [1] * 5


def test_closed_batcher_refuses_new_work():
    b = MicroBatcher(SlowSquare(0.0), workers=1)
    assert b(2) == 4
    b.close()
    with pytest.raises(RuntimeError, match="closed"):
        b.submit(3)


def test_query_cache_evicts_least_recently_used():
    c = QueryCache(2)
    c.put_many({"a": np.ones(3, np.float32), "b": np.zeros(3, np.float32)})
    assert set(c.get_many(["a"])) == {"a"}  # a is now the most recent
    c.put_many({"c": np.ones(3, np.float32)})
    assert set(c.get_many(["a", "b", "c"])) == {"a", "c"}
    assert c.hits == 3 and c.misses == 1


def test_repeated_queries_hit_the_embedding_cache():
    emb = Embedder(query_cache=8)
    calls: list[list[str]] = []
    real = emb._encode_queries

    def counting(enc, texts):
        calls.append(list(texts))
        return real(enc, texts)

    emb._encode_queries = counting
    first = emb.embed_queries(["amyloid plaques", "tau tangles", "amyloid plaques"])
    assert calls == [["amyloid plaques", "tau tangles"]]  # one call, a duplicate encoded once
    again = emb.embed_query("tau tangles")
    assert len(calls) == 1 and emb.query_cache.hits >= 1  # served from the cache
    np.testing.assert_array_equal(again, first[1])
    np.testing.assert_array_equal(first[0], first[2])
    fresh = Embedder(query_cache=0).embed_query("tau tangles")  # the same vector, computed anew
    np.testing.assert_allclose(fresh, again, atol=1e-5)


def test_workers_do_not_keep_the_owner_alive():
    import gc
    import weakref

    import biorag.ml.microbatch as mb

    class Owner:
        def __init__(self):
            self.batcher = MicroBatcher(self.run, workers=2)

        def run(self, items):
            return [x + 1 for x in items]

    old, mb.IDLE_CHECK_S = mb.IDLE_CHECK_S, 0.05
    try:
        owner = Owner()
        assert owner.batcher(1) == 2
        threads = list(owner.batcher._threads)
        gone = weakref.ref(owner)
        del owner
        gc.collect()
        assert gone() is None  # the worker threads did not hold it
        for t in threads:
            t.join(5)
        assert not any(t.is_alive() for t in threads)  # and they ended
    finally:
        mb.IDLE_CHECK_S = old


def _closed_loop(b: MicroBatcher, rounds: int, clients: int, late_s: float = 0.0) -> None:
    """`clients` threads, each sending its next item as soon as the last came back, for
    `rounds` rounds; with `late_s`, the second half starts that much later (during the first
    call, as clients do). Every caller must get its own results."""
    results: dict[int, list] = {c: [] for c in range(clients)}

    def client(c: int) -> None:
        for r in range(rounds):
            results[c].append(b(c * 100 + r))

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    for t in threads[: clients // 2]:
        t.start()
    time.sleep(late_s)
    for t in threads[clients // 2:]:
        t.start()
    for t in threads:
        t.join(30)
    b.close()
    assert results == {c: [(c * 100 + r) ** 2 for r in range(rounds)] for c in range(clients)}


def test_a_closed_loop_of_callers_meets_in_one_batch():
    """Four clients that each send their next item as soon as the last came back share one
    call a round. Half of them start while the first call runs (as clients do): a worker
    that took the queue the moment it was free, or waited only from the oldest queued
    item's arrival (long past after a call that outlasts the wait bound), settled into two
    halves taking turns (2, 2, 2, ...): the half whose results had just gone out came back
    a moment too late."""
    fn = SlowSquare(cost_s=0.06)  # a call outlasts the wait bound
    rounds, clients = 8, 4
    _closed_loop(MicroBatcher(fn, workers=1, max_wait_s=0.03), rounds, clients, late_s=0.015)
    sizes = [len(c) for c in fn.calls]
    assert sum(sizes) == rounds * clients
    # after at most three calls to settle, every round is one call holding all four
    assert sizes.count(clients) >= rounds - 3, sizes


def test_a_lone_caller_after_a_burst_waits_once_at_most():
    fn = SlowSquare(cost_s=0.0)
    b = MicroBatcher(fn, workers=1, max_wait_s=0.3)
    out = _hammer(b, list(range(8)))  # a burst: the last batch had company
    assert out == {x: x * x for x in range(8)}
    t = time.perf_counter()
    for x in range(5):
        assert b(x) == x * x
    b.close()
    # the first lone call may wait for the companions the burst promised; the next ones run
    # at once (five waits would take 1.5 s)
    assert time.perf_counter() - t < 0.9
    assert [len(c) for c in fn.calls][-4:] == [1] * 4


@pytest.mark.parametrize("sets, want", [([], 0.003), (["index.batch_wait_ms=0"], 0.0), (["index.batch_wait_ms=7.5"], 0.0075)])
def test_the_search_batchers_wait_is_the_setting(tmp_path, sets, want):
    """index.batch_wait_ms reaches the PubMed retriever's batcher (nothing is opened)."""
    from biorag.settings import load_settings
    from retrievers.pubmed.retriever import PubMedRetriever

    r = PubMedRetriever.from_settings(load_settings("embedded", sets=[f"data_dir={tmp_path}", *sets]))
    assert r.batcher.max_wait_s == pytest.approx(want)
    r.close()


class Overlap(SlowSquare):
    """SlowSquare that also records how many calls ran at once."""

    def __init__(self, cost_s: float):
        super().__init__(cost_s)
        self.running = self.most = 0

    def __call__(self, items: list[int]) -> list:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            return super().__call__(items)
        finally:
            with self.lock:
                self.running -= 1


def test_two_workers_deal_a_closed_loop_into_batches_that_run_side_by_side():
    """A server whose torch threads leave a core per worker: four clients become two calls
    of two running at once (with one worker they would be one call of four, shown above)."""
    fn = Overlap(cost_s=0.1)
    rounds, clients = 8, 4
    _closed_loop(MicroBatcher(fn, workers=2, max_wait_s=0.05), rounds, clients)
    sizes = [len(c) for c in fn.calls]
    assert sum(sizes) == rounds * clients
    # dealt out, not one call of four a round (a busy machine may delay a client past the
    # wait now and then: a call of 1 or 3, or of 4, must stay the exception)
    assert sizes.count(clients) <= 2 and len(sizes) >= 2 * rounds - 2, sizes
    assert fn.most == 2  # and calls ran at once


def test_one_worker_per_core_that_torch_leaves_free():
    """In a fresh process: torch with every core -> one worker (the CLI); one thread each
    -> a worker per core (`biorag serve` on small machines)."""
    import subprocess
    import sys

    code = ("import torch\n"
            "from biorag.host.device import available_cores\n"
            "from retrievers.pubmed.retriever import encoder_workers\n"
            "torch.set_num_threads(available_cores()); a = encoder_workers()\n"
            "torch.set_num_threads(1); b = encoder_workers()\n"
            "print(a, b, available_cores())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    every_core, one_thread, cores = map(int, out.stdout.split())
    assert (every_core, one_thread) == (1, cores)


def test_query_encoding_from_several_threads_at_once_gives_the_same_vectors():
    """Query calls are not serialised (only the tokenizer is): the vectors must not depend
    on what else is encoding at the same time."""
    from concurrent.futures import ThreadPoolExecutor

    emb = Embedder(query_cache=0)
    texts = [f"{w} in Alzheimer disease" for w in ("amyloid", "tau", "microglia", "APOE", "synapses", "insulin")]
    batches = [texts[i:i + 2] for i in range(0, len(texts), 2)] * 4
    alone = [emb.embed_queries(b) for b in batches]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(emb.embed_queries, batches))
    for a, t in zip(alone, together, strict=True):
        np.testing.assert_allclose(a, t, atol=1e-6)
    # and they are the model's own encoding (sentence-transformers' encode, normalised)
    ref = emb.query_encoder.model.encode(texts[:2], normalize_embeddings=True, convert_to_numpy=True)
    assert float((alone[0] * ref).sum(axis=1).min()) > 0.995


def test_a_models_default_prompt_goes_before_queries_as_encode_puts_it():
    """A model configured with a default prompt (E5-style "query: ") gets it on the query
    path too, or queries would not meet the documents the way the model was trained."""
    emb = Embedder(query_cache=0)
    model = emb.query_encoder.model
    saved = dict(model.prompts), model.default_prompt_name
    try:
        model.prompts = {**model.prompts, "query": "query: "}
        model.default_prompt_name = "query"
        ours = emb.embed_queries(["amyloid plaques in the hippocampus"])[0]
        ref = model.encode(["amyloid plaques in the hippocampus"], normalize_embeddings=True, convert_to_numpy=True)[0]
        bare = model.encode(["amyloid plaques in the hippocampus"], normalize_embeddings=True, convert_to_numpy=True,
                            prompt="")[0]
    finally:
        model.prompts, model.default_prompt_name = saved
    assert float(ours @ ref) > 0.995 and float(ours @ ref) > float(ours @ bare) + 0.001
