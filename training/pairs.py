"""Contrastive pairs from PubMed records and the held-out split.

Each record with an abstract gives up to three (query, abstract) pairs:
- `title`: the title as is;
- `question`: a question-like rewording of the title (users ask questions, not titles);
- `mesh`: a question built from the record's main MeSH topics (how the agent's rewritten,
  MeSH-tagged queries look).
The positive is always the abstract alone, so a title query cannot match itself.

The split is by PMID through a salted hash, so it is stable when records are added and a
record's pairs never straddle train and held-out.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import asdict, dataclass

from training.records import MeshRef, TrainRecord

# MeSH check tags: on most records, they say nothing about the topic.
CHECK_TAGS = frozenset(
    s.casefold()
    for s in (
        "Humans", "Animals", "Male", "Female", "Pregnancy", "Adult", "Aged", "Aged, 80 and over",
        "Middle Aged", "Young Adult", "Adolescent", "Child", "Child, Preschool", "Infant",
        "Infant, Newborn", "Mice", "Rats", "Cattle", "Dogs", "Cats", "Swine", "Rabbits",
        "Guinea Pigs", "Cricetinae", "Chick Embryo", "Sheep", "Horses", "Haplorhini",
        "Macaca mulatta", "History, Ancient", "History, Medieval", "History, 15th Century",
        "History, 16th Century", "History, 17th Century", "History, 18th Century",
        "History, 19th Century", "History, 20th Century", "History, 21st Century",
    )
)

_TITLE_TEMPLATES = (
    "What is known about {t}?",
    "What does the evidence say about {t}?",
    "Which findings have been reported on {t}?",
    "What do studies show about {t}?",
)
_MESH_TEMPLATES_ONE = ("What is known about {a}?", "What is the {q} of {a}?")
_MESH_TEMPLATES_MANY = ("How is {a} related to {rest}?", "What links {a} and {rest}?")


@dataclass(frozen=True)
class Pair:
    pmid: str
    kind: str  # title | question | mesh
    query: str
    positive: str

    def to_json(self) -> dict:
        return asdict(self)


def _pick(pmid: str, salt: str, n: int) -> int:
    return int(hashlib.sha256(f"{salt}:{pmid}".encode()).hexdigest(), 16) % n


def is_heldout(pmid: str, fraction: float, seed: int = 0) -> bool:
    """Deterministic held-out membership by PMID (same answer on every run and machine)."""
    if fraction <= 0:
        return False
    bucket = int(hashlib.sha256(f"heldout:{seed}:{pmid}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return bucket < fraction


def clean_title(title: str) -> str:
    """Drop translation brackets and the trailing period; keep the main clause of 'X: Y'."""
    t = " ".join(title.split()).strip()
    if t.startswith("[") and t.rstrip(".").endswith("]"):
        t = t.rstrip(".")[1:-1]
    t = t.rstrip(" .")
    if ":" in t and not t.endswith("?"):
        head = t.split(":", 1)[0].strip()
        if len(head.split()) >= 3:
            t = head
    return t


def _lower_first(text: str) -> str:
    """Lower-case the first word unless it looks like an acronym or gene name (APOE, p53, mRNA)."""
    if not text:
        return text
    first = text.split(" ", 1)[0]
    if any(c.isdigit() for c in first) or sum(c.isupper() for c in first) > 1:
        return text
    return text[0].lower() + text[1:]


def title_question(rec: TrainRecord) -> str | None:
    t = clean_title(rec.title)
    if len(t.split()) < 3:
        return None
    if t.endswith("?"):
        return t
    template = _TITLE_TEMPLATES[_pick(rec.pmid, "title", len(_TITLE_TEMPLATES))]
    return template.format(t=_lower_first(t))


def topical_mesh(mesh: list[MeshRef]) -> list[MeshRef]:
    """Headings without check tags, major topics first (original order otherwise)."""
    topical = [m for m in mesh if m.name and m.name.casefold() not in CHECK_TAGS]
    return sorted(topical, key=lambda m: not m.major)


def mesh_question(rec: TrainRecord, max_terms: int = 3) -> str | None:
    terms = topical_mesh(rec.mesh)[:max_terms]
    if not terms:
        return None
    if len(terms) == 1:
        m = terms[0]
        if m.qualifiers:
            return _MESH_TEMPLATES_ONE[1].format(q=m.qualifiers[0], a=m.name)
        return _MESH_TEMPLATES_ONE[0].format(a=m.name)
    rest = " and ".join(m.name for m in terms[1:])
    template = _MESH_TEMPLATES_MANY[_pick(rec.pmid, "mesh", len(_MESH_TEMPLATES_MANY))]
    return template.format(a=terms[0].name, rest=rest)


def build_pairs(rec: TrainRecord, kinds: tuple[str, ...] = ("title", "question", "mesh"),
                min_abstract_words: int = 20) -> list[Pair]:
    """The record's pairs; none when it has no usable title or abstract."""
    if len(rec.abstract.split()) < min_abstract_words or not rec.title:
        return []
    queries = {
        "title": clean_title(rec.title) or None,
        "question": title_question(rec),
        "mesh": mesh_question(rec),
    }
    return [Pair(rec.pmid, k, q, rec.abstract) for k in kinds if (q := queries.get(k))]


_WS = re.compile(r"\s+")


def pair_key(p: Pair) -> str:
    """Text identity of a pair, used for the data fingerprint."""
    return f"{p.pmid}\t{p.kind}\t{_WS.sub(' ', p.query)}\t{len(p.positive)}"


def pmid_unique_batches(pairs: list[Pair], batch_size: int, seed: int) -> list[list[int]]:
    """Shuffled batches of pair indices, no PMID and no query twice in a batch (either would
    be a false negative: one BioASQ question has several gold documents); the order depends
    only on seed."""
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    batches: list[list[int]] = []
    open_batches: list[tuple[list[int], set[str]]] = []
    for i in order:
        keys = {"p:" + pairs[i].pmid, "q:" + _WS.sub(" ", pairs[i].query).strip().casefold()}
        for idx, taken in open_batches:
            if not keys & taken:
                idx.append(i)
                taken.update(keys)
                break
        else:
            open_batches.append(([i], set(keys)))
        full = [b for b in open_batches if len(b[0]) == batch_size]
        for b in full:
            batches.append(b[0])
            open_batches.remove(b)
    batches.extend(b[0] for b in open_batches if len(b[0]) >= 2)
    return batches
