"""BERT's normalizer and pre-tokenizer in Python, checked character by character against
the real tokenizer, and WordPiece once per distinct word: the same ids as the tokenizer.

Why: the build's tokenizer processes bound the embed stage on an accelerator (measured:
MiniLM on an H200 waited 13 of 30 s for tokens from 15 processes). Most of the Rust
tokenizer's time on an abstract is not WordPiece but `BertNormalizer` and
`BertPreTokenizer`, which track the alignment of every character. The same two steps as
plain string operations (C-level `str.translate`, `re.split`, `unicodedata.normalize`)
give the words; WordPiece depends on the word alone, so each distinct word is sent to the
tokenizer once and its pieces kept (`WORD_CACHE` words per process, then the cache starts
again), and a text's ids are its words' pieces between the special tokens, truncated as
the tokenizer truncates. About 4 times the rate of the tokenizer per process
(`benchmarks/tokenizer_rate.py`).

Exact, not approximate:
- Both steps act on one character at a time: a character is removed (control and format
  characters), split on (whitespace), isolated (punctuation), or kept with its NFD
  accents removed and lowercased. So the ids agree on every text when each character is
  handled as the real tokenizer handles it.
- `BertPretokenizer` builds its character table from `unicodedata` over a list of
  Unicode blocks, then tokenizes each character in five contexts both ways and keeps only
  those that agree (about 0.2 s per process). A version gap between Python's and Rust's
  Unicode data costs speed, never ids.
- A text with any other character (CJK, which BERT pads with spaces; emoji; anything not
  checked) is tokenized by the real tokenizer whole. So is a text that contains an added
  token's string such as "[SEP]", which the real tokenizer matches before normalizing.
- Capital sigma is left out: Python lowercases it by context (final ς), Rust does not.

Only a tokenizer whose normalizer is `BertNormalizer`, pre-tokenizer `BertPreTokenizer` and
model `WordPiece` qualifies (BERT, PubMedBERT, MiniLM); `for_tokenizer` returns None for
any other, and callers use the real tokenizer alone.
"""

from __future__ import annotations

import json
import re
import unicodedata

#: distinct words whose WordPiece ids a process keeps (about 200 B each); past it the cache is
#: emptied and refills with the words in use
WORD_CACHE = 300_000

#: Unicode blocks whose characters may take this path (each one verified first): Latin,
#: IPA, combining marks, Greek, Cyrillic, Latin Extended Additional, general punctuation,
#: super/subscripts, currency, letterlike symbols, number forms, arrows, mathematical
#: operators and technical symbols, enclosed alphanumerics, box and geometric shapes,
#: supplemental mathematical operators, ligatures, the byte-order mark and full-width forms
CANDIDATE_BLOCKS = (
    (0x0000, 0x02FF), (0x0300, 0x036F), (0x0370, 0x03FF), (0x0400, 0x04FF), (0x1E00, 0x1EFF),
    (0x2000, 0x206F), (0x2070, 0x209F), (0x20A0, 0x20CF), (0x2100, 0x214F), (0x2150, 0x218F),
    (0x2190, 0x21FF), (0x2200, 0x22FF), (0x2300, 0x23FF), (0x2460, 0x24FF), (0x2500, 0x25FF),
    (0x2A00, 0x2AFF), (0xFB00, 0xFB06), (0xFEFF, 0xFEFF), (0xFF01, 0xFF5E),
)
#: Python lowercases capital sigma by its context, the tokenizer does not
_CONTEXT_LOWERCASED = "\u03a3"
#: each candidate is tokenized in these contexts both ways; it is kept when all agree
_CONTEXTS = ("x{0}y", "{0}", "ab {0}{0} cd", "{0}ab", "1{0}2 ")
_ASCII_PUNCTUATION = {chr(c) for c in (*range(33, 48), *range(58, 65), *range(91, 97), *range(123, 127))}


def _char_class(chars) -> str:
    return "".join(re.escape(c) for c in sorted(chars))


class BertPretokenizer:
    """`encode(texts)` gives each text's ids as the real tokenizer would, or None for a text
    that must take the real tokenizer."""

    def __init__(self, tok, normalizer: dict, added_tokens: list[str], head: list[int], tail: list[int],
                 max_length: int | None):
        from tokenizers import Tokenizer, pre_tokenizers

        self.real = tok
        self.words = Tokenizer.from_str(tok.to_str())  # WordPiece alone: one word per call
        self.words.normalizer = None
        self.words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        self.words.no_truncation()
        self.head, self.tail = head, tail
        self.budget = None if max_length is None else max_length - len(head) - len(tail)
        self._pieces: dict[str, list[int]] = {}
        self.clean = bool(normalizer.get("clean_text", True))
        self.lower = bool(normalizer.get("lowercase", True))
        strip = normalizer.get("strip_accents")
        self.strip_accents = self.lower if strip is None else bool(strip)
        # matched case-insensitively: a token with normalized=true is matched after lowercasing
        self.added = tuple(a.lower() for a in added_tokens)
        self._added_starts = frozenset(a[0] for a in self.added if a) | frozenset(a[0].upper() for a in self.added if a)

        candidates = [chr(c) for lo, hi in CANDIDATE_BLOCKS for c in range(lo, hi + 1)]
        candidates = [c for c in candidates if unicodedata.category(c) != "Cn" and c not in _CONTEXT_LOWERCASED]
        # removed by clean_text: NUL, U+FFFD and control/format/private characters but tab, LF, CR
        self._removed = {ord(c): None for c in candidates if self.clean and self._is_removed(c)}
        self._removed_re = re.compile(f"[{_char_class(map(chr, self._removed))}]") if self._removed else None
        marks = [c for c in candidates if unicodedata.category(c) == "Mn"]
        self._marks_re = re.compile(f"[{_char_class(marks)}]")
        punct = [c for c in candidates if c in _ASCII_PUNCTUATION or unicodedata.category(c).startswith("P")]
        self._punct_re = re.compile(f"([{_char_class(punct)}])")
        self.safe = frozenset(self._verified(candidates))
        self._unsafe_re = re.compile(f"[^{_char_class(self.safe)}]")

    @staticmethod
    def _is_removed(c: str) -> bool:
        return c in "\x00\ufffd" or (unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn") and c not in "\t\n\r")

    def _normalized_words(self, text: str) -> str:
        if self._removed_re is not None and self._removed_re.search(text):
            text = text.translate(self._removed)
        if self.strip_accents and not text.isascii():
            text = self._marks_re.sub("", unicodedata.normalize("NFD", text))
        if self.lower:
            text = text.lower()
        return " ".join(self._punct_re.split(text))

    def _verified(self, candidates: list[str]) -> list[str]:
        texts = [ctx.format(c) for c in candidates for ctx in _CONTEXTS]
        real = [e.ids for e in self.real.encode_batch(texts)]
        mine = self._ids([self._normalized_words(t) for t in texts])
        n = len(_CONTEXTS)
        return [c for i, c in enumerate(candidates) if real[i * n : (i + 1) * n] == mine[i * n : (i + 1) * n]]

    def _ids(self, words: list[str]) -> list[list[int]]:
        """Ids of texts already normalized to whitespace-separated words."""
        splits = [w.split() for w in words]
        pieces = self._pieces
        distinct = {w for ws in splits for w in ws}
        missing = [w for w in distinct if w not in pieces]
        if missing:
            if len(pieces) + len(missing) > WORD_CACHE:  # start again with this batch's words
                pieces.clear()
                missing = list(distinct)
            encode = getattr(self.words, "encode_batch_fast", self.words.encode_batch)
            for w, e in zip(missing, encode(missing, add_special_tokens=False), strict=True):
                pieces[w] = e.ids
        budget, out = self.budget, []
        for ws in splits:
            ids: list[int] = []
            for w in ws:
                ids += pieces[w]
                if budget is not None and len(ids) >= budget:
                    del ids[budget:]
                    break
            out.append(self.head + ids + self.tail)
        return out

    def forget(self) -> None:
        """Empty the word cache (a benchmark repeating its corpus times unseen text so)."""
        self._pieces.clear()

    def prepare(self, text: str) -> str | None:
        """`text` as the normalizer and pre-tokenizer leave it, words separated by spaces;
        None when it holds a character not verified or an added token's string."""
        if self._unsafe_re.search(text):
            return None
        if any(s in text for s in self._added_starts):
            low = text.lower()
            if any(a in low for a in self.added):
                return None
        return self._normalized_words(text)

    def encode(self, texts: list[str]) -> list[list[int] | None]:
        words = [self.prepare(t) for t in texts]
        easy = [i for i, w in enumerate(words) if w is not None]
        out: list = [None] * len(texts)
        for i, ids in zip(easy, self._ids([words[i] for i in easy]), strict=True):
            out[i] = ids
        return out


def for_tokenizer(tok) -> BertPretokenizer | None:
    """The fast path for `tok` (a `tokenizers.Tokenizer`), or None when it is not a BERT
    WordPiece tokenizer that puts special tokens around one sequence and truncates on the
    right without padding (or not a real `tokenizers.Tokenizer` at all)."""
    try:
        cfg = json.loads(tok.to_str())
    except (AttributeError, TypeError, ValueError):
        return None
    normalizer, pre, model = cfg.get("normalizer") or {}, cfg.get("pre_tokenizer") or {}, cfg.get("model") or {}
    if (normalizer.get("type"), pre.get("type"), model.get("type")) != ("BertNormalizer", "BertPreTokenizer", "WordPiece"):
        return None
    trunc = tok.truncation
    if tok.padding is not None or (trunc is not None and (trunc.get("direction") != "right" or trunc.get("stride"))):
        return None
    # where the tokenizer puts the special tokens around a text's pieces
    bare, word = tok.encode("").ids, tok.encode("x", add_special_tokens=False).ids
    with_word = tok.encode("x").ids
    cut = next((k for k in range(len(bare) + 1) if bare[:k] + word + bare[k:] == with_word), None)
    if cut is None or not word:
        return None
    return BertPretokenizer(tok, normalizer, [a["content"] for a in cfg.get("added_tokens", [])],
                            bare[:cut], bare[cut:], trunc["max_length"] if trunc else None)
