"""Nucleotide / protein record summaries: accession -> esummary db=nuccore or db=protein.

Evidence: ``source="nucleotide"``, ``id`` = accession.version (e.g. "NM_002801.4"),
``title`` = NCBI title, ``url`` = https://www.ncbi.nlm.nih.gov/<nuccore|protein>/<acc>.
``metadata`` keys: ``accession``, ``db`` ("nuccore" | "protein"), ``title``, ``organism``,
``tax_id``, ``length`` (int), ``mol_type`` ("mrna", "dna", "aa", ...), ``updated``.
Not on by default: enable with a ``sources.nucleotide`` entry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from biorag.contracts.errors import InputError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, Reading
from biorag.loop.prompts import MANUALS
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.common.eutils import EUtils

if TYPE_CHECKING:
    from biorag.settings import Settings

_ACC = re.compile(r"\b([A-Z]{1,2}_?\d{5,9}(?:\.\d+)?)\b")
_PROTEIN = re.compile(r"^(?:[NXYWA]P_|[A-Z]{3}\d{5})")


RECORD_ORGANISM = AnswerField(
    "organism", "organism of a sequence record",
    ("organism", "which organism", "what organism", "species", "come from", "comes from"), ("accession",))
RECORD_TITLE = AnswerField(
    "record_title", "what a sequence record is (its NCBI title)",
    ("title", "definition", "what record", "which gene", "what gene"), ("accession",),
    default_for=("accession",), weak_cues=("what is", "describe", "about"))
RECORD_LENGTH = AnswerField(
    "sequence_length", "length of a sequence record",
    ("length", "how long", "how many bases", "how many residues", "how many amino acids", "size"),
    ("accession",))
_METADATA_KEY = {"organism": "organism", "record_title": "title", "sequence_length": "length"}


def read_record_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
    wanted = {a.upper().split(".")[0] for a in about}
    for ev in evidence:
        if wanted and ev.id.upper().split(".")[0] not in wanted:
            continue
        value = ev.metadata.get(_METADATA_KEY.get(field.name, ""))
        if value not in (None, ""):
            return Reading([str(value)], [ev], f"{field.name} of {ev.id}")
    return None


class SequenceRecordRetriever(Retriever):
    name = "nucleotide"
    manual = MANUALS["nucleotide"]
    query_format = "one or more accession numbers, e.g. NM_002801.4"
    accepts = ("accession",)
    answers = (RECORD_ORGANISM, RECORD_TITLE, RECORD_LENGTH)

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_record_field(field, evidence, about)

    def __init__(self, eutils: EUtils):
        self.eutils = eutils

    @classmethod
    def from_settings(cls, settings: Settings) -> SequenceRecordRetriever:
        return cls(EUtils.from_settings(settings, "nucleotide"))

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        accs = list(dict.fromkeys(_ACC.findall(query.upper())))[:k]
        if not accs:
            raise InputError("nucleotide: no accession in the query (e.g. NM_002801.4, NP_002792.1)")
        out: list[Evidence] = []
        for db in ("nuccore", "protein"):
            ids = [a for a in accs if bool(_PROTEIN.match(a)) == (db == "protein")]
            if not ids:
                continue
            for doc in self.eutils.esummary(db, ids).docs.values():
                acc = doc.get("accessionversion") or doc.get("caption") or str(doc.get("uid"))
                md = {
                    "accession": acc, "db": db, "title": doc.get("title", ""),
                    "organism": doc.get("organism") or None,
                    "tax_id": int(doc["taxid"]) if str(doc.get("taxid", "")).isdigit() else None,
                    "length": int(doc["slen"]) if str(doc.get("slen", "")).isdigit() else None,
                    "mol_type": doc.get("moltype") or None, "updated": doc.get("updatedate") or None,
                }
                text = (f"{acc}: {md['title']}\nOrganism: {md['organism']}; length {md['length']} "
                        f"({md['mol_type']}); updated {md['updated']}")
                out.append(Evidence(source="nucleotide", id=acc, title=md["title"], text=text,
                                    url=f"https://www.ncbi.nlm.nih.gov/{db}/{acc}", metadata=md))
        return out[:k]
