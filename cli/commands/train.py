"""`biorag train prepare|embedder|mesh`: training data, embedder fine-tuning, MeSH tagger."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from biorag.settings import EmbedderTrainingSettings, MeshTrainingSettings
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    friendly_errors,
    print_json,
    settings_from_options,
)
from cli.commands.settings_flags import settings_flags

app = typer.Typer(
    help=(
        "Train BioRAG's models: prepare training data from PubMed records, fine-tune the embedder "
        "(contrastive, in-batch negatives), train a MeSH tagger for questions (LoRA). "
        "Runs on a GPU when there is one (device auto) and on CPU with small settings."
    ),
    no_args_is_help=True,
)

SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for data order, initial weights and the split.")]
DataOpt = Annotated[Path, typer.Option("--data", help="Directory written by `biorag train prepare`.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")]


def _echo_metrics(title: str, metrics: dict, indent: int = 2) -> None:
    typer.echo(title)
    for key, val in metrics.items():
        if isinstance(val, dict):
            if all(not isinstance(v, dict) for v in val.values()):
                shown = ", ".join(f"{k}={v}" for k, v in val.items())
                typer.echo(" " * indent + f"{key}: {shown}")
            else:
                _echo_metrics(" " * indent + f"{key}:", val, indent + 2)
        else:
            typer.echo(" " * indent + f"{key}: {val}")


@app.command("prepare")
@friendly_errors
def prepare_cmd(
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the training data to.")],
    inputs: Annotated[
        list[str] | None,
        typer.Option("--input", "-i", help="PubMed/MEDLINE XML, MEDLINE text or JSONL files or directories (as for `biorag index build`). Repeatable."),
    ] = None,
    pubmedqa: Annotated[
        Path | None,
        typer.Option("--pubmedqa", help="PubMedQA ori_pqal.json: questions for the MeSH tagger and the retrieval benchmark."),
    ] = None,
    bioasq: Annotated[
        Path | None,
        typer.Option("--bioasq", help="Folder of BioASQ task B *_golden.json files: 7B-11B questions -> gold documents "
                     "become pairs of kind 'bioasq' (12B's questions and gold documents never do: it is the test)."),
    ] = None,
    bioasq_per_question: Annotated[
        int, typer.Option("--bioasq-per-question", help="At most this many gold documents per BioASQ question (0: all).")
    ] = 0,
    heldout: Annotated[float, typer.Option("--heldout", help="Fraction of PMIDs held out for evaluation.")] = 0.1,
    limit: Annotated[int | None, typer.Option("--limit", help="Read at most this many records.")] = None,
    min_abstract_words: Annotated[int, typer.Option("--min-abstract-words", help="Abstracts shorter than this give no pairs (index cleaning rule).")] = 40,
    seed: SeedOpt = 0,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Build contrastive pairs and MeSH tagger examples from PubMed records.

    Pairs: title -> abstract, a question-like rewording of the title -> abstract, and a
    question from the record's main MeSH topics -> abstract; with --bioasq, also BioASQ's
    expert questions -> their gold documents (--input may then be left out). MeSH examples: record titles
    and PubMedQA questions with their MeSH descriptors, validated against the bundled MeSH
    vocabulary. Held-out split by PMID (stable across runs). PubMedQA PMIDs never enter
    the pairs, so the PubMedQA retrieval benchmark stays unseen.

    Example:

      biorag train prepare -i ../shared/data/pubmed_xml/pubmed_records.jsonl.gz --pubmedqa ../shared/data/pubmedqa/ori_pqal.json -o var/train-data

      biorag train prepare --bioasq ../shared/data/bioasq_taskb_golden -o var/train-bioasq
    """
    from training.prepare import prepare

    manifest = prepare(inputs or [], out, pubmedqa=pubmedqa, bioasq=bioasq, bioasq_per_question=bioasq_per_question,
                       heldout=heldout, seed=seed, limit=limit, min_abstract_words=min_abstract_words,
                       progress=not (quiet or as_json))
    if as_json:
        print_json(manifest.model_dump())
        return
    e = manifest.extra
    typer.echo(f"prepared {out}: {e['records']} records -> {e['pairs_train']} training / {e['pairs_heldout']} held-out pairs "
               f"{e['pairs_train_by_kind']}; MeSH examples {e['mesh_train']} training / {e['mesh_heldout']} held-out "
               f"({e['mesh_distinct_labels']} descriptors; {e['labels_unresolved']} unresolvable labels dropped); "
               f"PubMedQA items {e['pubmedqa_items']}; fingerprint {manifest.data_fingerprint}")
    if e.get("bioasq"):
        typer.echo(f"BioASQ: {e['bioasq_questions']} questions of {len(e['bioasq_files'])} golden file(s) -> {e['bioasq_pairs']} "
                   f"pairs; {e['bioasq_pairs_dropped_test_documents']} left out (their document is gold for a 12B question)")


@app.command("embedder")
@friendly_errors
@settings_flags(EmbedderTrainingSettings, "training.embedder")
def embedder_cmd(
    data: DataOpt,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the fine-tuned model (a sentence-transformers folder).")],
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    flags: dict | None = None,
) -> None:
    """Fine-tune a sentence embedder on the prepared pairs (symmetric in-batch contrastive loss).

    Evaluates before and after on the held-out pairs and on PubMedQA retrieval (recall@1/4/10,
    MRR), prints and saves them (metrics.json, biorag_manifest.json). The output folder is
    what `--set index.embedder=OUT` expects. Every option below is the setting
    training.embedder.NAME (presets, BIORAG_TRAINING__EMBEDDER__NAME and --set work too).
    Small CPU run (a few minutes):

      biorag train embedder --data var/train-data -o var/embedder --max-pairs 512 --epochs 1 --batch-size 16 --max-seq-length 128 --eval-limit 300

    Full GPU run: drop --max-pairs/--eval-limit, --base /models/PubMedBERT --batch-size 128.
    """
    from training.embedder import train_embedder
    from training.prepare import Prepared

    cfg = settings_from_options(preset, set_, overrides=flags).training.embedder
    log = (lambda _m: None) if as_json else typer.echo
    manifest = train_embedder(Prepared.open(data), out, cfg, progress=not (quiet or as_json), log=log)
    if as_json:
        print_json(manifest.model_dump())
        return
    _echo_metrics(f"embedder written to {out} ({manifest.dim}-dim, base {manifest.base_model}):", manifest.metrics)
    typer.echo(f"use it: biorag index build --input ... --rebuild --set index.embedder={out}")


@app.command("mesh")
@friendly_errors
@settings_flags(MeshTrainingSettings, "training.mesh")
def mesh_cmd(
    data: DataOpt,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the tagger artifact (set mesh.tagger to it).")],
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    flags: dict | None = None,
) -> None:
    """Train a MeSH tagger for questions and evaluate it on the held-out split.

    Reports micro/macro F1 and precision@1/3 (overall, on PubMed titles and on real PubMedQA
    questions) and PubMedQA retrieval recall@4 when the predictions drive the MeSH filter,
    next to the dictionary tagger. Use it with `--set mesh.tagger=OUT`. Every option below is
    the setting training.mesh.NAME (presets, BIORAG_TRAINING__MESH__NAME and --set work too).
    Small CPU runs:

      biorag train mesh --data var/train-data -o var/mesh-cls --max-train 1500 --epochs 3 --eval-limit 300

      biorag train mesh --data var/train-data -o var/mesh-gen --head generative --max-train 400 --epochs 1 --eval-limit 60
    """
    from training.mesh_train import train_mesh
    from training.prepare import Prepared

    cfg = settings_from_options(preset, set_, overrides=flags).training.mesh
    log = (lambda _m: None) if as_json else typer.echo
    manifest = train_mesh(Prepared.open(data), out, cfg, progress=not (quiet or as_json), log=log)
    if as_json:
        print_json(manifest.model_dump())
        return
    _echo_metrics(f"MeSH tagger ({cfg.head}) written to {out}, {manifest.dim} descriptors:", manifest.metrics)
    typer.echo(f"use it: biorag ask \"...\" --set mesh.tagger={out}")
