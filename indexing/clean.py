"""Text cleaning and quality filters for PubMed records.

Cleaning (the record is kept, its title/abstract rewritten): broken unicode (mojibake,
replacement and control characters, via `unstructured`'s `replace_unicode_quotes` plus a
cp1252/latin-1 round-trip repair), markup and escaped tags, hyperlinks, table/figure
remnants (parenthesised "Fig. 2"/"Table 1" references, numeric table rows), extra
whitespace (`unstructured`'s `clean_extra_whitespace`, per line so labelled abstract
sections stay on their own lines).

Filters (the record is dropped and counted under one reason, the first that applies):
`retracted`, `no_abstract`, `gibberish`, `non_english`, `too_short`.
"""

from __future__ import annotations

import html
import os
import re
import unicodedata
from collections import Counter
from dataclasses import replace

from indexing.records import PubmedRecord

os.environ.setdefault("DO_NOT_TRACK", "1")  # unstructured phones home on import otherwise
os.environ.setdefault("SCARF_NO_ANALYTICS", "1")

DROP_REASONS = ("retracted", "no_abstract", "gibberish", "non_english", "too_short")

_MOJIBAKE_RE = re.compile("[\u00c2\u00c3][\u0080-\u00bf]|\u00e2[\u0080-\u00bf\u20ac\u201a-\u201e\u2018-\u201d\u2122]")
_CONTROL_RE = re.compile("[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd\u200b-\u200f\u2028\u2029\ufeff]")
_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(\s+[^<>]*)?/?>")
_URL_RE = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>()\[\]]+[^\s<>()\[\].,;:]", re.I)
_FIGREF_RE = re.compile(
    r"\s*[\(\[]\s*(?:see\s+)?(?:fig(?:ure)?s?|tables?|supplementary\s+(?:fig(?:ure)?|table)s?)\.?\s*"
    r"[A-Z]?\d+[A-Za-z]?(?:\s*(?:[-,–]|and)\s*[A-Z]?\d*[A-Za-z]?)*\s*[\)\]]",
    re.I,
)
_ENGLISH_FUNCTION_WORDS = frozenset(
    "the of and in to a is was with for that by were on as are from at be this an or which we "
    "these not have has been than between patients study results all but their it its".split()
)
_WORD_RE = re.compile(r"[^\W\d_]+", re.UNICODE)
_REPEAT_RE = re.compile(r"(.)\1{7,}")


def _unstructured():
    from unstructured.cleaners import core

    return core


def fix_unicode(text: str) -> str:
    """Repair UTF-8 read as cp1252/latin-1 ("Ã©" -> "é"), curly-quote mojibake, and drop
    replacement/control/zero-width characters; NFC-normalise."""
    if _MOJIBAKE_RE.search(text):
        for enc in ("cp1252", "latin-1"):
            try:
                fixed = text.encode(enc).decode("utf-8")
            except (UnicodeEncodeError, UnicodeDecodeError):
                continue
            text = fixed
            break
    text = _unstructured().replace_unicode_quotes(text)
    text = _CONTROL_RE.sub("", text.replace("\t", " "))
    return unicodedata.normalize("NFC", text)


def strip_markup(text: str) -> str:
    """HTML/XML tags, including escaped ones (`&lt;i&gt;`), and entities."""
    for _ in range(2):  # double-escaped markup occurs in old records
        unescaped = html.unescape(text)
        if unescaped == text:
            break
        text = unescaped
    return _TAG_RE.sub(" ", text)


def strip_links(text: str) -> str:
    return _URL_RE.sub(" ", text)


def _is_table_row(line: str) -> bool:
    toks = line.split()
    if len(toks) < 4:
        return False
    numeric = sum(bool(re.fullmatch(r"[-+±]?[\d.,%]+[a-z]?|[-–±/|]", t)) for t in toks)
    return numeric / len(toks) >= 0.6


def strip_table_figure(text: str) -> str:
    """Parenthesised figure/table references and rows of a table pasted into the text."""
    text = _FIGREF_RE.sub("", text)
    return "\n".join(line for line in text.split("\n") if not _is_table_row(line))


def tidy_whitespace(text: str) -> str:
    ws = _unstructured().clean_extra_whitespace
    return "\n".join(filter(None, (ws(line).strip() for line in text.split("\n"))))


def clean_text(text: str) -> str:
    if not text:
        return ""
    return tidy_whitespace(strip_table_figure(strip_links(strip_markup(fix_unicode(text)))))


# ---- filters -----------------------------------------------------------------------------


def looks_non_english(rec: PubmedRecord, text: str) -> bool:
    """The abstract's own text decides (many non-English articles carry an English
    abstract); the article's Language field only decides for very short texts."""
    words = [w.lower() for w in _WORD_RE.findall(text)]
    if len(words) < 20:
        langs = {x.lower() for x in rec.languages if x}
        return bool(langs) and not langs & {"eng", "en", "english"}
    function_share = sum(w in _ENGLISH_FUNCTION_WORDS for w in words) / len(words)
    letters = [c for c in text if c.isalpha()]
    non_latin = sum(ord(c) > 0x24F for c in letters) / max(len(letters), 1)
    return function_share < 0.06 or non_latin > 0.3


def looks_gibberish(text: str) -> bool:
    """Character statistics: too few letters, runs of one character, words without
    vowels, or the same few words repeated."""
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return True
    if sum(c.isalpha() for c in chars) / len(chars) < 0.55:
        return True
    if _REPEAT_RE.search(text):
        return True
    words = _WORD_RE.findall(text.lower())
    if len(words) >= 20:
        vowelless = sum(len(w) > 3 and not re.search(r"[aeiouy]", w) for w in words) / len(words)
        if vowelless > 0.25:
            return True
        if len(words) >= 50 and len(set(words)) / len(words) < 0.2:
            return True
    return False


class Cleaner:
    """Cleans records and counts drops by reason (`counts`, `kept`)."""

    def __init__(self, min_words: int = 40):
        self.min_words = min_words
        self.counts: Counter[str] = Counter()
        self.kept = 0

    def reason_to_drop(self, rec: PubmedRecord) -> str | None:
        if rec.retracted or "Retracted Publication" in rec.publication_types:
            return "retracted"
        if not rec.abstract:
            return "no_abstract"
        if looks_gibberish(rec.abstract):
            return "gibberish"
        if looks_non_english(rec, rec.abstract):
            return "non_english"
        if len(rec.abstract.split()) < self.min_words:
            return "too_short"
        return None

    def __call__(self, rec: PubmedRecord) -> PubmedRecord | None:
        """The cleaned record, or None (counted under its drop reason)."""
        cleaned = replace(rec, title=clean_text(rec.title), abstract=clean_text(rec.abstract))
        reason = self.reason_to_drop(cleaned)
        if reason:
            self.counts[reason] += 1
            return None
        self.kept += 1
        return cleaned
