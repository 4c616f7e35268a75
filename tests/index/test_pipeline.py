"""The build pipeline's parts on real records: reader processes keep input order whatever
their number, a dead reader fails fast, and the token-id encoder gives the vectors of
`SentenceTransformer.encode` (the real bundled model)."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
from index_helpers import SAMPLE, sample_rows

from biorag.contracts.errors import ToolError
from biorag.ml.embedder import Embedder, model_path
from indexing import encode
from indexing.encode import TokenEncoder, tokenize, tokenizer_spec
from indexing.pipeline import ReaderPool
from indexing.split import split_pubmed_xml


def stream(files, workers, batch=16, spec=None):
    pool = ReaderPool(files, {}, 40, spec, batch, workers).start()
    try:
        out = []
        for m in pool.messages():
            out.append((m.kind, [r.pmid for r in m.records], m.pmids, [(m_.file.name, m_.items, m_.done) for m_ in m.marks]))
            if m.tokens is not None:
                assert len(m.tokens) == len(m.records)
        return out, pool.stats
    finally:
        pool.close()


def flat(msgs):
    """(kind, pmid) in the order the consumer sees them: what the store applies."""
    return [(k, p) for k, recs, dels, _ in msgs for p in (recs if k == "batch" else dels)]


def test_reader_processes_keep_input_order_with_deletes(tmp_path):
    # an update file in the old MEDLINE format: 604 citations and a DeleteCitation block,
    # split so that the block lands in a later part than some citations
    parts = split_pubmed_xml(SAMPLE / "medline16n0902.xml.gz", tmp_path, 5)
    ref, ref_stats = stream(parts, workers=0)
    assert ("delete" in {k for k, *_ in ref}) and ref_stats.kept > 300
    for workers in (1, 3):
        got, stats = stream(parts, workers=workers)
        assert flat(got) == flat(ref), workers
        assert (stats.read, stats.kept, stats.dropped) == (ref_stats.read, ref_stats.kept, ref_stats.dropped)
        # every file ends exactly once, in input order
        ends = [f for *_, marks in got for f, _, done in marks if done]
        assert ends == [p.name for p in parts]


def test_a_dead_reader_process_fails_fast_with_one_line(tmp_path):
    parts = split_pubmed_xml(SAMPLE / "medline16n0902.xml.gz", tmp_path, 2)
    pool = ReaderPool(parts, {}, 40, None, 4, workers=2).start()
    try:
        os.kill(pool.procs[1].pid, signal.SIGKILL)
        with pytest.raises(ToolError, match=r"reader index-reader-1 \(reading .*\) stopped unexpectedly \(exit code -9\)"):
            for _ in pool.messages():
                pass
    finally:
        pool.close()
    assert not any(p.is_alive() for p in pool.procs)


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


@pytest.mark.parametrize("chars_per_token", [encode.CUT_CHARS_PER_TOKEN, 4, 1])
def test_prefix_tokenization_gives_the_ids_of_whole_texts(embedder, monkeypatch, chars_per_token):
    # a prefix that falls short of max_length (4 and 1 characters per token cut most abstracts
    # too short) must be tokenized whole; the default cut must not change a single id
    texts = [f"{r['title']}\n{r['abstract']}".strip() for r in sample_rows(100)]
    spec = tokenizer_spec(model_path(embedder.name))
    whole = [e.ids for e in spec.load().encode_batch(texts)]
    monkeypatch.setattr(encode, "CUT_CHARS_PER_TOKEN", chars_per_token)
    calls = []
    tok = spec.load()

    class Recording:  # the real tokenizer, recording how many texts each call is given
        def encode_batch(self, batch):
            calls.append(len(batch))
            return tok.encode_batch(batch)

    assert tokenize(Recording(), spec, texts) == whole
    cut = sum(len(t) > chars_per_token * spec.max_length for t in texts)
    assert cut > 0  # the cut applied to some real abstracts
    assert calls[0] == len(texts) and (len(calls) == 2) == (chars_per_token < 4 + 1)


def test_sorted_batches_pad_length_sorted_rows_and_keep_the_order():
    order, batches = encode.sorted_batches([[5, 6, 7], [], [8], [9, 10]], batch_size=3, pad_id=0)
    assert order == [1, 2, 3, 0]
    ids, lengths = batches[0]
    assert ids.tolist() == [[0, 0], [8, 0], [9, 10]] and lengths.tolist() == [1, 1, 2]
    assert ids.dtype == lengths.dtype == np.int32  # a quarter of int64 ids and mask to pickle and copy
    assert [b[0].tolist() for b in batches[1:]] == [[[5, 6, 7]]]
    assert encode.pad_ids([[5, 6], [7]])[1].tolist() == [[1, 1], [1, 0]]


def test_token_ids_and_vectors_match_the_library_path(embedder):
    texts = [f"{r['title']}\n{r['abstract']}".strip() for r in sample_rows(24, start=40)]
    texts.append("  Short title\nshort abstract, padded with spaces.  ")
    spec = tokenizer_spec(model_path(embedder.name))
    assert spec is not None and spec.max_length == 256
    ids = tokenize(spec.load(), spec, texts)
    model = embedder.doc_encoder.model
    st = model.tokenize(texts)
    for i, row in enumerate(ids):
        assert st["input_ids"][i][st["attention_mask"][i].bool()].tolist() == row
    assert max(len(x) for x in ids) == 256 > min(len(x) for x in ids)  # truncated, and of mixed length
    ref = embedder.embed_documents(texts)
    got = TokenEncoder(model, batch_size=8).encode(ids)
    assert got.shape == ref.shape and got.dtype == np.float32
    assert float((got * ref).sum(axis=1).min()) >= 0.9999
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
