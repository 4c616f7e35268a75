"""What kind of link ties a gene to a disease, as the catalogue that states it says.

NCBI's mim2gene_medgen qualifies an OMIM phenotype's gene with a comment: "susceptibility",
"modifier", "somatic" (a change in tumour tissue, not inherited), "question" (a provisional
link: a candidate), "nondisease" and "QTL" (a trait, not a disease). A gene no catalogue
qualifies is causal. A gene listed as causal beside genes of another kind would tell a
geneticist that a monogenic disease has three causes; so the causal genes come first, and
the others follow under their label (`labelled_genes`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from biorag.knowledge.disease_gene_order import Link, about, causal

#: labels in the order an answer lists them after the causal genes
LABELS = ("causal", "modifier", "susceptibility", "somatic", "candidate", "non-disease trait")
#: words of an NCBI comment -> the label they give, strongest first (a comment may carry
#: several: "susceptibility; modifier" is a modifier)
_WORDS = (("somatic", "somatic"), ("modifier", "modifier"), ("susceptibility", "susceptibility"),
          ("question", "candidate"), ("nondisease", "non-disease trait"), ("qtl", "non-disease trait"))

_SUSCEPTIBILITY_NAME = re.compile(r"\bsusceptibility to\b", re.I)


def link_label(note: str | None) -> str:
    """The label of one gene's link from its catalogue comment ("" or None: causal)."""
    text = (note or "").lower()
    return next((label for word, label in _WORDS if word in text), "causal")


def labelled_genes(genes: Sequence[str], notes: Mapping[str, str]) -> dict[str, list[str]]:
    """`genes` (in their order) grouped by label, causal first; labels without genes left out."""
    out: dict[str, list[str]] = {label: [] for label in LABELS}
    for g in genes:
        out[link_label(notes.get(g))].append(g)
    return {label: gs for label, gs in out.items() if gs}


def labelled_text(groups: Mapping[str, Sequence[str]]) -> str | None:
    """The answer: causal genes on the first line, each other label on a line of its own;
    None when every gene is causal (the plain list says it). With no causal gene, the first
    line lists the first label's genes with the label ("EEF2 (candidate)"): the genes there
    are, said for what they are."""
    if set(groups) <= {"causal"}:
        return None
    others = [(label, gs) for label, gs in groups.items() if label != "causal"]
    if groups.get("causal"):
        first = ", ".join(groups["causal"])
    else:
        (label, gs), others = others[0], others[1:]
        first = f"{', '.join(gs)} ({label})"
    return "\n".join([first, *(f"{label}: {', '.join(gs)}" for label, gs in others)])


def label_by_subtypes(disease_name: str, genes: list[dict[str, Any]],
                      entries: Mapping[int, list[tuple[str, str, list[Link]]]]) -> None:
    """Give a family's genes the qualifier their subtypes carry. A disease family
    ("Hereditary hemochromatosis") reaches its genes through ClinVar "related" links only,
    which say nothing of their kind; NCBI says it of the subtype ("Hemochromatosis, type 1":
    BMP2 "susceptibility; modifier"). A gene whose every link to the family's entries (names
    carrying the family's words) is qualified gets ``subtype_note``: the first such comment."""
    for g in genes:
        if not g.get("links") or any(x["source"] != "clinvar" or x["note"] != "related" for x in g["links"]):
            continue
        mine = [(name, links) for _, name, links in entries.get(g["gene_id"], []) if about(disease_name, name)]
        if not mine or any(causal(links) and not _named_susceptibility(name) for name, links in mine):
            continue
        notes = [n for _, links in mine for s, n in links if s == "mim2gene_medgen" and n]
        notes += ["susceptibility" for name, _ in mine if _named_susceptibility(name)]
        if notes:
            g["subtype_note"] = notes[0]


def _named_susceptibility(entry_name: str) -> bool:
    """OMIM names a susceptibility locus so ("Celiac disease, susceptibility to, 3"): its
    name says the kind of link where NCBI's comment is missing and ClinVar says "associated"."""
    return bool(_SUSCEPTIBILITY_NAME.search(entry_name))
