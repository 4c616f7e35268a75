"""The names a cited sentence must mention to be about a literature question: every
confident entity by all its names (a disease or feature also by its MeSH name and entry
terms), a gene list as its genes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from biorag.knowledge.mesh import vocabulary
from biorag.loop.sentence_cues import name_pattern

if TYPE_CHECKING:
    from biorag.understanding.question_model import Analysis, Entity

#: entity kinds a sentence need not mention (context, or not quoted back)
_CONTEXT_KINDS = ("organism", "sequence")


def _entity_names(e: Entity) -> list[str]:
    names = [n for n in (e.text, e.span, *e.canonical) if n and re.search(r"[A-Za-z0-9]", n)]
    if e.kind in ("disease", "phenotype"):
        vocab = vocabulary()
        for n in list(names):
            for key in (n, n + "s"):
                d = vocab.get(key)
                if d is not None:
                    names += [d.name, *d.aliases]
                    break
    return list(dict.fromkeys(n for n in names if len(n) > 1))


def required_names(analysis: Analysis) -> tuple[tuple[str, tuple[re.Pattern, ...]], ...]:
    """(name, its patterns) of each thing a cited sentence must mention: every confident
    entity, a gene list as its genes."""
    out: dict[str, tuple[re.Pattern, ...]] = {}
    for e in analysis.entities:
        if not e.confident or e.kind in _CONTEXT_KINDS:
            continue
        if e.kind == "gene_list" and e.members:
            for m in e.members:
                if m.name and m.name not in out:
                    out[m.name] = (name_pattern(m.name),)
            continue
        out.setdefault(e.text, tuple(name_pattern(n) for n in _entity_names(e)))
    # a gene list's member and the same gene named alone are one requirement
    return tuple(out.items())
