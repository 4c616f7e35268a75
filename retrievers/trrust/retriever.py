"""The `trrust` source (backend `local`): which transcription factor regulates which gene,
and how (activation, repression, or a mode the papers do not state), from TRRUST v2 as
written into the local gene store (`indexing/regulation.py`, table `regulation`).

- Two or more genes named: every TRRUST row between them, in either direction (which one
  is the factor is TRRUST's to say, not the question's word order), one evidence item per
  (factor, target) pair with every mode it records and the PMIDs of each.
- One gene named: the targets it regulates as a factor and the factors that regulate it,
  each by mode (one evidence item for each side TRRUST has).

Human rows first; the mouse rows answer only when no human row does (the answer says
"mouse"). A pair TRRUST lacks raises `NoRecord` saying so: no record is made up for it.
Evidence: ``source="trrust"``, ``id`` ``<TF>-><target>`` (or ``<gene>:targets``,
``<gene>:regulators``), the PubMed URL of its PMIDs; ``metadata`` a `RegulationRecord`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from biorag.contracts.errors import NoRecord, ToolError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import AnswerField, HeldGene, Reading
from biorag.retrieval.retriever import Retriever
from biorag.storage.sqlite_store import open_read_only
from biorag.understanding.search_request import SearchRequest
from retrievers.common.source_record import SourceRecord
from retrievers.stores.gene_store import build_command_hint, gene_store_path

if TYPE_CHECKING:
    from biorag.settings import Settings

#: the order of modes with equal support (and the words used for them)
MODE_ORDER = {"Activation": 0, "Repression": 1, "Unknown": 2}
CITATION = "TRRUST v2 (Han et al., Nucleic Acids Res 2018)"

#: cues of a factor and its target named together (a relation a curated source states)
_PAIR_CUES = ("regulatory relationship", "regulatory relation", "regulatory interaction", "regulatory effect",
              "regulatory role", "mode of regulation", "regulation mode", "type of regulation", "kind of regulation",
              "transcriptional regulation", "transcriptionally regulate", "transcriptionally regulates",
              "activate or repress", "activates or represses", "activation or repression", "activated or repressed",
              "upregulate or downregulate", "trrust", "regulated by", "regulates", "regulate", "regulating",
              "activate", "activates", "activating", "repress", "represses", "repressing")
#: cues of one gene's targets or regulators: asked as such, never a claim about the gene ("Is
#: MYC a transcription factor?", "Does TP53 regulate apoptosis?" are questions for the literature)
_ONE_CUES = ("target genes", "targets", "transcriptional targets", "regulatory targets", "regulated by",
             "genes regulated", "genes activated", "genes repressed", "trrust", "activate $", "repress $",
             "regulate $", "activates $", "represses $", "regulates $")
_WEAK = ("regulation", "relationship", "relation", "activated", "repressed")
#: a factor and its target named together: the modes between them
REGULATION = AnswerField(
    "regulation", "how a transcription factor regulates a gene (TRRUST: activation, repression), with PMIDs",
    _PAIR_CUES, ("gene_list",), weak_cues=_WEAK)
#: one gene named: the genes it regulates and the factors regulating it
REGULATION_OF_ONE = AnswerField(
    "regulation_targets", "the genes a transcription factor regulates, and its regulators (TRRUST), by mode",
    _ONE_CUES, ("gene",))


class ModeSupport(BaseModel):
    """One mode TRRUST records for a pair, and the PMIDs behind it."""

    model_config = ConfigDict(frozen=True)
    mode: str
    pmids: list[str]

    @property
    def count(self) -> int:
        return len(self.pmids)


class RegulationRecord(SourceRecord):
    """What TRRUST says about one pair (`kind` "pair": `tf` regulates `target` by `modes`,
    most-supported first) or about one gene's side ("targets": the genes `tf` regulates;
    "regulators": the factors regulating `target`; `partners` maps each mode to the genes,
    most-supported first)."""

    SOURCE: ClassVar[str] = "trrust"
    kind: Literal["pair", "targets", "regulators"]
    tf: str = ""
    target: str = ""
    organism: str
    modes: list[ModeSupport] = []
    partners: dict[str, list[str]] = {}
    #: the genes the search asked about (a pair TRRUST lacks is read from them)
    asked: list[str] = []


def mode_line(modes: Sequence[ModeSupport]) -> str:
    """"Activation (28 PMIDs); Repression (3 PMIDs); Unknown: mode not stated (5 PMIDs)"."""
    def one(m: ModeSupport) -> str:
        n = f"{m.count} PMID{'s' if m.count != 1 else ''}"
        return f"Unknown: mode not stated ({n})" if m.mode == "Unknown" else f"{m.mode} ({n})"
    return "; ".join(one(m) for m in modes)


def _ranked(modes: dict[str, list[str]]) -> list[ModeSupport]:
    support = [ModeSupport(mode=m, pmids=p) for m, p in modes.items()]
    return sorted(support, key=lambda s: (-s.count, MODE_ORDER.get(s.mode, 9)))


def _pubmed_url(pmids: Sequence[str]) -> str | None:
    return f"https://pubmed.ncbi.nlm.nih.gov/?term={'+OR+'.join(pmids[:50])}" if pmids else None


class RegulationStore:
    """The gene store's `regulation` table, read-only."""

    def __init__(self, path):
        self._con = open_read_only(path, "trrust", build_command_hint(path))
        if not self._con.execute("SELECT 1 FROM sqlite_master WHERE name = 'regulation'").fetchone():
            self._con.close()
            raise ToolError("trrust", f"the gene store at {path} has no TRRUST table; rebuild it: "
                            "biorag data gene-store build")

    def rows(self, where: str, args: Sequence[str]) -> list[tuple[str, str, str, str, str]]:
        """(tf, target, organism, mode, pmids) rows matching `where`."""
        try:
            return self._con.execute(
                f"SELECT tf, target, organism, mode, pmids FROM regulation WHERE {where}", list(args)).fetchall()
        except sqlite3.Error as e:
            raise ToolError("trrust", f"reading the regulation table failed: {e}") from e

    def close(self) -> None:
        self._con.close()


def _one_organism(rows: list[tuple[str, str, str, str, str]]) -> list[tuple[str, str, str, str, str]]:
    human = [r for r in rows if r[2] == "human"]
    return human or rows


def pair_evidence(rows: list[tuple[str, str, str, str, str]]) -> list[Evidence]:
    """One evidence item per (factor, target) pair of `rows` (one organism)."""
    pairs: dict[tuple[str, str, str], dict[str, list[str]]] = defaultdict(dict)
    for tf, target, organism, mode, pmids in rows:  # a mode listed twice (renamed symbols): its PMIDs once
        known = pairs[(tf, target, organism)].setdefault(mode, [])
        known += [p for p in pmids.split(";") if p and p not in known]
    out = []
    for (tf, target, organism), modes in pairs.items():
        ranked = _ranked(modes)
        rec = RegulationRecord(kind="pair", tf=tf, target=target, organism=organism, modes=ranked)
        pmids = list(dict.fromkeys(p for m in ranked for p in m.pmids))
        text = (f"{tf} (transcription factor) -> {target} ({organism}, {CITATION}): {mode_line(ranked)}\n"
                + "\n".join(f"{m.mode}: PMID {', '.join(m.pmids)}" for m in ranked))
        out.append(Evidence(source="trrust", id=f"{tf}->{target}", title=f"{tf} regulates {target} ({organism})",
                            text=text, url=_pubmed_url(pmids), metadata=rec.as_metadata()))
    return out


def side_evidence(gene: str, rows: list[tuple[str, str, str, str, str]], side: Literal["targets", "regulators"],
                  asked: Sequence[str] = ()) -> Evidence:
    """One gene's targets (as factor) or regulators (as target), by mode, most-supported first."""
    by_mode: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for tf, target, _organism, mode, pmids in rows:
        by_mode[mode][target if side == "targets" else tf].update(p for p in pmids.split(";") if p)
    partners = {m: [g for g, _p in sorted(v.items(), key=lambda x: (-len(x[1]), x[0]))]
                for m, v in sorted(by_mode.items(), key=lambda kv: MODE_ORDER.get(kv[0], 9))}
    organism = rows[0][2]
    symbol = rows[0][0] if side == "targets" else rows[0][1]
    rec = RegulationRecord(kind=side, tf=symbol if side == "targets" else "", target=symbol if side == "regulators" else "",
                           organism=organism, partners=partners, asked=list(asked) or [gene])
    head = (f"{symbol} as a transcription factor regulates" if side == "targets"
            else f"{symbol} is regulated by these transcription factors")
    text = f"{head} ({organism}, {CITATION}):\n" + "\n".join(
        f"{'Unknown (mode not stated)' if m == 'Unknown' else m}: {', '.join(g)}" for m, g in partners.items())
    return Evidence(source="trrust", id=f"{symbol}:{side}", title=f"{head.split(' ', 1)[1]} ({organism})",
                    text=text, metadata=rec.as_metadata())


class RegulationRetriever(Retriever):
    name = "trrust"
    manual = (
        "TRRUST v2: curated transcription factor -> target gene regulation (human and mouse) with "
        "the mode (activation, repression, or not stated) and the PubMed ids behind each. Use for: "
        "how transcription factor X regulates gene Y, which genes X activates or represses, which "
        "factors regulate Y. Query: the gene symbols.")
    query_format = "one or two gene symbols (a transcription factor and/or its target)"
    accepts = ("gene", "gene_list")
    answers = (REGULATION, REGULATION_OF_ONE)

    def __init__(self, store: RegulationStore | None = None, path: Path | None = None):
        self._store = store
        self._path = path
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> RegulationRetriever:
        return cls(path=gene_store_path(settings))  # opened at the first search: a run may never ask

    @property
    def store(self) -> RegulationStore:
        with self._lock:
            if self._store is None:
                self._store = RegulationStore(self._path)
        return self._store

    def search(self, request: SearchRequest) -> list[Evidence]:
        genes = [g.symbol for g in request.entities.genes]
        if not genes:
            genes = [w for w in request.text.replace(",", " ").split() if w.strip()]
        genes = list(dict.fromkeys(genes))[:20]
        if not genes:
            raise ToolError("trrust", "no gene named; give a transcription factor and/or its target gene")
        marks = ",".join("?" * len(genes))
        if len(genes) >= 2:
            rows = self.store.rows(f"tf COLLATE NOCASE IN ({marks}) AND target COLLATE NOCASE IN ({marks})",
                                   genes + genes)
            rows = _one_organism([r for r in rows if r[0].lower() != r[1].lower()])
            if rows:
                return pair_evidence(rows)[: request.k]
        # one gene, or a pair TRRUST lacks: what it records for each gene named (the reading
        # of a pair says the pair is not among them)
        out = []
        for gene in genes:
            for side, column in (("targets", "tf"), ("regulators", "target")):
                rows = _one_organism(self.store.rows(f"{column} = ? COLLATE NOCASE", [gene]))
                if rows:
                    out.append(side_evidence(gene, rows, side, genes))
        if not out:
            raise NoRecord("trrust", f"TRRUST v2 records no regulation by or of {' or '.join(genes)}")
        return out

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        if field.name not in (REGULATION.name, REGULATION_OF_ONE.name):
            return None
        records = RegulationRecord.all_of(evidence)
        pairs = [(e, r) for e, r in records if r.kind == "pair"]
        if pairs:
            used = [e for e, _ in pairs]
            if len(pairs) == 1:
                _e, r = pairs[0]
                values = [m.mode for m in r.modes]
                text = f"{mode_line(r.modes)} ({r.tf} -> {r.target}{', mouse' if r.organism == 'mouse' else ''})"
            else:
                values = [f"{r.tf} -> {r.target}: {m.mode}" for _e, r in pairs for m in r.modes]
                text = "; ".join(f"{r.tf} -> {r.target}: {mode_line(r.modes)}" for _e, r in pairs)
            return Reading(values, used, f"modes TRRUST v2 records, most PMIDs first; {CITATION}", text=text)
        sides = [(e, r) for e, r in records if r.kind in ("targets", "regulators")]
        if not sides:
            return None
        asked = list(dict.fromkeys(g for _e, r in sides for g in r.asked))
        if len(asked) >= 2:
            return Reading([], [e for e, _ in sides], f"TRRUST v2 rows of each gene; {CITATION}",
                           text=cls._sides_text(sides),
                           refused=f"TRRUST v2 records no regulation between {' and '.join(asked)} "
                                   "(neither is listed as a transcription factor of the other)")
        values = [g for _e, r in sides for gs in r.partners.values() for g in gs]
        return Reading(list(dict.fromkeys(values)), [e for e, _ in sides],
                       f"TRRUST v2 rows by mode, most PMIDs first; {CITATION}", text=cls._sides_text(sides))

    @staticmethod
    def _sides_text(sides: list[tuple[Evidence, RegulationRecord]]) -> str:
        parts = []
        for _e, r in sides:
            label = f"{r.tf} regulates" if r.kind == "targets" else f"{r.target} is regulated by"
            shown = "; ".join(f"{m}: {', '.join(g[:15])}" + (f" (+{len(g) - 15} more)" if len(g) > 15 else "")
                              for m, g in r.partners.items())
            parts.append(f"{label} ({r.organism}) {shown}")
        return "\n".join(parts)

    @classmethod
    def genes(cls, evidence: list[Evidence]) -> list[HeldGene]:
        held = []
        for _e, r in RegulationRecord.all_of(evidence):
            held += [HeldGene(names=(s,)) for s in (r.tf, r.target) if s]
        return held

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
