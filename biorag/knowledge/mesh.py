"""MeSH vocabulary: descriptor UI <-> name, tree numbers, and a dictionary tagger.

The vocabulary is bundled (`resources/mesh_descriptors.tsv.gz`, see
`resources/mesh_descriptors.PROVENANCE.md`): 31,110 descriptors with their 2026 preferred
names, older names seen in MeSH 2017 and in PubMed records as aliases, and tree numbers.

`resolve()` is the gatekeeper for MeSH filters: anything that is not a known descriptor
name or UI raises `InputError`, so filter expressions are only ever built from
vocabulary entries (see `biorag.ml.pubmed_schema`).

`MeshTagger` is the small protocol the planner uses to attach MeSH terms to a question;
`VocabularyTagger` is the dictionary implementation (longest match of names in the
text); a trained classifier (biorag/ml/mesh_classifier.py) implements the same protocol, and
`biorag.ml.mesh_classifier.build_tagger` picks one of them from the settings.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

from biorag.contracts.errors import InputError, UnknownTerm

RESOURCE = Path(__file__).parents[1] / "resources" / "mesh_descriptors.tsv.gz"
UI_RE = re.compile(r"^D\d{6,9}$")
# A descriptor name is words, digits and a few punctuation marks; anything else (quotes,
# brackets, operators) cannot be a MeSH name and is rejected before lookup.
_NAME_CHARS_RE = re.compile(r"^[\w\s,.'()\-+/&:;]+$", re.UNICODE)
_MAX_TERM_CHARS = 200
#: the shape of an acceptable term, as JSON Schema (the API's document states it)
TERM_SCHEMA = {"minLength": 1, "maxLength": _MAX_TERM_CHARS, "pattern": r"^[\w,.'()\-+/&:;][\w\s,.'()\-+/&:;]*$"}

# Check tags and other descriptors that appear in almost every record or are plain English
# words: useless (or harmful) as question filters, so the tagger never proposes them.
TAGGER_STOP_NAMES = {
    "humans", "animals", "male", "female", "adult", "aged", "middle aged", "young adult",
    "adolescent", "child", "child, preschool", "infant", "infant, newborn", "aged, 80 and over",
    "pregnancy", "mice", "rats", "time", "methods", "research", "disease", "syndrome",
    "role", "cells", "life", "light", "temperature", "base", "names", "work", "patients",
    "records", "language", "reading", "attention", "memory", "learning", "walking",
    "running", "water", "food", "sleep", "pain", "weight", "body weight", "risk", "face",
    "hand", "head", "back", "leg", "arm", "eye", "ear", "nose", "mouth", "tooth", "skin",
    "hair", "heart", "lung", "liver", "kidney", "brain", "blood", "bone and bones",
    "association", "incidence", "prevalence", "probability", "logic", "reward", "goals",
    "motivation", "recognition, psychology", "perception", "emotions", "behavior",
    "communication", "population", "family", "parents", "mothers", "fathers", "students",
}


#: MeSH branches of macromolecules: D05 macromolecular substances, D08 enzymes and coenzymes,
#: D12 amino acids, peptides and proteins, D13 nucleic acids, D23 biological factors
_MACROMOLECULES = ("D05", "D08", "D12", "D13", "D23")


@dataclass(frozen=True)
class Descriptor:
    ui: str
    name: str
    tree_numbers: tuple[str, ...] = ()
    aliases: tuple[str, ...] = field(default=(), compare=False)

    @property
    def branches(self) -> tuple[str, ...]:
        """Top-level tree letters (A..Z) the descriptor sits under."""
        return tuple(sorted({t[0] for t in self.tree_numbers}))

    @property
    def macromolecule_only(self) -> bool:
        """Every place of the descriptor is under a branch of the body's macromolecules (a
        protein, enzyme or nucleic acid: "Amyloid"), none under a drug-like class (insulin is
        also a hormone, D06). What a question asking for drugs is not answered with."""
        return bool(self.tree_numbers) and all(t[:3] in _MACROMOLECULES for t in self.tree_numbers)

    @property
    def depth(self) -> int:
        return max((t.count(".") + 1 for t in self.tree_numbers), default=0)


def _norm_name(text: str) -> str:
    return " ".join(text.casefold().split())


_TOKEN_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _tokens(text: str) -> list[str]:
    """Lower-case word tokens, possessive 's dropped, a plural 's' folded (both sides)."""
    text = text.casefold().replace("\u2019", "'").replace("'s ", " ").replace("'s,", ",")
    text = re.sub(r"'s$", "", text)
    out = []
    for tok in _TOKEN_RE.findall(text):
        if len(tok) > 3 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        out.append(tok)
    return out


class MeshVocabulary:
    """Descriptor lookup by UI, by (case-insensitive) name or alias, and text matching."""

    def __init__(self, descriptors: list[Descriptor]):
        self.by_ui: dict[str, Descriptor] = {d.ui: d for d in descriptors}
        self.by_name: dict[str, Descriptor] = {}
        for d in descriptors:  # preferred names win over aliases
            for alias in d.aliases:
                self.by_name.setdefault(_norm_name(alias), d)
        for d in descriptors:
            self.by_name[_norm_name(d.name)] = d
        self._phrases: dict[tuple[str, ...], Descriptor] | None = None
        self._max_len = 0

    def __len__(self) -> int:
        return len(self.by_ui)

    @classmethod
    def load(cls, path: Path = RESOURCE) -> MeshVocabulary:
        descriptors = []
        with gzip.open(path, "rt", encoding="utf-8") as f:
            next(f)  # header
            for line in f:
                ui, name, trees, aliases = line.rstrip("\n").split("\t")
                descriptors.append(
                    Descriptor(
                        ui=ui,
                        name=name,
                        tree_numbers=tuple(t for t in trees.split("|") if t),
                        aliases=tuple(a for a in aliases.split("|") if a),
                    )
                )
        return cls(descriptors)

    # ---- lookup ------------------------------------------------------------------
    def get(self, term: str) -> Descriptor | None:
        term = term.strip()
        if UI_RE.match(term.upper()):
            return self.by_ui.get(term.upper())
        return self.by_name.get(_norm_name(term))

    def resolve(self, term: str) -> Descriptor:
        """A descriptor by UI (`D003920`) or name (`diabetes mellitus`), else InputError."""
        if not isinstance(term, str) or not term.strip():
            raise InputError("empty MeSH term: give a descriptor name (e.g. 'Alzheimer Disease') or UI (e.g. D000544)")
        shown = term if len(term) <= 80 else term[:77] + "..."
        if len(term) > _MAX_TERM_CHARS or not _NAME_CHARS_RE.match(term):
            raise InputError(
                f"invalid MeSH term {shown!r}: only descriptor names or UIs (e.g. D000544) are accepted"
            )
        d = self.get(term)
        if d is None:
            hint = self.suggest(term)
            extra = f"; did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
            raise UnknownTerm(
                f"unknown MeSH term {shown!r}: not a MeSH descriptor name or UI{extra}"
            )
        return d

    def resolve_all(self, terms: list[str]) -> list[Descriptor]:
        """Resolve every term (order kept, duplicates dropped); the first bad one raises."""
        seen: dict[str, Descriptor] = {}
        for t in terms:
            d = self.resolve(t)
            seen.setdefault(d.ui, d)
        return list(seen.values())

    def suggest(self, term: str, n: int = 3) -> list[str]:
        import difflib

        key = _norm_name(term)
        if len(key) < 3:
            return []
        return [self.by_name[m].name for m in difflib.get_close_matches(key, self._name_keys(), n=n, cutoff=0.85)]

    @lru_cache(maxsize=1)  # noqa: B019 - one vocabulary per process
    def _name_keys(self) -> list[str]:
        return list(self.by_name)

    # ---- text matching -----------------------------------------------------------
    def _build_phrases(self) -> None:
        phrases: dict[tuple[str, ...], Descriptor] = {}
        for key, d in self.by_name.items():
            if key in TAGGER_STOP_NAMES or _norm_name(d.name) in TAGGER_STOP_NAMES:
                continue
            toks = tuple(_tokens(key))
            if not toks or (len(toks) == 1 and len(toks[0]) < 4):
                continue
            phrases.setdefault(toks, d)
        self._phrases = phrases
        self._max_len = min(10, max(len(p) for p in phrases))

    def find_in_text(self, text: str) -> list[Descriptor]:
        """Descriptors whose name or alias occurs in `text` (longest match, left to right).

        Matching is on word tokens, case-insensitive, with possessives and a plural `s`
        folded ("Alzheimer's disease" -> Alzheimer Disease). Check tags such as Humans and
        plain English words (see TAGGER_STOP_NAMES) are never returned."""
        if self._phrases is None:
            self._build_phrases()
        assert self._phrases is not None
        toks = _tokens(text)
        found: dict[str, Descriptor] = {}
        i = 0
        while i < len(toks):
            for n in range(min(self._max_len, len(toks) - i), 0, -1):
                d = self._phrases.get(tuple(toks[i : i + n]))
                if d is not None:
                    found.setdefault(d.ui, d)
                    i += n
                    break
            else:
                i += 1
        return list(found.values())


@lru_cache(maxsize=1)
def vocabulary_version() -> str:
    """The bundled vocabulary's identity: the MeSH releases it was derived from and a hash of
    the file (a rebuilt vocabulary changes the hash even when the releases do not)."""
    import hashlib

    return "mesh-2026+2017:sha256:" + hashlib.sha256(RESOURCE.read_bytes()).hexdigest()[:16]


@lru_cache(maxsize=1)
def vocabulary() -> MeshVocabulary:
    """The bundled vocabulary, loaded once per process (~0.3 s; every MeSH filter, tag and
    expansion reads it, so an uncached load costs each filtered search that much)."""
    return MeshVocabulary.load()


def resolve(term: str) -> Descriptor:
    return vocabulary().resolve(term)


def find_in_text(text: str) -> list[Descriptor]:
    return vocabulary().find_in_text(text)


# ---- taggers ---------------------------------------------------------------------------


@runtime_checkable
class MeshTagger(Protocol):
    """Proposes MeSH descriptor names for a question (best first, at most k)."""

    def tag(self, question: str, k: int) -> list[str]: ...


class VocabularyTagger:
    """Dictionary tagger: descriptors named in the question, most specific first
    (longer names, then deeper in the tree), ties by position in the question."""

    def __init__(self, vocab: MeshVocabulary | None = None):
        self.vocab = vocab or vocabulary()

    def tag(self, question: str, k: int) -> list[str]:
        found = self.vocab.find_in_text(question)
        ranked = sorted(
            enumerate(found), key=lambda p: (-len(_tokens(p[1].name)), -p[1].depth, p[0])
        )
        return [d.name for _, d in ranked[: max(k, 0)]]
