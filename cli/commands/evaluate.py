"""`biorag eval BENCHMARK ...`: run benchmarks under one or more configurations
(ablations), with resume, and write results.jsonl, scores.csv, report.md and plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from biorag.contracts.errors import BioragError, InputError
from cli.commands import eval_geneset, eval_prioritise
from cli.commands.common import (
    DisableOpt,
    EnableOpt,
    PresetOpt,
    ReplayOpt,
    SetOpt,
    friendly_errors,
    settings_from_options,
)

app = typer.Typer(
    help=(
        "Evaluate BioRAG on benchmarks (GeneTuring, GeneHop, MMLU medical, MedMCQA, PubMedQA, "
        "BioASQ) under ablations. Each configuration gets a folder with results.jsonl (question, "
        "gold, prediction, score, rounds, tools, replay misses, latency, full trace) and "
        "scores.csv; the output folder gets report.md, scores.csv, scores.png and latency.png. "
        "Re-running skips questions already answered under the same configuration key (settings, model, "
        "code version, store and index build ids) and merges into the existing report (--replace-report "
        "starts it over). Exit 1 when every question of a configuration failed; exit 2 for an unknown "
        "model, source or component."
    ),
    no_args_is_help=True,
)

QUESTION_HINTS = {
    "geneturing": "../shared/data/geneturing/geneturing_dev.json",
    "genehop": "../shared/data/geneturing/genehop_dev.json",
    "mmlu": "../shared/data/mmlu_med/test (a folder of <subject>_test.csv, or one CSV)",
    "medmcqa": "../shared/data/medmcqa/dev.json",
    "pubmedqa": "../shared/data/pubmedqa/ori_pqal.json",
    "bioasq": "../shared/data/bioasq_taskb_golden (a folder of golden JSON files, or one file)",
}

QuestionsOpt = Annotated[
    Path | None, typer.Option("--questions", "-q", help="Benchmark file or folder (required).")
]
AblateOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--ablate", "-a",
        help="Configuration(s) to run, repeatable: full (default), all (full+D1-D3+C1-C3), D1 no Gene, "
        "D2 no web, D3 no local PubMed, C1 no MeSH filter, C2 no query rewrite, C3 no "
        "self-evaluation, M:<preset-or-model> another base LLM, -<switch> any source/component; "
        "combine with + (D1+C3).",
    ),
]
LimitOpt = Annotated[int | None, typer.Option("--limit", "-n", help="First N questions per task.")]
TaskOpt = Annotated[
    list[str] | None, typer.Option("--task", "-t", help="Only this task/subject (repeatable).")
]
WorkersOpt = Annotated[
    int, typer.Option("--workers", "-w", min=1, max=64,
                      help="Questions answered in parallel (bounded; the embedded model serialises calls anyway).")
]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", min=0, help="Seconds per question before it is recorded as an error (0 = none).")
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Redo questions already answered under the same configuration.")]
OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Output folder (default out/eval/<benchmark>).")]
JudgeOpt = Annotated[
    str, typer.Option("--judge", help="Free-text GeneHop answers (SNP gene function): 'rule' (declared token rule) or 'llm' (the configuration's LLM as judge).")
]
PlotsOpt = Annotated[bool, typer.Option("--plots/--no-plots", help="Write scores.png and latency.png.")]
ReplaceReportOpt = Annotated[bool, typer.Option(
    "--replace-report", help="Write report.md and scores.csv from this run's configurations only (default: merge "
    "them with the other configurations already in --out; their folders stay on disk either way).")]


class EveryQuestionFailed(BioragError):
    """A configuration answered nothing: its scores would be zeros that measure nothing."""

    exit_code = 1


def run_benchmark(
    benchmark: str,
    questions: Path | None,
    replay: str | None = None,
    preset: str | None = None,
    ablate: list[str] | None = None,
    sets: list[str] | None = None,
    disable: list[str] | None = None,
    enable: list[str] | None = None,
    limit: int | None = None,
    tasks: list[str] | None = None,
    workers: int = 1,
    timeout: float = 600.0,
    force: bool = False,
    out: Path | None = None,
    judge: str = "rule",
    plots: bool = True,
    answer_factory=None,
    corpus: list[Path] | None = None,
    with_context: bool = False,
    replace_report: bool = False,
) -> dict[str, Path]:
    """Everything `biorag eval <benchmark>` does. `answer_factory(settings)` returns the
    question -> Answer callable (default: a real Agent's `answer`). `corpus` (BioASQ) and
    `with_context` (PubMedQA) first build the index every configuration then searches
    (evaluation/snippet_corpus.py)."""
    from evaluation.benchmarks import load_benchmark
    from evaluation.config import build_configuration, parse_ablations
    from evaluation.harness import run_configuration
    from evaluation.report import write_all
    from evaluation.runs import load_runs, merge_runs

    if questions is None:
        raise InputError(f"--questions is required: give the {benchmark} file, e.g. {QUESTION_HINTS[benchmark]}")
    if judge not in ("rule", "llm"):
        raise InputError(f"--judge must be 'rule' or 'llm', got '{judge}'")
    items = load_benchmark(benchmark, questions, tasks=tasks, limit=limit)
    out_dir = Path(out) if out else Path("out") / "eval" / benchmark
    corpus_note = None
    if corpus or with_context:
        from evaluation.snippet_corpus import build_context_index, build_snippet_index

        base = settings_from_options(preset, sets, disable, enable, replay)
        built = (build_snippet_index(base, list(corpus), out_dir) if corpus
                 else build_context_index(base, questions, out_dir))
        sets = [*(sets or []), *built["sets"]]
        corpus_note = f"searched index: {built['note']}; {built['rows']} documents ({out_dir / 'corpus_index'})"

    # Build (and so validate) every configuration before answering anything.
    configs = []
    reference = settings_from_options(preset, sets, None, None, replay)  # the full system of the base preset
    contents: dict[tuple, dict] = {}  # read once per run: opening the index takes a moment
    for v in parse_ablations(ablate):
        settings = settings_from_options(v.preset or preset, [*(sets or []), *v.sets],
                                         [*(disable or []), *v.disable], enable, replay)
        configs.append(build_configuration(v, settings, _cassette(settings), reference=reference,
                                           content=_content(settings, contents)))
    typer.echo(f"{benchmark}: {len(items)} questions x {len(configs)} configuration(s) -> {out_dir}", err=True)

    runs = []
    failed: list[str] = []
    llms: dict[str, object] = {}  # one LLM object per distinct llm settings, shared by configs
    for cfg in configs:
        answer_fn, llm = (answer_factory(cfg.settings), None) if answer_factory else _agent(cfg.settings, llms)
        judge_fn = None
        if judge == "llm":
            from evaluation.scoring import make_llm_judge

            if llm is None:
                llm = _llm(cfg.settings, llms)
            judge_fn = make_llm_judge(llm)
        run = run_configuration(items, answer_fn, cfg, out_dir / cfg.dirname, workers=workers,
                                timeout=timeout or None, force=force, judge=judge_fn, shared_from=out_dir)
        runs.append(run)
        score = sum(r["score"] for r in run.rows) / max(1, len(run.rows))
        misses = sum(len(r.get("replay_misses") or []) for r in run.rows)
        typer.echo(f"  {cfg.name} [{cfg.hash}]: {run.answered} answered, {run.skipped} resumed, "
                   f"{run.errors} errors, score {score:.3f}, replay misses {misses}", err=True)
        errors = [r for r in run.rows if r.get("error")]
        if run.rows and len(errors) == len(run.rows):
            failed.append(f"'{cfg.name}': all {len(run.rows)} questions failed (first: {errors[0]['error'][:160]})")
    notes = [f"per-question timeout {timeout:g} s; workers {workers}"
             + (f"; first {limit} question(s) per task" if limit else "")]
    if corpus_note:
        notes.append(corpus_note)
    if preset or sets or disable or enable or replay:
        opts = [f"--preset {preset}"] if preset else []
        opts += [f"--set {x}" for x in sets or []] + [f"--disable {x}" for x in disable or []]
        opts += [f"--enable {x}" for x in enable or []]
        opts += [f"--replay {Path(replay).name}"] if replay else []
        notes.append("base options for every configuration: " + ", ".join(opts))
    if not replace_report:
        earlier = [r for r in load_runs(out_dir) if r.rows and r.rows[0].get("benchmark") == benchmark]
        runs, kept = merge_runs(runs, earlier)
        if kept:
            notes.append(f"merged with earlier run(s) in this folder: {', '.join(kept)} "
                         "(--replace-report: this run only)")
    from evaluation import geneturing2025

    # a GeneTuring-2025 file: the published GeneGPT rows are of the 2023 questions; the
    # paper's model answers, where the file carries them, are scored beside ours instead
    in_2025 = bool(items) and all(it.fmt == geneturing2025.FMT for it in items)
    files = write_all(runs, benchmark, out_dir, questions=str(questions), plots=plots, notes=notes,
                      references=geneturing2025.answer_columns_scored(items) if in_2025 else None)
    for name, path in files.items():
        typer.echo(f"  {name}: {path}", err=True)
    if failed:
        raise EveryQuestionFailed(f"{len(failed)} configuration(s) answered nothing: " + "; ".join(failed)
                                  + f" (report written to {files['report.md']})")
    return files


def _content(settings, seen: dict[tuple, dict]) -> dict:
    """The code, store and index identity for a configuration's key (once per store set
    and run)."""
    from evaluation.content_key import content_identity
    from retrievers.stores.gene_store import gene_store_path
    from retrievers.stores.hpo_store import hpo_store_path

    stores = {"gene_store": gene_store_path(settings), "hpo_store": hpo_store_path(settings)}
    index = "pubmed" in settings.enabled_sources()
    key = (tuple(sorted((k, str(v)) for k, v in stores.items())), index, settings.milvus_uri,
           settings.index.collection)
    if key not in seen:
        seen[key] = content_identity(settings, stores, index)
    return seen[key]


def _cassette(settings):
    """The recording the tools will replay (its default lives in retrievers/)."""
    try:
        from retrievers.common.http_store import cassette_path
    except ModuleNotFoundError as e:
        if e.name not in ("retrievers.common.http_store", "retrievers"):
            raise
        return settings.tool_io.cassette
    return cassette_path(settings)


def _llm(settings, llms: dict[str, object]):
    """The LLM for these settings, shared between configurations that use the same model
    settings: one object means one lock, so a timed-out question still finishing its
    last model call cannot drive the process's cached llama.cpp model concurrently with
    the next configuration's agent."""
    from biorag.llm.factory import make_llm

    key = json.dumps(settings.llm.model_dump(mode="json"), sort_keys=True, default=str)
    if key not in llms:
        llms[key] = make_llm(settings)
    return llms[key]


def _agent(settings, llms: dict[str, object]):
    from application.engine import build_agent
    from evaluation.harness import check_deadline

    llm = _llm(settings, llms)
    agent = build_agent(settings, llm=llm)

    def answer(question: str):
        return agent.answer(question, on_event=check_deadline)

    return answer, llm


def _make_command(benchmark: str, doc: str):
    @friendly_errors
    def command(
        questions: QuestionsOpt = None,
        replay: ReplayOpt = None,
        preset: PresetOpt = None,
        ablate: AblateOpt = None,
        set_: SetOpt = None,
        disable: DisableOpt = None,
        enable: EnableOpt = None,
        limit: LimitOpt = None,
        task: TaskOpt = None,
        workers: WorkersOpt = 1,
        timeout: TimeoutOpt = 600.0,
        force: ForceOpt = False,
        out: OutOpt = None,
        judge: JudgeOpt = "rule",
        plots: PlotsOpt = True,
        replace_report: ReplaceReportOpt = False,
    ) -> None:
        run_benchmark(benchmark, questions, replay, preset, ablate, set_, disable, enable, limit,
                      task, workers, timeout, force, out, judge, plots, replace_report=replace_report)

    command.__doc__ = doc
    command.__name__ = benchmark
    return command


_DOCS = {
    "geneturing": "GeneTuring: the 9 tasks of GeneGPT's JSON layout, scored by GeneGPT's rules, or "
                  "GeneTuring-2025's 16 modules (a .csv with Module, Question, Goldstandard columns), "
                  "scored per module by the rules in evaluation/geneturing2025.py.\n\n"
                  "Example: biorag eval geneturing -q ../shared/data/geneturing/geneturing_dev.json "
                  "--ablate all\n\n"
                  "Example: biorag eval geneturing -q evaluation/resources/geneturing2025_dev.csv",
    "genehop": "GeneHop (3 multi-hop tasks); SNP gene function by a declared rule or --judge llm.\n\n"
               "Example: biorag eval genehop -q ../shared/data/geneturing/genehop_dev.json -a full -a D1",
    "mmlu": "MMLU medical subjects (hendrycks CSVs; a folder or one file), accuracy per subject.\n\n"
            "Example: biorag eval mmlu -q ../shared/data/mmlu_med/test --limit 20",
    "medmcqa": "MedMCQA dev (JSON lines), accuracy per subject.\n\n"
               "Example: biorag eval medmcqa -q ../shared/data/medmcqa/dev.json --limit 5",
    "pubmedqa": "PubMedQA labelled set (yes/no/maybe), accuracy: question only on the configured index, or "
                "--with-context (each question's own abstract indexed).\n\n"
                "Example: biorag eval pubmedqa -q ../shared/data/pubmedqa/ori_pqal.json --limit 50 --with-context",
    "bioasq": "BioASQ Task B golden files: yes/no accuracy and macro-F1 beside the majority class; factoid "
              "strict/lenient accuracy and MRR; list mean precision/recall/F1; document recall@10 and MAP@10 "
              "(bioasq_measures.json). On the configured index, or --corpus (a snippet index: not the "
              "official setting).\n\n"
              "Example: biorag eval bioasq -q ../shared/data/bioasq_taskb_golden/Task12BGoldenEnriched "
              "--corpus ../shared/data/bioasq_taskb_golden/Task12BGoldenEnriched --limit 20",
}
for _name, _doc in _DOCS.items():
    if _name not in ("bioasq", "pubmedqa"):
        app.command(_name)(_make_command(_name, _doc))

CorpusOpt = Annotated[
    list[Path] | None,
    typer.Option("--corpus", metavar="PATH", help="Build the index the agent searches, in OUT/corpus_index, from these paths "
                 "(repeatable): BioASQ golden files/folders (their gold snippets, joined per PMID, are the "
                 "documents) and PubMed records (added as they are). Not the official setting (all of PubMed). "
                 "Without it: the configured index."),
]
ContextOpt = Annotated[
    bool, typer.Option("--with-context/--question-only",
                       help="Index every question's own abstract (its context paragraphs, no conclusion) in "
                       "OUT/corpus_index and let the agent search it; default: question only, the configured index."),
]


@app.command("bioasq")
@friendly_errors
def bioasq(
    questions: QuestionsOpt = None, corpus: CorpusOpt = None, replay: ReplayOpt = None, preset: PresetOpt = None,
    ablate: AblateOpt = None, set_: SetOpt = None, disable: DisableOpt = None, enable: EnableOpt = None,
    limit: LimitOpt = None, task: TaskOpt = None, workers: WorkersOpt = 1, timeout: TimeoutOpt = 600.0,
    force: ForceOpt = False, out: OutOpt = None, judge: JudgeOpt = "rule", plots: PlotsOpt = True,
) -> None:
    run_benchmark("bioasq", questions, replay, preset, ablate, set_, disable, enable, limit, task, workers, timeout,
                  force, out, judge, plots, corpus=corpus)


@app.command("pubmedqa")
@friendly_errors
def pubmedqa(
    questions: QuestionsOpt = None, with_context: ContextOpt = False, replay: ReplayOpt = None,
    preset: PresetOpt = None, ablate: AblateOpt = None, set_: SetOpt = None, disable: DisableOpt = None,
    enable: EnableOpt = None, limit: LimitOpt = None, task: TaskOpt = None, workers: WorkersOpt = 1,
    timeout: TimeoutOpt = 600.0, force: ForceOpt = False, out: OutOpt = None, judge: JudgeOpt = "rule",
    plots: PlotsOpt = True,
) -> None:
    run_benchmark("pubmedqa", questions, replay, preset, ablate, set_, disable, enable, limit, task, workers, timeout,
                  force, out, judge, plots, with_context=with_context)


bioasq.__doc__ = _DOCS["bioasq"]
pubmedqa.__doc__ = _DOCS["pubmedqa"]


@app.command("report")
@friendly_errors
def report(
    out: Annotated[Path, typer.Argument(help="An eval output folder (holding <config>__<hash>/ folders).")],
    plots: PlotsOpt = True,
) -> None:
    """Rebuild report.md, scores.csv and plots from the results already in OUT."""
    from evaluation.report import write_all
    from evaluation.runs import load_runs, merge_runs

    runs, _ = merge_runs([], [r for r in load_runs(out) if r.rows])
    benchmark = runs[0].rows[0]["benchmark"] if runs else None
    if not runs:
        raise InputError(f"{out} holds no results: run `biorag eval <benchmark> --out {out}` first")
    for name, path in write_all(runs, benchmark, out, plots=plots).items():
        typer.echo(f"{name}: {path}")


def _mount_retrieval() -> None:
    """The index engineer's `biorag eval retrieval`, once its module exists."""
    import importlib

    try:
        mod = importlib.import_module("cli.commands.eval_retrieval")
    except ModuleNotFoundError as e:
        if e.name != "cli.commands.eval_retrieval":
            raise
        return
    mod.register(app)


_mount_retrieval()
eval_geneset.register(app)  # `biorag eval geneset` (cli/commands/eval_geneset.py)
eval_prioritise.register(app)  # `biorag eval prioritise` (cli/commands/eval_prioritise.py)
