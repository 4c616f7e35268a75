"""The GPU entry point's CPU path (no GPU here): it runs with only torch, transformers and
pyarrow importable (the package itself, lxml, pymilvus and sentence-transformers blocked),
on real abstracts from XML and from Parquet, repeats the corpus and prints both rates; with
the package installed its options come from the settings tree; and its pooled transformers
encoder gives the vectors of the library path."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from index_helpers import ROOT, SAMPLE, sample_rows

from biorag.ml.embedder import Embedder, model_path
from indexing import gpu_embed
from indexing.encode import TokenEncoder, tokenize, tokenizer_spec
from indexing.reader import read_file
from tests.blocked_imports import run_without

BLOCKED = {"biorag", "lxml", "pymilvus", "sentence_transformers", "pydantic", "unstructured", "milvus_lite"}
RUN = """
    import json
    from indexing import gpu_embed
    a = gpu_embed.parse_args(sys.argv[1:])
    r = gpu_embed.run(a)
    r["imported"] = sorted({m.split(".")[0] for m in sys.modules} & BLOCKED)
    print(json.dumps(r))
    """


def run_blocked(*args: str) -> dict:
    proc = run_without(BLOCKED, RUN, *args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def with_abstracts(path) -> int:
    return sum(1 for r in read_file(path) if getattr(r, "abstract", ""))


def test_runs_without_the_package_on_xml_and_parquet(tmp_path):
    tok_dir = model_path("all-MiniLM-L6-v2")
    xml = SAMPLE / "pubmed_0_to_99.xml.gz"
    r = run_blocked("--input", str(xml), "--arch", "tiny", "--tokenizer", tok_dir, "--min-seconds", "1.5",
                    "--workers", "1", "--raw-sample", "32")
    assert r["imported"] == []  # only torch, transformers, pyarrow (and numpy, tokenizers) were needed
    assert r["texts"] == with_abstracts(xml) > 50
    assert r["passes"] >= 1 and r["embedded"] == r["passes"] * r["texts"] and r["seconds"] >= 1.5
    assert r["device"].startswith("cpu float32") and r["raw_per_s"] > 0 and r["end_to_end_per_s"] > 0
    assert r["ratio"] == pytest.approx(r["end_to_end_per_s"] / r["raw_per_s"], rel=0.01)
    assert r["max_tokens"] == 256  # truncated like the model's tokenizer

    rows = sample_rows(40)
    shard = tmp_path / "s.parquet"
    pq.write_table(pa.table({"pmid": [x["pmid"] for x in rows], "title": [x["title"] for x in rows],
                             "abstract": [x["abstract"] for x in rows]}), shard)
    r = run_blocked("--input", str(tmp_path), "--arch", "tiny", "--tokenizer", tok_dir, "--min-seconds", "0",
                    "--workers", "2", "--raw-sample", "16", "--max-texts", "30")
    assert r["texts"] == 30 and r["passes"] == 1 and r["embedded"] == 30 and r["imported"] == []


def test_without_the_package_a_model_flag_is_required():
    proc = run_without(BLOCKED, RUN, "--input", str(SAMPLE), timeout=300)
    assert proc.returncode == 2 and "give --model DIR" in proc.stderr


def test_options_come_from_the_settings_tree_when_installed(monkeypatch):
    monkeypatch.setenv("BIORAG_INDEX__BATCH_SIZE", "24")
    a = gpu_embed.parse_args(["--input", str(SAMPLE)])
    assert a.model == model_path("all-MiniLM-L6-v2") and a.default_batch == 24 and a.device == "auto"
    assert gpu_embed.parse_args(["--input", str(SAMPLE), "--device", "cpu"]).device == "cpu"  # flags win


def test_pooled_transformers_encoder_matches_the_library_vectors():
    texts = [f"{r['title']}\n{r['abstract']}".strip() for r in sample_rows(12, start=5)]
    a = gpu_embed.parse_args(["--input", str(SAMPLE), "--device", "cpu"])
    model, device, dtype, what = gpu_embed.load_model(a)
    assert device.type == "cpu" and "weights" in what
    spec = tokenizer_spec(a.model)
    got = TokenEncoder(model, batch_size=5).encode(tokenize(spec.load(), spec, texts))
    ref = Embedder().embed_documents(texts)
    assert float((got * ref).sum(axis=1).min()) >= 0.9999


def test_xml_reader_reads_real_citations_only_with_abstracts(tmp_path):
    xml = SAMPLE / "medline16n0902.xml.gz"  # the old MEDLINE format, with a DeleteCitation block
    texts = gpu_embed.read_texts([str(xml)])
    assert len(texts) == with_abstracts(xml) > 300
    plain = tmp_path / "a.xml"
    plain.write_bytes(gzip.decompress(xml.read_bytes()))
    assert gpu_embed.read_texts([str(plain)], max_texts=7) == texts[:7]
    assert all(t.strip() and "\n" in t for t in texts[:50])
    assert np.mean([len(t) for t in texts]) > 500


def test_random_shapes_match_the_real_models():
    from transformers import AutoModel

    real = AutoModel.from_pretrained(model_path("all-MiniLM-L6-v2"), local_files_only=True)
    shaped, pooling, what = gpu_embed.build_encoder("minilm-l6")
    assert pooling == "mean" and "randomly initialised" in what
    assert [(n, p.shape) for n, p in shaped.named_parameters()] == [(n, p.shape) for n, p in real.named_parameters()]
    base, _, _ = gpu_embed.build_encoder("bert-base")
    assert round(sum(p.numel() for p in base.parameters()) / 1e6, 1) == 109.5  # BERT-base, PubMedBERT's shape


def test_shipped_tokenizer_files_tokenize_as_the_bundled_model():
    shipped = tokenizer_spec(ROOT / "benchmarks" / "device" / "minilm_tokenizer")
    bundled = tokenizer_spec(model_path("all-MiniLM-L6-v2"))
    assert shipped is not None and (shipped.max_length, shipped.lower) == (bundled.max_length, bundled.lower) == (256, False)
    texts = gpu_embed.read_texts([str(SAMPLE / "pubmed_0_to_99.xml.gz")], max_texts=40)
    assert tokenize(shipped.load(), shipped, texts) == tokenize(bundled.load(), bundled, texts)


def test_xml_reader_reads_exports_without_a_root_element(tmp_path):
    # some real efetch exports hold bare <PubmedArticle> elements (shared/data's PROVENANCE names one)
    xml = SAMPLE / "pubmed_0_to_99.xml.gz"
    text = gzip.decompress(xml.read_bytes()).decode()
    body = text[text.index(">", text.index("<PubmedArticleSet")) + 1 : text.rindex("</PubmedArticleSet>")]
    rootless = tmp_path / "bare.xml"
    rootless.write_text('<?xml version="1.0" encoding="UTF-8"?>\n' + body)
    assert gpu_embed.read_records([str(rootless)]) == gpu_embed.read_records([str(xml)])
    broken = tmp_path / "cut.xml"
    broken.write_text(text[: len(text) // 2])
    with pytest.raises(SystemExit, match="cut.xml: not well-formed XML"):
        gpu_embed.read_records([str(broken)])


def test_raw_rate_times_the_forward_alone_on_length_sorted_batches():
    a = gpu_embed.parse_args(["--input", str(SAMPLE), "--arch", "tiny", "--device", "cpu"])
    model, *_ = gpu_embed.load_model(a)
    seen = []

    class Counting:  # the real tiny encoder, recording the batch widths it is given
        def parameters(self):
            return model.parameters()

        def forward(self, feats):
            seen.append(tuple(feats["input_ids"].shape))
            return model.forward(feats)

    spec = tokenizer_spec(a.model)
    ids = tokenize(spec.load(), spec, gpu_embed.read_texts([str(SAMPLE / "pubmed_0_to_99.xml.gz")], max_texts=20))
    assert TokenEncoder(Counting(), batch_size=8).raw_rate(ids) > 0
    widths = sorted(len(x) for x in ids)
    assert seen == [(4, widths[-1]), (8, widths[7]), (8, widths[15]), (4, widths[-1])]  # warm-up, then the sample once


def test_a_repeated_chunk_meets_a_word_cache_without_its_words(monkeypatch):
    # the benchmark repeats its corpus; a build never tokenizes an abstract twice, so a chunk
    # seen before is tokenized after the process forgets its cached words, with the same ids
    from indexing import encode

    spec = tokenizer_spec(model_path(Embedder().name))
    for name, value in (("_SEEN", set()), ("_TOK", None), ("_SPEC", None)):
        monkeypatch.setattr(gpu_embed, name, value)  # restored after the test, as is the variable below
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    gpu_embed._init_tokenizer(spec)
    texts = [f"{r['title']}\n{r['abstract']}".strip() for r in sample_rows(30)]
    first = gpu_embed._batched_chunk(texts[:15], 8, chunk=0)
    fast = encode._FAST[id(gpu_embed._TOK)][1]
    assert fast is not None and len(fast._pieces) > 100
    gpu_embed._batched_chunk(texts[15:], 8, chunk=1)
    grown = len(fast._pieces)
    again = gpu_embed._batched_chunk(texts[:15], 8, chunk=0)
    assert len(fast._pieces) < grown  # emptied, then refilled with chunk 0's words only
    assert again[0] == first[0] and len(again[1]) == len(first[1])
    for (ids, mask), (ids0, mask0) in zip(again[1], first[1], strict=True):
        assert (ids == ids0).all() and (mask == mask0).all()
