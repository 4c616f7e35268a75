"""Organism names: the common names people and sequence records use, and their binomials.

Used where a record or a question names an organism in words: BLAST subject descriptions
("Human DNA sequence from clone …", "Zebrafish DNA sequence …", "MACACA MULATTA BAC clone …")
and questions ("… in the mouse genome"). `organism_named_in` finds one in free text;
`binomial_of` reads the organism a record description starts with.
"""

from __future__ import annotations

import re

HUMAN = "Homo sapiens"

#: common name (lower case) -> binomial
COMMON_NAMES = {
    "human": HUMAN, "humans": HUMAN, "homo sapiens": HUMAN,
    "mouse": "Mus musculus", "mice": "Mus musculus", "house mouse": "Mus musculus",
    "rat": "Rattus norvegicus", "norway rat": "Rattus norvegicus",
    "zebrafish": "Danio rerio", "zebra fish": "Danio rerio",
    "worm": "Caenorhabditis elegans", "nematode": "Caenorhabditis elegans",
    "c. elegans": "Caenorhabditis elegans",
    "yeast": "Saccharomyces cerevisiae", "baker's yeast": "Saccharomyces cerevisiae",
    "budding yeast": "Saccharomyces cerevisiae",
    "fruit fly": "Drosophila melanogaster", "fly": "Drosophila melanogaster",
    "drosophila": "Drosophila melanogaster",
    "chicken": "Gallus gallus", "chimpanzee": "Pan troglodytes", "chimp": "Pan troglodytes",
    "rhesus macaque": "Macaca mulatta", "rhesus monkey": "Macaca mulatta", "macaque": "Macaca mulatta",
    "orangutan": "Pongo abelii", "gorilla": "Gorilla gorilla", "dog": "Canis lupus familiaris",
    "cow": "Bos taurus", "cattle": "Bos taurus", "pig": "Sus scrofa", "frog": "Xenopus tropicalis",
    "arabidopsis": "Arabidopsis thaliana", "e. coli": "Escherichia coli",
}
_COMMON = re.compile(r"(?<![\w.])(" + "|".join(sorted(map(re.escape, COMMON_NAMES), key=len, reverse=True))
                     + r")(?![\w])", re.I)
_BINOMIAL = re.compile(r"\b([A-Z][a-z]{2,}) ([a-z]{3,})\b")
_KNOWN_GENERA = {b.split()[0] for b in COMMON_NAMES.values()}
# common names too vague to name the organism when they open a record description
_VAGUE_FIRST_WORDS = {"fly", "worm", "frog", "yeast", "dog", "pig", "cow", "cattle"}
# description openings that look like a binomial but are not an organism
_NOT_ORGANISM = {"Eukaryotic synthetic", "Synthetic construct", "Cloning vector", "Uncultured bacterium"}


def organism_named_in(text: str) -> str | None:
    """The organism a question or phrase names (binomial of a known genus, or a common name),
    as a binomial; None when it names none."""
    for m in _BINOMIAL.finditer(text):
        if m.group(1) in _KNOWN_GENERA:
            return f"{m.group(1)} {m.group(2)}"
    m = _COMMON.search(text)
    return COMMON_NAMES[m.group(1).lower()] if m else None


def binomial_of(description: str) -> str | None:
    """The organism a sequence record's description starts with ("Homo sapiens isolate …",
    "PREDICTED: Pan troglodytes …", "Human DNA sequence …", "MACACA MULATTA BAC …")."""
    desc = re.sub(r"^PREDICTED:\s*", "", description.strip())
    words = desc.split()
    if not words:
        return None
    first = words[0].lower()
    if first in COMMON_NAMES and first not in _VAGUE_FIRST_WORDS:  # "Human DNA sequence from clone …"
        return COMMON_NAMES[first]
    if len(words) >= 2 and (words[0].isupper() or words[0].islower()):  # "MACACA MULATTA BAC clone"
        words = [words[0].capitalize(), words[1].lower(), *words[2:]]  # "homo sapiens BAC clone"
    m = _BINOMIAL.match(" ".join(words[:2]))
    if not m or m.group(0) in _NOT_ORGANISM or m.group(2) in ("synthetic", "construct"):
        return None
    return m.group(0)
