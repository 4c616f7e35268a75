"""`biorag eval geneset`: name GeneAgent's benchmark gene sets and score the names
(added to the eval group by `register(app)`, called from cli/commands/evaluate.py)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Annotated

import typer

from biorag.contracts.errors import BioragError
from biorag.knowledge.gene_sets import LIBRARY_NAMES
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)
from cli.commands.geneset import excluded_libraries


@friendly_errors
def geneset(
    questions: Annotated[Path, typer.Option("--questions", "-q", help=(
        "Benchmark file: NeST.tsv, GO_terms.csv or an MSigDB-layout CSV (\"ID\",\"Name\",\"Count\",\"Genes\")."))],
    out: Annotated[Path, typer.Option("--out", help="Output folder (results.jsonl, summary.json).")] = Path("eval-geneset"),
    limit: Annotated[int | None, typer.Option("--limit", "-n", help="Only the first N sets.")] = None,
    sample: Annotated[int | None, typer.Option("--sample", help="A random subset of N sets (with --seed).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --sample.")] = 0,
    exclude: Annotated[list[str] | None, typer.Option(
        "--exclude", "-x", help=f"Leave a library out as well ({', '.join(LIBRARY_NAMES)}). The benchmark's own "
        "library is always left out (GO sets are scored without GO BP).")] = None,
    similarity: Annotated[bool, typer.Option("--similarity/--no-similarity", help="Embedding similarity (loads the bundled MiniLM).")] = True,
    as_json: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """ROUGE-1/2/L and embedding similarity of proposed vs gold names, per set and on
    average, beside GeneAgent's and GPT-4's published figures. Example:

      biorag eval geneset -q ../shared/data/geneagent/NeST.tsv --out runs/nest
    """
    from evaluation.geneset_naming import (
        ANCHORS,
        HELD_OUT_LIBRARIES,
        NameScorer,
        read_benchmark,
    )
    from retrievers.geneset.retriever import GeneSetInterpreter

    exclude = excluded_libraries(exclude)
    layout, sets = read_benchmark(questions)
    if sample:
        sets = random.Random(seed).sample(sets, min(sample, len(sets)))
    if limit:
        sets = sets[:limit]
    held_out = sorted(set(HELD_OUT_LIBRARIES[layout]) | set(exclude))
    settings = settings_from_options(preset, set_)
    interpreter = GeneSetInterpreter.from_settings(settings, exclude=held_out)
    embedder = None
    if similarity:
        from biorag.ml.embedder import Embedder

        embedder = Embedder()
    scorer = NameScorer(embedder)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    t0 = time.perf_counter()
    try:
        for s in sets:
            try:
                rep = interpreter.interpret(s.genes)
                name, sig, libs = rep.name or "", rep.significant, rep.name_term.library if rep.name_term else None
                error = None
            except BioragError as e:
                name, sig, libs, error = "", False, None, str(e)
            rows.append({"id": s.id, "gold": s.gold, "proposed": name, "significant": sig, "library": libs,
                         "n_genes": len(s.genes), "error": error, **scorer.rouge(s.gold, name)})
    finally:
        interpreter.close()
    for row, sim in zip(rows, scorer.similarity([r["gold"] for r in rows], [r["proposed"] for r in rows]), strict=False):
        row["similarity"] = sim
    n = len(rows)
    mean = {k: round(sum(r[k] for r in rows) / n, 4) if n else 0.0
            for k in ("rouge1", "rouge2", "rougeL", *(("similarity",) if similarity else ()))}
    summary = {"benchmark": layout, "file": str(questions), "sets": n, "libraries_left_out": held_out,
               "libraries": interpreter.libraries, "named_significant": sum(r["significant"] for r in rows),
               "errors": sum(1 for r in rows if r["error"]), "mean": mean, "anchors": ANCHORS[layout],
               "similarity_model": "all-MiniLM-L6-v2 (GeneAgent used MedCPT)" if similarity else None,
               "seconds": round(time.perf_counter() - t0, 1), "sample": sample, "seed": seed if sample else None}
    with open(out / "results.jsonl", "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    if as_json:
        print_json(summary)
        return
    for r in rows:
        typer.echo(f"{r['id']}\tR-L {r['rougeL']:.3f}\t{r['gold']}  <-  {r['proposed'] or '(none)'}")
    typer.echo(f"\n{layout}: {n} sets ({summary['named_significant']} named by a significant term), libraries "
               f"{', '.join(interpreter.libraries)}; left out: {', '.join(held_out) or 'none'}")
    typer.echo(f"{'':<22}{'ROUGE-1':>9}{'ROUGE-2':>9}{'ROUGE-L':>9}{'similarity':>12}")
    typer.echo(f"{'BioRAG (this run)':<22}{mean['rouge1']:>9.3f}{mean['rouge2']:>9.3f}{mean['rougeL']:>9.3f}"
               f"{mean.get('similarity', float('nan')):>12.3f}")
    for who, figs in ANCHORS[layout].items():
        rl = figs.get("rougeL")
        typer.echo(f"{who + ' (published)':<22}{'':>9}{'':>9}{(f'{rl:.3f}' if rl is not None else 'n/a'):>9}")
    typer.echo(f"results: {out}/results.jsonl, {out}/summary.json")


def register(app: typer.Typer) -> None:
    """Add `geneset` to the eval command group."""
    app.command("geneset")(geneset)
