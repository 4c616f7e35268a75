"""The Python BERT pre-tokenizer gives the real tokenizer's ids, text by text: on real
abstracts, on random strings of awkward characters, with the bundled tokenizer and with
variants of its normalizer, and when its word cache starts again."""

from __future__ import annotations

import json
import random

import pytest
from index_helpers import sample_rows

from biorag.ml.embedder import BUNDLED, model_path
from indexing import bert_pretokenize, encode
from indexing.encode import tokenize, tokenizer_spec


@pytest.fixture(scope="module")
def spec():
    s = tokenizer_spec(model_path(BUNDLED))
    assert s is not None
    return s


def abstracts(n: int = 400) -> list[str]:
    return [f"{r['title']}\n{r['abstract']}".strip() for r in sample_rows(n)]


def variant(spec, max_length: int, **normalizer):
    """The bundled tokenizer with its normalizer's options changed."""
    from tokenizers import Tokenizer

    cfg = json.loads(spec.load().to_str())
    cfg["normalizer"].update(normalizer)
    tok = Tokenizer.from_str(json.dumps(cfg))
    tok.no_padding()
    tok.enable_truncation(max_length)
    return tok


# characters that each normalizer step treats differently, and some no step handles here
AWKWARD = list(
    "aZ09 .,;:!?'\"()[]{}#%&*+-/<=>@\\^_`|~$"  # ASCII punctuation, isolated
    "\t\n\r\x00\x01\x0b\x0c\x1c\x1f\x7f\x85\xa0\xad"  # controls, odd whitespace, soft hyphen
    "éÉüÖçñåøßÆœĳ"  # accents stripped, ligatures kept
    "αβγΣσςΔμΩάέ"  # Greek, capital sigma, tonos
    "\u0301\u0308\u200b\u200d\u2009\u2013\u2014\u2018\u2019\u201c\u2026\u2032\u2122\u00b1\u00b0\u00b5\u00d7"
    "≤≥→∼⩽\ufeff＜Ａ"  # maths, BOM, full-width
    "中文한\u3000😀\U0001f9ec"  # CJK (BERT pads it), Hangul, emoji: the real path
) + ["[SEP]", "[sep]", "[MASK]", "##", "x" * 120, "IL-6", "TNF-α", "p < 0.05"]


def fuzz(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(AWKWARD) for _ in range(rng.randint(0, 40))) for _ in range(n)]


def real_ids(tok, texts):
    return [e.ids for e in tok.encode_batch(texts)]


def test_real_abstracts_take_the_fast_path_with_the_same_ids(spec):
    tok = spec.load()
    fast = bert_pretokenize.for_tokenizer(tok)
    assert fast is not None
    texts = [t.lower() for t in abstracts()]
    got = fast.encode(texts)
    taken = [i for i, x in enumerate(got) if x is not None]
    assert len(taken) >= 0.95 * len(texts)
    want = real_ids(tok, texts)
    assert [got[i] for i in taken] == [want[i] for i in taken]
    assert any(len(want[i]) == spec.max_length for i in taken)  # truncated texts among them
    # what abstracts are made of passes the character check (accents, Greek, units, dashes)
    assert set("éüçαβμ±°µ\u2013\u2019×≤\xa0") <= fast.safe
    assert not set("中😀") & fast.safe


@pytest.mark.parametrize(
    "normalizer",
    [{}, {"lowercase": False}, {"lowercase": False, "strip_accents": True}, {"clean_text": False},
     {"strip_accents": False}],
    ids=["bundled", "cased", "cased-stripped", "unclean", "accents-kept"],
)
def test_random_awkward_strings_give_the_real_ids(spec, normalizer):
    tok = variant(spec, 24, **normalizer)
    fast = bert_pretokenize.for_tokenizer(tok)
    assert fast is not None
    texts = fuzz(3000, seed=7) + AWKWARD
    got = fast.encode(texts)
    want = real_ids(tok, texts)
    mismatched = [(t, g, w) for t, g, w in zip(texts, got, want, strict=True) if g is not None and g != w]
    assert not mismatched, mismatched[:3]
    taken = sum(g is not None for g in got)
    assert 0.1 * len(texts) < taken < len(texts)  # both paths ran
    assert encode._encode(tok, texts) == want


def test_the_word_cache_starting_again_changes_no_id(spec, monkeypatch):
    monkeypatch.setattr(bert_pretokenize, "WORD_CACHE", 50)
    tok = spec.load()
    fast = bert_pretokenize.for_tokenizer(tok)
    texts = [t.lower() for t in abstracts(60)]
    for start in range(0, len(texts), 7):
        batch = texts[start : start + 7]
        assert fast.encode(batch) == real_ids(tok, batch)
        # emptied before a batch that would pass the limit: then it holds that batch's words only
        distinct = {w for t in batch for w in fast.prepare(t).split()}
        assert len(fast._pieces) <= max(50, len(distinct))


def test_tokenize_gives_the_real_ids_on_the_fast_path(spec):
    texts = abstracts(120) + ["  Title\n\nAn abstract with [SEP] in it.  ", "ΣΑΣ ΕΣ", ""]
    tok = spec.load()
    assert not spec.lower  # the bundled model lowercases in its normalizer: "[SEP]" stays a special token
    want = real_ids(spec.load(), [t.strip() for t in texts])
    assert tok.token_to_id("[SEP]") in want[-3][1:-1]
    assert tokenize(tok, spec, texts) == want
    assert encode._FAST[id(tok)][1] is not None  # the fast path was in use


@pytest.mark.parametrize("change", [{"pre_tokenizer": {"type": "Whitespace"}}, {"normalizer": {"type": "Lowercase"}}])
def test_other_tokenizers_are_left_to_the_library(spec, change):
    from tokenizers import Tokenizer

    cfg = json.loads(spec.load().to_str())
    cfg.update(change)
    assert bert_pretokenize.for_tokenizer(Tokenizer.from_str(json.dumps(cfg))) is None
    assert bert_pretokenize.for_tokenizer(object()) is None
