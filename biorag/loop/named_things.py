"""The things of the type a literature list question asks for that a sentence names:
genes as official symbols (through the gene dictionary), chemicals and drugs (MeSH tree D)
and diseases (tree C) through the bundled MeSH vocabulary, variants as written; never the
question's own names."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from biorag.knowledge.initialisms import initialism_words
from biorag.knowledge.mesh import TAGGER_STOP_NAMES, find_in_text
from biorag.loop.sentence_cues import has_phrase, reading_words
from biorag.understanding.name_extraction import named_genes
from biorag.understanding.protein_changes import protein_changes

if TYPE_CHECKING:
    from biorag.contracts.sources import Lexicon
    from biorag.loop.literature_question import LiteratureQuestion


def named_things(text: str, q: LiteratureQuestion, lexicon: Lexicon | None) -> list[str]:
    """The things of the asked type a sentence names (not the question's own)."""
    found: list[str] = []
    types = q.asked_kinds
    if "variant" in types:
        # as the sentence writes them ("A53T"; "p.R47H" as "R47H"), one per protein change
        changes = {h: re.sub(r"^p\.|[()]", "", text[start:end]) for start, end, h in protein_changes(text)}
        return list(dict.fromkeys([*_RSID.findall(text), *changes.values()]))
    if "gene" in types and lexicon is not None:
        found += _named_genes(text, q, lexicon)
    branches = [{"chemical": "D", "disease": "C"}[t] for t in types if t != "gene"]
    if q.asked_type == "gene" and not found and lexicon is None:
        branches.append("D")
    if branches:
        drugs = any(has_phrase(q.asked, w) for w in reading_words("drug_asks"))
        for d in find_in_text(text):
            if d.name.lower() in q.own or d.name.lower() in TAGGER_STOP_NAMES or (drugs and d.macromolecule_only):
                continue  # asked for drugs, a protein named beside the target is none ("Amyloid")
            if any(t.startswith(b) and t.count(".") >= 2 for t in d.tree_numbers for b in branches):
                found.append(d.name)
    return list(dict.fromkeys(found))


#: a dbSNP id as a sentence writes it (narrower than `entity_patterns.RSID`, which reads a
#: question: lower case, three digits or more)
_RSID = re.compile(r"\brs\d{3,}\b")


def _named_genes(text: str, q: LiteratureQuestion, lexicon: Lexicon) -> list[str]:
    """The genes a sentence names (`name_extraction.named_genes`: symbols as written or in
    lower case, aliases, names written out), each as its official symbol: written as one, or
    the only gene the name may mean; never the question's own. A name written out in words
    counts only as a gene's official full name ("caspase 2"), not as one of its other
    designations: "casein kinase" and "protein kinase" name families."""
    found = []
    for written, symbols in named_genes(text, lexicon):
        if not symbols or (len(symbols) > 1 and symbols[0].lower() != written.lower()):
            continue  # an alias of several genes names none of them
        if symbols[0].lower() != written.lower() and _family_after(written).search(text):
            continue  # "MAP kinase" is a family, not SGSM3 (whose alias "MAP" is)
        if not re.search(r"[A-Za-z]{2}", written) or (" " in written and not _full_name(written, lexicon)):
            continue
        if q.initials and initialism_words(written, dict(q.initials)):
            continue  # "Abeta42" is the question's own "amyloid-beta 42", however written
        if symbols[0].lower() not in q.own and written.lower() not in q.own:
            found.append(symbols[0])
    return list(dict.fromkeys(found))


def _family_after(written: str) -> re.Pattern[str]:
    """An alias followed by a word that makes it a family's name ("MAP kinase", "Ras
    GTPases"): a gene's official symbol so followed is that gene ("BRAF kinase")."""
    return re.compile(rf"(?<![\w-]){re.escape(written)}[\s-]+(?:{_FAMILY_WORDS})s?\b", re.I)


_FAMILY_WORDS = "kinase|phosphatase|receptor|channel|ligase|protease|gtpase|transporter|family|superfamily"


def _full_name(written: str, lexicon: Lexicon) -> bool:
    key = " ".join(re.sub(r"[^a-z0-9]+", " ", written.lower()).split())
    return any(h.how == "full_name" for h in lexicon.lookup_spans([key], ("gene_name",)))
