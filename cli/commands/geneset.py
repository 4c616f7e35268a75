"""`biorag geneset GENES...`: what do these genes do together? (enrichment, a name, verified claims)"""

from __future__ import annotations

from typing import Annotated

import typer

from biorag.contracts.errors import InputError
from biorag.knowledge.gene_sets import LIBRARY_NAMES
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)


@friendly_errors
def command(
    genes: Annotated[list[str], typer.Argument(help="Gene symbols, separated by spaces (commas work too).")],
    exclude: Annotated[list[str] | None, typer.Option(
        "--exclude", "-x", help=f"Leave a term library out: {', '.join(LIBRARY_NAMES)} (those on are "
        "geneset.libraries; hgnc_groups, HGNC gene groups, is off by default). Repeatable.")] = None,
    json_: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Name the process a gene set shares, from enrichment against GO Biological Process,
    Reactome, HPO and the MeSH terms of indexed abstracts naming the genes; every claim is
    checked against those libraries. Example: biorag geneset ERBB2 ERBB4 FGFR2 FGFR4 HRAS KRAS"""
    from retrievers.geneset.retriever import GeneSetInterpreter

    exclude = excluded_libraries(exclude)
    settings = settings_from_options(preset, set_)
    interpreter = GeneSetInterpreter.from_settings(settings, exclude=exclude)
    try:
        report = interpreter.interpret(genes)
    finally:
        interpreter.close()
    if json_:
        print_json(report.as_dict())
        return
    typer.echo(render(report.as_dict()))


def excluded_libraries(exclude: list[str] | None) -> list[str]:
    """The term libraries `--exclude` names; a one-line error for a name that is not one."""
    from retrievers.geneset.retriever import LIBRARY_ORDER

    bad = [x for x in exclude or [] if x not in LIBRARY_ORDER]
    if bad:
        raise InputError(f"unknown library {', '.join(bad)} for --exclude: choose from {', '.join(LIBRARY_ORDER)}")
    return list(exclude or [])


def render(d: dict) -> str:
    """The report as text: the name first, the GO and Reactome terms a question naming them
    gets, then the genes, the enriched terms per library
    with their supporting genes, the verified and the removed claims, and notes."""
    lines = [d["answer"]]
    for label, key in (("GO Biological Process term", "go_term"), ("Reactome pathway", "pathway_term")):
        if e := d.get(key):  # what `biorag ask` answers a question naming GO or Reactome with
            stats = f"({e['term']}, {e['k']}/{len(d['genes']['used'])} genes, adjusted p {e['p_adj']:.2g})"
            if e.get("why_not"):  # `ask` refuses it too, and gives it as a lead
                lines.append(f"{label}: none answers; the closest, a lead only: {e['name']} {stats}, {e['why_not']}")
            else:
                lines.append(f"{label}: {e['name']} {stats}")
    lines.append("")
    g = d["genes"]
    lines.append(f"genes used ({len(g['used'])}): " + " ".join(x["symbol"] for x in g["used"]))
    for r in g["renamed"]:
        lines.append(f"  {r['listed']} -> {r['symbol']} (current symbol)")
    if g["unknown"]:
        lines.append("  not recognised: " + ", ".join(g["unknown"]))
    for a in g["ambiguous"]:
        lines.append(f"  ambiguous: {a['listed']} could be {', '.join(a['candidates'])}; give the current symbol")
    for lib, terms in d["enriched"].items():
        lines.append(f"\n{lib} (universe {d['universes'][lib]:,} genes):")
        if not terms:
            lines.append("  no term shares 2 or more genes")
        for e in terms[:5]:
            lines.append(f"  {e['term']} {e['name']}: {e['k']}/{e['query_size']} genes, term size {e['term_size']}, "
                         f"adjusted p {e['p_adj']:.2g} -- {', '.join(e['overlap'])}")
    if d["claims"]:
        lines.append("\nverified claims:")
        lines += [f"  - {c['text']} [{'; '.join(c['evidence'])}]" for c in d["claims"]]
    if d["unsupported_claims"]:
        lines.append("\nremoved (unsupported) claims:")
        lines += [f"  - {c['text']}: {c['reason']}" for c in d["unsupported_claims"]]
    for note in d["notes"]:
        lines.append(f"note: {note}")
    if d.get("hpo_notice"):
        lines.append(d["hpo_notice"])
    return "\n".join(lines)
