"""`biorag train prepare|embedder|mesh`: training data, embedder fine-tuning, MeSH tagger."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.commands.common import JsonOpt, friendly_errors, print_json

app = typer.Typer(
    help=(
        "Train BioRAG's models: prepare training data from PubMed records, fine-tune the embedder "
        "(contrastive, in-batch negatives), train a MeSH tagger for questions (LoRA). "
        "Runs on a GPU when there is one (device auto) and on CPU with small settings."
    ),
    no_args_is_help=True,
)

DeviceOpt = Annotated[str, typer.Option("--device", help="auto (CUDA when present, else CPU), cpu, cuda, cuda:N, mps.")]
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
    inputs: Annotated[
        list[str],
        typer.Option("--input", "-i", help="PubMed/MEDLINE XML, MEDLINE text or JSONL files or directories (as for `biorag index build`). Repeatable."),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the training data to.")],
    pubmedqa: Annotated[
        Path | None,
        typer.Option("--pubmedqa", help="PubMedQA ori_pqal.json: questions for the MeSH tagger and the retrieval benchmark."),
    ] = None,
    heldout: Annotated[float, typer.Option("--heldout", help="Fraction of PMIDs held out for evaluation.")] = 0.1,
    limit: Annotated[int | None, typer.Option("--limit", help="Read at most this many records.")] = None,
    min_abstract_words: Annotated[int, typer.Option("--min-abstract-words", help="Abstracts shorter than this give no pairs (index cleaning rule).")] = 40,
    seed: SeedOpt = 0,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Build contrastive pairs and MeSH tagger examples from PubMed records.

    Pairs: title -> abstract, a question-like rewording of the title -> abstract, and a
    question from the record's main MeSH topics -> abstract. MeSH examples: record titles
    and PubMedQA questions with their MeSH descriptors, validated against the bundled MeSH
    vocabulary. Held-out split by PMID (stable across runs). PubMedQA PMIDs never enter
    the pairs, so the PubMedQA retrieval benchmark stays unseen.

    Example:

      biorag train prepare -i ../shared/data/pubmed_xml/pubmed_records.jsonl.gz --pubmedqa ../shared/data/pubmedqa/ori_pqal.json -o var/train-data
    """
    from training.prepare import prepare

    manifest = prepare(inputs, out, pubmedqa=pubmedqa, heldout=heldout, seed=seed, limit=limit,
                       min_abstract_words=min_abstract_words, progress=not (quiet or as_json))
    if as_json:
        print_json(manifest.model_dump())
        return
    e = manifest.extra
    typer.echo(f"prepared {out}: {e['records']} records -> {e['pairs_train']} training / {e['pairs_heldout']} held-out pairs "
               f"{e['pairs_train_by_kind']}; MeSH examples {e['mesh_train']} training / {e['mesh_heldout']} held-out "
               f"({e['mesh_distinct_labels']} descriptors; {e['labels_unresolved']} unresolvable labels dropped); "
               f"PubMedQA items {e['pubmedqa_items']}; fingerprint {manifest.data_fingerprint}")


@app.command("embedder")
@friendly_errors
def embedder_cmd(
    data: DataOpt,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the fine-tuned model (a sentence-transformers folder).")],
    base: Annotated[str | None, typer.Option("--base", help="Local model folder to start from (e.g. PubMedBERT, MedCPT); default: the bundled all-MiniLM-L6-v2.")] = None,
    epochs: Annotated[int, typer.Option("--epochs", min=1)] = 2,
    batch_size: Annotated[int, typer.Option("--batch-size", min=2, help="Pairs per batch (in-batch negatives = batch size - 1).")] = 32,
    grad_accum: Annotated[int, typer.Option("--grad-accum", min=1, help="Micro-batches per optimizer step.")] = 1,
    lr: Annotated[float, typer.Option("--lr")] = 2e-5,
    warmup_ratio: Annotated[float, typer.Option("--warmup-ratio")] = 0.1,
    max_seq_length: Annotated[int, typer.Option("--max-seq-length", help="Tokens per text (abstracts are truncated).")] = 256,
    max_pairs: Annotated[int | None, typer.Option("--max-pairs", help="Train on a random subset of this many pairs (CPU runs).")] = None,
    kinds: Annotated[str, typer.Option("--kinds", help="Comma-separated pair kinds: title,question,mesh.")] = "title,question,mesh",
    eval_limit: Annotated[int | None, typer.Option("--eval-limit", help="Evaluate on at most this many held-out records / PubMedQA items.")] = None,
    no_eval: Annotated[bool, typer.Option("--no-eval", help="Skip the before/after evaluation.")] = False,
    checkpoint_every: Annotated[int, typer.Option("--checkpoint-every", help="Save a checkpoint every N optimizer steps (0: each epoch).")] = 0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue from the last checkpoint in --out.")] = False,
    keep_checkpoints: Annotated[bool, typer.Option("--keep-checkpoints", help="Keep --out/checkpoints after a finished run (removed by default).")] = False,
    no_amp: Annotated[bool, typer.Option("--no-amp", help="Disable mixed precision on CUDA.")] = False,
    device: DeviceOpt = "auto",
    seed: SeedOpt = 0,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Fine-tune a sentence embedder on the prepared pairs (symmetric in-batch contrastive loss).

    Evaluates before and after on the held-out pairs and on PubMedQA retrieval (recall@1/4/10,
    MRR), prints and saves them (metrics.json, biorag_manifest.json). The output folder is
    what `--set index.embedder=OUT` expects. Small CPU run (a few minutes):

      biorag train embedder --data var/train-data -o var/embedder --max-pairs 512 --epochs 1 --batch-size 16 --max-seq-length 128 --eval-limit 300

    Full GPU run: drop --max-pairs/--eval-limit, --base /models/PubMedBERT --batch-size 128.
    """
    from training.embedder import EmbedderConfig, train_embedder
    from training.prepare import Prepared

    cfg = EmbedderConfig(
        base=base, epochs=epochs, batch_size=batch_size, grad_accum=grad_accum, lr=lr, warmup_ratio=warmup_ratio,
        max_seq_length=max_seq_length, max_pairs=max_pairs, kinds=tuple(k.strip() for k in kinds.split(",") if k.strip()),
        eval_limit=eval_limit, evaluate=not no_eval, checkpoint_every=checkpoint_every, resume=resume,
        amp=not no_amp, device=device, seed=seed, keep_checkpoints_after=keep_checkpoints,
    )
    log = (lambda _m: None) if as_json else typer.echo
    manifest = train_embedder(Prepared.open(data), out, cfg, progress=not (quiet or as_json), log=log)
    if as_json:
        print_json(manifest.model_dump())
        return
    _echo_metrics(f"embedder written to {out} ({manifest.dim}-dim, base {manifest.base_model}):", manifest.metrics)
    typer.echo(f"use it: biorag index build --input ... --rebuild --set index.embedder={out}")


@app.command("mesh")
@friendly_errors
def mesh_cmd(
    data: DataOpt,
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory for the tagger artifact (set mesh.tagger to it).")],
    head: Annotated[str, typer.Option("--head", help="classifier (LoRA encoder + multi-label head) or generative (LoRA causal LM, constrained decoding).")] = "classifier",
    base: Annotated[
        str | None,
        typer.Option("--base", help="classifier: encoder folder (default bundled MiniLM). generative: HF causal LM folder, .gguf file, smollm2-gguf (default: the bundled SmolLM2-135M-Instruct) or tiny-random (tests)."),
    ] = None,
    top_n: Annotated[int, typer.Option("--top-n", help="classifier: label space = the N most frequent descriptors.")] = 512,
    label_space: Annotated[str, typer.Option("--label-space", help="generative: names it may emit: train (seen in training) or vocabulary (all MeSH).")] = "train",
    epochs: Annotated[int | None, typer.Option("--epochs", min=1, help="Default 5 (classifier) or 2 (generative).")] = None,
    batch_size: Annotated[int | None, typer.Option("--batch-size", min=1, help="Default 32 (classifier) or 8 (generative).")] = None,
    grad_accum: Annotated[int, typer.Option("--grad-accum", min=1)] = 1,
    lr: Annotated[float | None, typer.Option("--lr", help="Default 5e-4 (classifier) or 2e-4 (generative).")] = None,
    lora_r: Annotated[int, typer.Option("--lora-r")] = 8,
    sources: Annotated[str, typer.Option("--sources", help="Example sources: title (PubMed titles), pubmedqa (real questions).")] = "title,pubmedqa",
    max_train: Annotated[int | None, typer.Option("--max-train", help="Train on a random subset of this many examples (CPU runs).")] = None,
    eval_limit: Annotated[int | None, typer.Option("--eval-limit", help="Evaluate on at most this many held-out examples.")] = None,
    k: Annotated[int, typer.Option("--k", help="Terms per question when evaluating (as mesh.max_terms).")] = 3,
    no_filtered_eval: Annotated[bool, typer.Option("--no-filtered-eval", help="Skip the MeSH-filtered PubMedQA retrieval evaluation.")] = False,
    no_amp: Annotated[bool, typer.Option("--no-amp", help="Disable mixed precision on CUDA.")] = False,
    device: DeviceOpt = "auto",
    seed: SeedOpt = 0,
    quiet: QuietOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Train a MeSH tagger for questions and evaluate it on the held-out split.

    Reports micro/macro F1 and precision@1/3 (overall, on PubMed titles and on real PubMedQA
    questions) and PubMedQA retrieval recall@4 when the predictions drive the MeSH filter,
    next to the dictionary tagger. Use it with `--set mesh.tagger=OUT`. Small CPU runs:

      biorag train mesh --data var/train-data -o var/mesh-cls --max-train 1500 --epochs 3 --eval-limit 300

      biorag train mesh --data var/train-data -o var/mesh-gen --head generative --max-train 400 --epochs 1 --eval-limit 60
    """
    from training.mesh_train import MeshConfig, train_mesh
    from training.prepare import Prepared

    gen = head == "generative"
    cfg = MeshConfig(
        head=head, base=base, top_n=top_n, label_space=label_space,
        epochs=epochs or (2 if gen else 5), batch_size=batch_size or (8 if gen else 32), grad_accum=grad_accum,
        lr=lr or (2e-4 if gen else 5e-4), lora_r=lora_r, lora_alpha=2 * lora_r,
        sources=tuple(s.strip() for s in sources.split(",") if s.strip()), max_train=max_train,
        eval_limit=eval_limit, k=k, filtered_eval=not no_filtered_eval, amp=not no_amp, device=device, seed=seed,
    )
    log = (lambda _m: None) if as_json else typer.echo
    manifest = train_mesh(Prepared.open(data), out, cfg, progress=not (quiet or as_json), log=log)
    if as_json:
        print_json(manifest.model_dump())
        return
    _echo_metrics(f"MeSH tagger ({head}) written to {out}, {manifest.dim} descriptors:", manifest.metrics)
    typer.echo(f"use it: biorag ask \"...\" --set mesh.tagger={out}")
