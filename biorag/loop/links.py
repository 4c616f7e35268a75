"""Whether the records link a gene to a disease it is asked about in, and, when they do
not, what they link the gene to.

A question about a gene in the context of a disease ("is tau involved in Alzheimer
disease?", "does FBN1 cause Marfan syndrome?") is answered with the gene's record, and
checked against the disease's genes (`Intent.checks` taking the disease,
biorag.understanding.analysis): every source that declares a disease's genes reads them from its own
records, and each record that lists the gene links it to the record's disease. A record says
who linked each gene (`RecordLinks.gene_links`, read by its source from its typed record:
gene symbol -> the catalogues, in plain words: "ClinVar", "NCBI mim2gene_medgen", "HPO
annotations"); a record without them (genes a disease name merely names, genes ranked for
phenotypes) links nothing.

When no record links them, the gene's own diseases are looked up (`Intent.checks` taking
the gene: the fields that list a gene's diseases, HPO's today). A gene's record lists them
(`RecordLinks.diseases`, (id, name)) and says who linked each (`RecordLinks.disease_links`:
disease id -> the catalogues). Then the gene's record answers nothing that was asked: the
question turns to the literature (`biorag.loop.literature_turn`), and the statement follows
its answer only where the literature gives none.

The statement is one line, or two, the records cited under their own catalogue:

- "FBN1 is linked to Marfan syndrome [omim:154700] (by ClinVar, HPO annotations, ...)";
- "no link between MAPT and Alzheimer disease in ClinVar, HPO annotations or NCBI
  mim2gene_medgen (4 Alzheimer disease records checked) — absent from these catalogues
  only": the catalogues' silence, never "not involved"; the records checked are cited, not
  written out;
- "no local record of the genes of D to check X against" when no source holds the disease's
  genes (nothing is cited: there is nothing to cite);

then, after either of the last two, once the gene's diseases were looked up:

- "MAPT is linked to: Frontotemporal dementia [omim:600274]; ...; and 9 more (by HPO
  annotations)": at most `MAX_DISEASES`, and fewer when the line would pass `LINE_CHARS`;
  each disease cited (a record made from the gene's retrieved record, nothing else);
- "no disease linked to X in HPO annotations — absent from this catalogue only".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from biorag.contracts.models import Evidence
from biorag.contracts.sources import Source, record_links
from biorag.knowledge.catalogues import (
    GENE_LINKERS,
    ID_PREFIXES,
    catalogue_of,
    cited_as,
    record_url,
)
from biorag.understanding.analysis import Analysis, Entity, Hop

#: at most this many disease records are cited for a link found
MAX_RECORDS = 4
#: at most this many of a gene's diseases are named ("and N more" for the rest)
MAX_DISEASES = 5
#: a line of the statement is read in one glance: the gene's diseases stop before this
LINE_CHARS = 250
_CATALOGUE_ORDER = list(dict.fromkeys(ID_PREFIXES.values()))


@dataclass
class LinkStatement:
    text: str
    used: list[Evidence] = field(default_factory=list)
    linked: bool = False


def _subject(analysis: Analysis) -> tuple[str, Entity] | None:
    """(the gene's symbol, the disease) of a question asking a gene in a disease, else None."""
    gene = next((e for e in analysis.entities if e.role == "subject" and e.kind == "gene" and e.confident), None)
    disease = next((e for e in analysis.entities if e.kind == "disease" and e.confident), None)
    if gene is None or disease is None or len(gene.canonical) > 1:
        return None
    return (gene.canonical[0] if gene.canonical else gene.text), disease


def gene_check_queries(analysis: Analysis) -> dict[Hop, str]:
    """The checks that list the gene's diseases, each with its query (the gene's symbol)."""
    found = _subject(analysis)
    if analysis.intent is None or found is None:
        return {}
    return {h: found[0] for h in analysis.intent.checks if h.takes == ("gene",)}


def gene_disease_link(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source],
                      tried: Callable[[str, str], bool] | None = None) -> LinkStatement | None:
    """The line saying whether the records link the question's gene to its disease (and, when
    they do not, the line saying what they link the gene to); None when the question asks no
    such check, or before any checking source was asked. `tried(source, query)` says whether
    a source was asked a query (the loop's attempts): a lookup of the gene's diseases that
    gave nothing is then said to have found none; without it, it is not mentioned."""
    intent = analysis.intent
    if intent is None or not intent.checks or (found := _subject(analysis)) is None:
        return None
    symbol, disease = found
    asked = [h for h in intent.checks if h.takes == ("disease",) and h.source in sources
             and any(e.source == h.source for e in evidence)]
    records: dict[str, tuple[Evidence, dict[str, list[str]]]] = {}  # cited id -> (record, gene -> linkers)
    for hop in asked:
        reading = sources[hop.source].read(hop.field, [e for e in evidence if e.source == hop.source], [disease.text])
        for rec in record_links(sources[hop.source], reading.used) if reading is not None else []:
            if not rec.gene_links:
                continue
            _, merged = records.setdefault(rec.evidence.cited, (rec.evidence, {}))
            for g, who in rec.gene_links.items():
                merged[g] = list(dict.fromkeys([*merged.get(g, []), *who]))
    if not asked and not records:
        return None
    if not records:
        statement = LinkStatement(f"no local record of the genes of {disease.text} to check {symbol} against")
    else:
        linking = [(ev, links[symbol]) for ev, links in records.values() if symbol in links][:MAX_RECORDS]
        if linking:
            text = f"{symbol} is linked to " + "; ".join(
                f"{ev.title} [{ev.cited}] (by {', '.join(who)})" for ev, who in linking)
            return LinkStatement(text, [ev for ev, _ in linking], linked=True)
        checked = [ev for ev, _ in records.values()]
        catalogues = sorted({w for _, links in records.values() for who in links.values() for w in who})
        named = ", ".join(catalogues[:-1]) + " or " + catalogues[-1] if len(catalogues) > 1 else catalogues[0]
        n = len(checked)
        statement = LinkStatement(
            f"no link between {symbol} and {disease.text} in {named} "
            f"({n} {disease.text} record{'s' if n != 1 else ''} checked) — absent from these catalogues only",
            checked)
    if (other := gene_diseases(analysis, evidence, sources, symbol, tried)) is not None:
        statement.text += "\n" + other.text
        statement.used += [e for e in other.used if e not in statement.used]
    return statement


def gene_diseases(analysis: Analysis, evidence: list[Evidence], sources: Mapping[str, Source], symbol: str,
                  tried: Callable[[str, str], bool] | None = None) -> LinkStatement | None:
    """The diseases the records link the gene to (from the checks listing a gene's
    diseases), each cited under its own catalogue; that there are none when the lookups
    were asked and gave none; None when no lookup was asked yet."""
    checks = [(h, q) for h, q in gene_check_queries(analysis).items() if h.source in sources]
    diseases: dict[str, tuple[Evidence, str, list[str]]] = {}  # disease id -> (gene record, name, linkers)
    asked = []
    for hop, query in checks:
        source = sources[hop.source]
        own = [r.evidence for r in record_links(source, [e for e in evidence if e.source == hop.source])
               if symbol in (r.symbol, r.evidence.title) and r.disease_links]
        reading = source.read(hop.field, own, [query]) if own else None
        if reading is not None or (tried is not None and tried(hop.source, query)):
            asked.append(hop.source)
        for rec in record_links(source, reading.used) if reading is not None else []:
            for did, name in rec.diseases:
                if did in rec.disease_links:
                    _, _, who = diseases.setdefault(did, (rec.evidence, name, []))
                    who += [w for w in rec.disease_links[did] if w not in who]
    if not asked:
        return None
    if not diseases:
        named = " or ".join(dict.fromkeys(GENE_LINKERS.get(s, s) for s in asked))
        return LinkStatement(f"no disease linked to {symbol} in {named} — absent from this catalogue only"
                             if len(set(asked)) == 1 else
                             f"no disease linked to {symbol} in {named} — absent from these catalogues only")
    # OMIM's entries first (the catalogue the disease's own records are cited under), then
    # the others in catalogue order; the records' own order within each
    ordered = sorted(diseases.items(), key=lambda item: _catalogue_rank(item[0]))
    head = f"{symbol} is linked to: "
    shown: list[tuple[str, tuple[Evidence, str, list[str]]]] = []
    for item in ordered[:MAX_DISEASES]:
        if shown and len(_line(head, [*shown, item], len(ordered))) > LINE_CHARS:
            break
        shown.append(item)
    used = [Evidence(source=ev.source, id=did, title=name, cite_as=cited_as(did),
                     text=f"{symbol} is linked to {name} ({did}) by {', '.join(who)}",
                     url=record_url(*catalogue_of(did)), linked_by=who,
                     metadata={"kind": "gene_disease_link", "symbol": symbol, "disease_id": did, "name": name,
                               "from_record": ev.cited})
            for did, (ev, name, who) in shown]
    return LinkStatement(_line(head, shown, len(ordered)), used, linked=True)


def _catalogue_rank(disease_id: str) -> int:
    catalogue, _ = catalogue_of(disease_id)
    return _CATALOGUE_ORDER.index(catalogue) if catalogue in _CATALOGUE_ORDER else len(_CATALOGUE_ORDER)


def _line(head: str, shown: list[tuple[str, tuple[Evidence, str, list[str]]]], total: int) -> str:
    items = [f"{name} [{cited_as(did)}]" for did, (_, name, _) in shown]
    if total > len(shown):
        items.append(f"and {total - len(shown)} more")
    who = list(dict.fromkeys(w for _, (_, _, linkers) in shown for w in linkers))
    return head + "; ".join(items) + f" (by {', '.join(who)})"
