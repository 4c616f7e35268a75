"""`biorag eval retrieval`: the retrieval benchmark (added to the eval group by
`register(app)`, called from cli/commands/evaluate.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biorag.contracts.errors import InputError
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)


@friendly_errors
def retrieval(
    dataset: Annotated[str, typer.Option("--dataset", help="pubmedqa or bioasq.")],
    questions: Annotated[
        list[Path],
        typer.Option("--questions", "-q", help="PubMedQA ori_pqal.json, or BioASQ golden JSON files/dirs (repeatable)."),
    ],
    corpus: Annotated[
        list[Path] | None,
        typer.Option("--corpus", help="Distractor records (PubMed XML/JSONL files or dirs), e.g. ../shared/data/pubmed_xml/pubmed_records.jsonl.gz. Repeatable."),
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Output directory (index, results.csv, summary.json, retrieval.png).")] = Path("eval-retrieval"),
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N questions.")] = None,
    corpus_limit: Annotated[int | None, typer.Option("--corpus-limit", help="At most N distractor records.")] = None,
    mode: Annotated[list[str] | None, typer.Option("--mode", help="dense, mesh_gold, mesh_tagger (filter), mesh_boost, bm25 (default: all). Repeatable.")] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Rebuild the benchmark index even if OUT already has one.")] = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recall@1/4/10 and MRR of gold PMIDs: dense, MeSH-filtered (gold / tagger), MeSH-boosted, and BM25.

    Also prints build throughput (parse/clean/embed/load vs the raw embedding rate), query
    latency p50/p95 and index size. Example:

      biorag eval retrieval --dataset pubmedqa -q ../shared/data/pubmedqa/ori_pqal.json
        --corpus ../shared/data/pubmed_xml/pubmed_records.jsonl.gz --out runs/retrieval
    """
    from evaluation.retrieval import MODES, run

    if dataset not in ("pubmedqa", "bioasq"):
        raise InputError(f"unknown dataset '{dataset}': choose pubmedqa or bioasq")
    for p in [*questions, *(corpus or [])]:
        if not p.exists():
            raise InputError(f"{p} does not exist")
    modes = list(mode or [])
    bad = [m for m in modes if m not in MODES]
    if bad:
        raise InputError(f"unknown --mode {bad[0]}: choose one of {', '.join(MODES)}")
    settings = settings_from_options(preset, set_)
    summary = run(settings, dataset, list(questions), list(corpus or []), out, limit=limit,
                  corpus_limit=corpus_limit, modes=modes or None, rebuild=rebuild)
    if as_json:
        print_json(summary)
        return
    typer.echo(f"{summary['dataset']}: {summary['questions']} questions over {summary['corpus_gold']} gold + "
               f"{summary['corpus_distractors']} distractor documents")
    typer.echo(f"{'mode':<12} {'R@1':>6} {'R@4':>6} {'R@10':>6} {'MRR':>6} {'p50 ms':>8} {'p95 ms':>8} {'widened':>8} {'exact':>6}")
    for m, v in summary["modes"].items():
        typer.echo(f"{m:<12} {v['recall@1']:>6.3f} {v['recall@4']:>6.3f} {v['recall@10']:>6.3f} {v['mrr@10']:>6.3f} "
                   f"{v['p50_ms']:>8.1f} {v['p95_ms']:>8.1f} {v['widened_share']:>8.2f} {v['exact_share']:>6.2f}")
    if "build" in summary:
        b = summary["build"]
        typer.echo(f"build: {b['kept']} records in {b['wall_s']}s = {b['records_per_s']}/s (start-up {b['startup_s']}s; parse "
                   f"{b['parse_s']}s, clean {b['clean_s']}s in the reader thread; embed {b['embed_s']}s = "
                   f"{b['embed_in_build_per_s']}/s; load {b['load_s']}s); raw embed rate "
                   f"{summary['raw_embed_rate_per_s']}/s (median of {summary['raw_embed_rate_samples']}) -> build/raw "
                   f"{b['build_vs_raw_embed_rate']}")
    typer.echo(f"index size {summary['index_size_mb']} MB; results in {out}/results.csv, {out}/retrieval.png")


def register(app: typer.Typer) -> None:
    """Add `retrieval` to the eval command group."""
    app.command("retrieval")(retrieval)
