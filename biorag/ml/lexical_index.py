"""The lexical (BM25) side of PubMed search: an SQLite FTS5 index kept beside a collection.

Why a side file and not Milvus's own BM25 function: the embedded Milvus 2.3.5 server of the
tests has no sparse vectors, and Lite and servers older than 2.5 cannot all serve one. A
file named after the *physical* collection (`<data_dir>/lexical/<collection>.fts.sqlite`)
works on every backend and can never be out of step with the vectors: the alias points at
one physical collection, and the retriever opens the lexical file of that collection, so an
alias switch moves both at once. The build writes it with the same records it embeds.

Tokens: FTS5's `unicode61` tokenizer (case and diacritics folded) with the Porter stemmer.
Scores: FTS5's `bm25()` (k1 1.2, b 0.75), title weighted as `TITLE_WEIGHT` x the abstract.
A query is an OR of its terms (every word outside `lexical_stopwords.json`, and whole phrases
given by the caller), so a document needs to match one term, not all of them.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from biorag.knowledge.initialisms import written_initialisms
from biorag.storage.sqlite_store import build_atomically, read_build_record, write_build_record

RESOURCE = Path(__file__).parents[1] / "resources" / "lexical_stopwords.json"
SUFFIX = ".fts.sqlite"
TITLE_WEIGHT = 2.0
#: a query keeps at most this many terms (a pasted paragraph must not become a 500-way OR)
MAX_TERMS = 64
_WORD_RE = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)

SCHEMA = """
CREATE VIRTUAL TABLE docs USING fts5(pmid UNINDEXED, title, body, tokenize='porter unicode61 remove_diacritics 2');
"""


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    return frozenset(json.loads(RESOURCE.read_text())["stopwords"])


def query_words(text: str) -> list[str]:
    """The words of `text` a lexical query keeps: lower case, stopwords and one-letter words
    dropped, each once, in order."""
    stop = stopwords()
    out: dict[str, None] = {}
    for w in _WORD_RE.findall(text.casefold()):
        for part in w.split("'"):  # "Alzheimer's" -> "alzheimer" (and "s", dropped)
            if len(part) > 1 and part not in stop:
                out.setdefault(part, None)
    return list(out)


def query_terms(text: str) -> list[str]:
    """What a lexical search for `text` looks for: its words (`query_words`), then the bare
    initialisms abstracts write for a name in it that ends in a Greek letter
    ("amyloid-beta 42": aβ42, abeta42), which BM25 could not match from the words."""
    words = query_words(text)
    return words + [f for f in written_initialisms(text) if f not in words]


def match_expression(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression: the terms OR-ed, each a quoted string (a phrase when it has
    several words). Quoting makes every user character literal: no FTS5 operator, column
    filter or syntax error can come from a question."""
    seen: dict[str, None] = {}
    for t in terms:
        words = _WORD_RE.findall(t.casefold())
        if words:
            seen.setdefault(" ".join(words), None)
        if len(seen) >= MAX_TERMS:
            break
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in seen)


def path_for(root: Path, collection: str) -> Path:
    """Where the lexical index of a physical collection lives."""
    return Path(root) / "lexical" / f"{collection}{SUFFIX}"


@contextmanager
def writer(out: Path, build: dict | None = None) -> Iterator[LexicalWriter]:
    """A new lexical index at `out`, written to a temporary file and moved into place when the
    block ends without an error (nothing half-written is ever opened by a reader)."""
    with build_atomically(Path(out), SCHEMA) as con:
        w = LexicalWriter(con)
        yield w
        w.flush()
        con.execute("INSERT INTO docs(docs) VALUES ('optimize')")
        write_build_record(con, {**(build or {}), "documents": w.count})


class LexicalWriter:
    def __init__(self, con: sqlite3.Connection):
        self._con = con
        self._rows: list[tuple[str, str, str]] = []
        self.count = 0

    def add(self, pmid: str | int, title: str, body: str) -> None:
        self._rows.append((str(pmid), title or "", body or ""))
        if len(self._rows) >= 2000:
            self.flush()

    def delete(self, pmids: Iterable[str | int]) -> None:
        self.flush()
        self._con.executemany("DELETE FROM docs WHERE pmid=?", [(str(p),) for p in pmids])

    def flush(self) -> None:
        if self._rows:
            self._con.executemany("INSERT INTO docs(pmid, title, body) VALUES (?, ?, ?)", self._rows)
            self.count += len(self._rows)
            self._rows = []


def build(out: Path, docs: Iterable[tuple[str | int, str, str]], build_record: dict | None = None) -> int:
    """Write a lexical index of (pmid, title, text) triples; returns the number written."""
    with writer(out, build_record) as w:
        for pmid, title, body in docs:
            w.add(pmid, title, body)
    return w.count


class LexicalIndex:
    """Read side: BM25 top-k PMIDs for a list of terms. Thread-safe (one connection, a lock:
    a search takes milliseconds on hundreds of thousands of abstracts)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(self.path)
        self._con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self.build_record = read_build_record(self._con)

    def search(self, terms: Iterable[str], k: int) -> list[tuple[str, float]]:
        """(pmid, score) best first; the score is -bm25 (higher is better). No terms: []."""
        expr = match_expression(terms)
        if not expr or k <= 0:
            return []
        with self._lock:
            rows = self._con.execute(
                f"SELECT pmid, -bm25(docs, 0.0, {TITLE_WEIGHT}, 1.0) AS s FROM docs WHERE docs MATCH ? "
                "ORDER BY s DESC LIMIT ?", (expr, int(k))).fetchall()
        return [(str(p), float(s)) for p, s in rows]

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute("SELECT count(*) FROM docs").fetchone()[0])

    def close(self) -> None:
        self._con.close()
