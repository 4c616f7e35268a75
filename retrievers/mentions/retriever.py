"""The `mentions` source (backend `local`): the gene and protein names a quoted sentence
holds, as written, or "No gene" (`biorag.understanding.name_extraction`, over the gene store's name
dictionaries through the question lexicon).

Evidence: ``source="mentions"``, ``id`` a digest of the sentence, no URL (nothing was looked
up elsewhere); ``metadata`` a `SentenceMentions`.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.retrieval.retriever import Retriever
from biorag.understanding.name_extraction import gene_mentions
from biorag.understanding.search_request import SearchRequest
from retrievers.common.source_record import SourceRecord
from retrievers.stores.gene_store import gene_store_path
from retrievers.stores.lexicon import StoreLexicon

if TYPE_CHECKING:
    from biorag.settings import Settings

NO_GENE = "No gene"
GENE_MENTIONS = AnswerField(
    "gene_mentions", "the gene and protein names a quoted sentence holds",
    ("gene and protein names", "gene or protein names", "protein and gene names", "gene names", "protein names",
     "gene name", "protein name", "genes mentioned", "proteins mentioned", "gene mentions", "protein mentions",
     "genes named", "proteins named", "names of genes", "names of proteins", "genes and proteins",
     "genes or proteins", "which genes", "what genes", "which proteins", "what proteins", "genes", "proteins",
     "extract"),
    ("passage",))


class SentenceMentions(SourceRecord):
    """The names found in one sentence, in the order written ([] for none)."""

    SOURCE: ClassVar[str] = "mentions"
    sentence: str
    names: list[str]


class MentionsRetriever(Retriever):
    name = "mentions"
    manual = ("Gene and protein names in a sentence given in quotes: the names as written, found in the "
              "gene dictionaries (symbols, aliases, full names) with the rules for ambiguous words, or "
              "'No gene'. Query: the sentence.")
    query_format = "the sentence, as quoted"
    accepts = ("passage",)
    answers = (GENE_MENTIONS,)

    def __init__(self, lexicon: StoreLexicon | None = None, path: Path | None = None):
        self._lexicon = lexicon
        self._path = path
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> MentionsRetriever:
        return cls(path=gene_store_path(settings))  # opened at the first search: a run may never ask

    @property
    def lexicon(self) -> StoreLexicon:
        with self._lock:
            if self._lexicon is None:
                self._lexicon = StoreLexicon(self._path)
        return self._lexicon

    def search(self, request: SearchRequest) -> list[Evidence]:
        sentence = request.text.strip()
        names = gene_mentions(sentence, self.lexicon)
        rec = SentenceMentions(sentence=sentence, names=names)
        digest = hashlib.sha1(sentence.encode()).hexdigest()[:12]
        return [Evidence(source="mentions", id=digest, title="gene and protein names in the sentence",
                         text=f"{', '.join(names) or NO_GENE} (names in: {sentence})", metadata=rec.as_metadata())]

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        for e, rec in SentenceMentions.all_of(evidence):
            return Reading(list(rec.names), [e], "names found in the gene dictionaries, as written",
                           text=", ".join(rec.names) or NO_GENE)
        return None

    def close(self) -> None:
        if self._lexicon is not None:
            self._lexicon.close()
