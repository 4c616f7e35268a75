"""`biorag eval prioritise --cases FILE`: the gold gene's rank over solved cases (added to
the eval group by `register(app)`, called from cli/commands/evaluate.py)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)


def _progress(label: str):
    t0 = time.perf_counter()

    def show(done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - t0, 1e-9)
        sys.stderr.write(f"\r{label}: {done}/{total} ({rate:.2f}/s)")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


@friendly_errors
def prioritise(
    cases: Annotated[Path, typer.Option("--cases", "-c", help=(
        "Solved cases: the development JSONL (../shared/data/phenopackets/dev_cases.jsonl), a phenopacket, "
        "or a folder of phenopackets."))],
    max_features: Annotated[int, typer.Option("--max-features", min=0, help="Use the first N observed features "
                                              "of a case (0 = all; the team's hidden cases have at most 8).")] = 8,
    words: Annotated[bool, typer.Option("--words/--ids", help="Ask each case in words through the agent "
                                        "(`biorag ask`'s first line) instead of ranking its HPO ids.")] = False,
    folds: Annotated[int, typer.Option("--folds", min=2, max=20, help="Cross-validation folds over cohorts (genes).")] = 5,
    leave_own: Annotated[bool, typer.Option("--leave-own-disease/--keep-own-disease", help=(
        "Leave the case's own disease (its gene-disease annotation) out of the ranking: how much the "
        "figure depends on curation."))] = False,
    limit: Annotated[int | None, typer.Option("--limit", "-n", help="Only the first N cases.")] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.jsonl, summary.json, ranks.png.")] = Path(
        "eval-prioritise"),
    as_json: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Top-1/3/10, mean reciprocal rank and the rank distribution (ranks.png), on all cases
    and on the coverable ones, cross-validated by cohort, beside Exomiser, PhenoBrain and the
    best LLM. Example:

      biorag eval prioritise --cases ../shared/data/phenopackets/dev_cases.jsonl --out runs/prio
    """
    from biorag.knowledge.phenotype_types import Patient, ScoringParams
    from evaluation.prioritise import (
        ANCHORS,
        capped,
        cross_validate,
        genes_in_answer,
        metrics,
        param_grid,
        plot_ranks,
        question_for,
        rank_buckets,
        read_cases,
    )
    from retrievers.stores.hpo_store import HpoStore, hpo_store_path

    settings = settings_from_options(preset, set_)
    items = read_cases(cases)[:limit] if limit else read_cases(cases)
    store = HpoStore(hpo_store_path(settings))
    model = store.model()
    linked = set(model.symbols.values())
    patients = []
    for c in items:
        case = capped(c, max_features)
        patients.append(Patient(store.resolve_terms(case.observed).ids, store.resolve_terms(case.excluded).ids,
                                case.onset, case.onset_age_years, case.age_years, case.sex))
    t0 = time.perf_counter()
    cv = None
    questions: list[str | None] = [None] * len(items)
    if words:
        from application.engine import build_agent

        agent = build_agent(settings)
        ranks: list[int | None] = []
        show = _progress("asking")
        for i, c in enumerate(items):
            questions[i] = question_for(c, capped(c, max_features).observed, i)
            genes = genes_in_answer(agent.answer(questions[i]).answer, linked)
            ranks.append(genes.index(c.gene) + 1 if c.gene in genes else None)
            show(i + 1, len(items))
        shipped = ranks
    else:
        index = {id(c): p for c, p in zip(items, patients, strict=True)}

        def rank_with(c, params):
            leave = [c.disease_id] if leave_own and c.disease_id else []
            return model.gene_rank(index[id(c)], params, c.gene, leave)

        shipped = [rank_with(c, ScoringParams()) for c in items]
        cv = cross_validate(items, rank_with, param_grid(), folds, _progress("grid"))
        ranks = cv["ranks"]
    store.close()
    cover = [c.gene in linked for c in items]
    by = {"cross-validated": ranks, "shipped constants": shipped} if cv else {"asked in words": ranks}
    figures = {name: {"all": metrics(r), "coverable": metrics([x for x, ok in zip(r, cover, strict=True) if ok]),
                      "ranks": rank_buckets(r)} for name, r in by.items()}
    out.mkdir(parents=True, exist_ok=True)
    plot = plot_ranks(out / "ranks.png", {k: v for k, v in by.items()},
                      f"gold gene rank, {len(items)} cases ({sum(cover)} coverable)")
    with open(out / "results.jsonl", "w", encoding="utf-8") as fh:
        for i, c in enumerate(items):
            fh.write(json.dumps({"id": c.id, "cohort": c.cohort, "gene": c.gene, "coverable": cover[i],
                                 "rank": ranks[i], "rank_shipped": shipped[i], "features": patients[i].observed,
                                 "excluded": patients[i].excluded, "question": questions[i]}) + "\n")
    summary = {"cases": str(cases), "n": len(items), "coverable": sum(cover), "max_features": max_features,
               "mode": "words (agent)" if words else "HPO ids", "leave_own_disease": leave_own, "folds": folds,
               "figures": figures, "anchors": ANCHORS, "cv": {k: v for k, v in (cv or {}).items() if k != "ranks"},
               "hpo_release": store.release, "seconds": round(time.perf_counter() - t0, 1), "plot": str(plot)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    if as_json:
        print_json(summary)
        return
    typer.echo(f"{len(items)} cases, {sum(cover)} coverable (gold gene linked to an annotated disease in HPO "
               f"{store.release}); {summary['mode']}, at most {max_features or 'all'} features"
               + ("; own disease left out" if leave_own else ""))
    typer.echo(f"{'':<44}{'top-1':>7}{'top-3':>7}{'top-10':>7}{'MRR':>7}")
    for name, fig in figures.items():
        for subset in ("all", "coverable"):
            m = fig[subset]
            label = f"BioRAG, {name} ({subset}, n={m['n']})"
            typer.echo(f"{label:<44}{m['top1']:>7.3f}{m['top3']:>7.3f}"
                       f"{m['top10']:>7.3f}{m['mrr']:>7.3f}")
    for who, figs in ANCHORS.items():
        cells = "".join(f"{figs[k]:>7.3f}" if k in figs else f"{'':>7}" for k in ("top1", "top3", "top10"))
        typer.echo(f"{who[:43]:<44}{cells}")
    if cv:
        typer.echo("constants chosen per fold: " + "; ".join(
            f"{ch['fold']}: partial {ch['params']['partial']}, size {ch['params']['annotation_size']}, "
            f"excluded {ch['params']['excluded_weight']}, support {ch['params']['support']}, "
            f"relevance {ch['params']['excluded_relevance']}, profile {ch['params']['gene_profile']}"
            for ch in cv["chosen"]))
    typer.echo(f"rank distribution: {figures[next(iter(figures))]['ranks']}")
    typer.echo(f"plot: {plot}; results: {out}/results.jsonl, {out}/summary.json")


def register(app: typer.Typer) -> None:
    """Add `prioritise` to the eval command group."""
    app.command("prioritise")(prioritise)
