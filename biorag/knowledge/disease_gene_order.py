"""The order of a disease's genes: how strongly the catalogues link each to the disease.

A disease name often stands for a family whose subtypes the catalogues number, each with
its gene: ClinVar links "Hereditary hemochromatosis" to the genes of "Hemochromatosis, type
1" (HFE), "type 2A" (HJV), "2B" (HAMP), "3" (TFR2), "4" (SLC40A1) and "5" (FTH1), and to
BMP2, a modifier of type 1. Listed alphabetically, BMP2 comes first and HFE fourth. The
order here, first key first:

1. genes with a causal link to the disease itself, then those with a causal link to a
   numbered subtype of it only, then those whose every such link is qualified: a ClinVar
   "related" link (a gene of a subtype, or inside a deleted region) or one that NCBI
   mim2gene_medgen marks as no Mendelian cause (`NOT_CAUSAL`: "modifier", "question",
   "susceptibility", ...; one qualifying catalogue is enough, as in the HPO store's links,
   `indexing/hpo_gene_links.py`). ClinVar associates PTPN11 with "Noonan syndrome" itself,
   BRAF only through a subtype;
2. by the number of the gene's subtype ("type 1" before "2A" before "2B"; a gene with no
   numbered subtype after those with one): the subtype it alone causes where there is
   one, else the lowest it is linked to. OMIM's "Noonan syndrome 1" lists BRAF and
   MAP2K1 beside PTPN11, and BRAF has a subtype of its own, "Noonan syndrome 7"; "Bardet-
   Biedl syndrome 1" lists ARL6, whose own is "Bardet-Biedl syndrome 3". The catalogues number a series
   in the order its forms were described, and the first described is usually the
   commonest (HFE hemochromatosis, PTPN11 Noonan syndrome, KCNQ1 long QT syndrome). An
   entry of the disease's own name (any qualifiers aside) that links one gene only is
   the series' first form named without its number (OMIM's "Wiskott-Aldrich syndrome"
   (WAS) beside "Wiskott-Aldrich syndrome 2" (WIPF1)), as the disease dictionary reads
   "Aniridia" for "Aniridia 1"; one that links several genes is the family itself;
3. by how many catalogue entries whose names carry the disease's core words link the gene
   (the disease itself, its subtypes, "HFE-related hemochromatosis", ...), most first;
4. by symbol, then gene id.

A disease with one gene keeps it; the same disease gives the same order whatever the
question's wording (the order reads only the catalogues). Names are compared by their core
word keys (`biorag.knowledge.names.word_keys`: any word order, qualifiers such as "hereditary" and
"familial" aside, "type" dropped, Roman numerals as numbers).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from biorag.knowledge.names import disease_key, subtype_token, word_keys

#: mim2gene_medgen comments that make a phenotype link no Mendelian cause
NOT_CAUSAL = ("question", "susceptibility", "nondisease", "somatic", "qtl", "modifier")
_SUBTYPE = re.compile(r"(\d+)([a-z]*)")
_NO_NUMBER = (10**9, 0, "")

#: (source, note) of one catalogue link
Link = tuple[str, str | None]


def causal(links: Sequence[Link]) -> bool:
    """Whether these links (of one gene to one disease, from all catalogues) make it a cause:
    some link is not ClinVar's "related", and none carries an NCBI qualifier."""
    notes = [(note or "").lower() for _, note in links]
    return any(not (s == "clinvar" and n == "related") for (s, _), n in zip(links, notes, strict=True)) and \
        not any(word in n for n in notes for word in NOT_CAUSAL)


@lru_cache(maxsize=65536)
def _core(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(words, trailing subtype numbers) of a name's core key."""
    tokens = word_keys(name)[1].split()
    numbers = [t for t in tokens if t[0].isdigit()]
    return tuple(t for t in tokens if not t[0].isdigit()), tuple(numbers)


def subtype_number(disease_name: str, entry_name: str, single: bool = False) -> tuple[int, int, str] | None:
    """The number of `entry_name` as a subtype of `disease_name`, as a sort key
    ("Hemochromatosis, type 2A" of "Hereditary hemochromatosis": (2, 1, "a"): letters
    A..Z before OMIM's AA, BB, ...); 1 for an entry of the same name that links a `single`
    gene (see the module docstring); None when it is none."""
    words, numbers = _core(disease_name)
    e_words, e_numbers = _core(entry_name)
    if not words or e_words != words:
        return _number_after(disease_name, entry_name)
    if single and e_numbers == numbers:
        return (1, 0, "")
    if len(e_numbers) != len(numbers) + 1 or e_numbers[:len(numbers)] != numbers:
        return None
    return _number(e_numbers[-1])


def _number(token: str) -> tuple[int, int, str] | None:
    m = _SUBTYPE.fullmatch(token)
    return (int(m.group(1)), len(m.group(2)), m.group(2)) if m else None


def _number_after(disease_name: str, entry_name: str) -> tuple[int, int, str] | None:
    """The number right after the disease's whole name in an entry that goes on after it
    ("Central hypoventilation syndrome, congenital, 1, with or without Hirschsprung
    disease" of "Congenital central hypoventilation syndrome"), read in the catalogue's
    inverted order too (`biorag.knowledge.names.subtype_token`)."""
    token = subtype_token(disease_key(disease_name), entry_name)
    return _number(token) if token else None


def about(disease_name: str, entry_name: str) -> bool:
    """Whether an entry's name carries every core word of the disease's name."""
    words = set(_core(disease_name)[0])
    return bool(words) and words <= set(_core(entry_name)[0])


def order_genes(disease_name: str, genes: list[dict[str, Any]],
                entries: dict[int, list[tuple[str, str, list[Link]]]], sizes: dict[str, int]) -> list[dict[str, Any]]:
    """`genes` (dicts with gene_id, symbol and ``links``: [{"source", "note"}] to the disease)
    in the order of the module docstring. `entries`: gene id -> (disease id, name, links)
    of every catalogue entry linking the gene; `sizes`: entry id -> how many genes it links."""

    def key(g: dict[str, Any]) -> tuple[Any, ...]:
        direct = causal([(x["source"], x["note"]) for x in g["links"]])
        # (causal link, the gene's alone) -> its lowest subtype number of that kind
        numbers: dict[tuple[bool, bool], tuple[int, int, str]] = {}
        count = 0
        for did, name, links in entries.get(g["gene_id"], []):
            if not about(disease_name, name):
                continue
            count += 1
            if (sub := subtype_number(disease_name, name, sizes.get(did) == 1)) is not None:
                kind = (causal(links), sizes.get(did) == 1)
                numbers[kind] = min(numbers.get(kind, _NO_NUMBER), sub)
        strong = direct or any(cause for cause, _ in numbers)
        link = 0 if direct else 1 if strong else 2
        # a strong gene's causal subtypes only; its own subtype first
        number = numbers.get((strong, True)) or numbers.get((strong, False)) or _NO_NUMBER
        return (link, number, -count, g["symbol"], g["gene_id"])

    return sorted(genes, key=key)
