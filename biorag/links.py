"""Whether the records link a gene to a disease it is asked about in.

A question about a gene in the context of a disease ("is tau involved in Alzheimer
disease?", "does FBN1 cause Marfan syndrome?") is answered with the gene's record, and
checked against the disease's genes (`Intent.checks`, biorag.understanding): every source
that declares a disease's genes reads them from its own records, and each record that lists
the gene links it to the record's disease. A record says who linked each gene in its
``gene_links`` metadata (gene symbol -> the catalogues, in plain words: "ClinVar",
"NCBI mim2gene_medgen", "HPO annotations"); a record without it (genes a disease name
merely names, genes ranked for phenotypes) links nothing.

The statement is one line, the disease's records cited under their own catalogue:

- "FBN1 is linked to Marfan syndrome [omim:154700] (by ClinVar, HPO annotations, ...)";
- "no gene–disease link between MAPT and Alzheimer disease [omim:104300] in the local
  catalogues (ClinVar, ...; records checked: ...): absent from these catalogues only": the
  catalogues' silence, never "not involved";
- "no local record of the genes of D to check X against" when no source holds the disease's
  genes (nothing is cited: there is nothing to cite).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from biorag.models import Evidence
from biorag.sources import Source
from biorag.understanding import Analysis

#: at most this many disease records are cited for a link found, or checked for none
MAX_RECORDS = 4


@dataclass
class LinkStatement:
    text: str
    used: list[Evidence] = field(default_factory=list)
    linked: bool = False


def gene_disease_link(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source]) -> LinkStatement | None:
    """The line saying whether the records link the question's gene to its disease; None
    when the question asks no such check, or before any checking source was asked."""
    intent = analysis.intent
    if intent is None or not intent.checks:
        return None
    gene = next((e for e in analysis.entities if e.role == "subject" and e.kind == "gene" and e.confident), None)
    disease = next((e for e in analysis.entities if e.kind == "disease" and e.confident), None)
    if gene is None or disease is None or len(gene.canonical) > 1:
        return None
    symbol = gene.canonical[0] if gene.canonical else gene.text
    asked = [h for h in intent.checks if h.source in sources and any(e.source == h.source for e in evidence)]
    records: dict[str, tuple[Evidence, dict[str, list[str]]]] = {}  # cited id -> (record, gene -> linkers)
    for hop in asked:
        reading = sources[hop.source].read(hop.field, [e for e in evidence if e.source == hop.source], [disease.text])
        for ev in reading.used if reading is not None else []:
            links = ev.metadata.get("gene_links")
            if not isinstance(links, dict) or not links:
                continue
            _, merged = records.setdefault(ev.cited, (ev, {}))
            for g, who in links.items():
                merged[g] = list(dict.fromkeys([*merged.get(g, []), *who]))
    if not asked and not records:
        return None
    if not records:
        return LinkStatement(f"no local record of the genes of {disease.text} to check {symbol} against")
    linking = [(ev, links[symbol]) for ev, links in records.values() if symbol in links][:MAX_RECORDS]
    if linking:
        text = f"{symbol} is linked to " + "; ".join(
            f"{ev.title} [{ev.cited}] (by {', '.join(who)})" for ev, who in linking)
        return LinkStatement(text, [ev for ev, _ in linking], linked=True)
    checked = [ev for ev, _ in records.values()][:MAX_RECORDS]
    catalogues = sorted({w for _, links in records.values() for who in links.values() for w in who})
    names = "; ".join(f"{ev.title} [{ev.cited}]" for ev in checked)
    return LinkStatement(
        f"no gene–disease link between {symbol} and {disease.text} in the local catalogues "
        f"({', '.join(catalogues)}; records checked: {names}): absent from these catalogues only",
        checked)
