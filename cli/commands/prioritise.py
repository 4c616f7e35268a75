"""`biorag prioritise CASE.json|FOLDER`: which genes could explain this patient's features?

Reads GA4GH Phenopacket v2 JSON (observed and excluded features, onset, age, sex), a JSON
list of HPO ids, or a text file describing the patient; `--terms` and `--text` give a case on
the command line. A folder ranks every readable case and lists the ones it could not read."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Annotated

import typer

from biorag.contracts.errors import InputError
from biorag.knowledge.phenopackets import Case, read_case_file, read_input, read_term_list
from cli.commands.common import (
    JsonOpt,
    PresetOpt,
    SetOpt,
    fail,
    friendly_errors,
    print_json,
    settings_from_options,
)

#: the case files a folder is read for
CASE_SUFFIXES = (".json", ".txt")


def cases_in(path: Path) -> tuple[list[Case], list[tuple[str, str]]]:
    """(cases read, [(file, why not)]): one file, or every case file of a folder."""
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in CASE_SUFFIXES) if path.is_dir() else [path]
    if path.is_dir() and not files:
        raise InputError(f"{path}: no .json or .txt case files in the folder")
    cases, bad = [], []
    for f in files:
        try:
            cases.append(read_case_file(f))
        except InputError as e:
            if not path.is_dir():
                raise
            bad.append((str(f), str(e)))
    return cases, bad


def write_tsv(path: Path, rows: list[list[str]]) -> None:
    from retrievers.hpo.prioritise import TSV_COLUMNS

    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(TSV_COLUMNS)
        w.writerows(rows)


@friendly_errors
def command(
    case: Annotated[Path | None, typer.Argument(help="A phenopacket (.json), a JSON list of HPO ids, a text "
                                                "file describing the patient, or a folder of them.")] = None,
    terms: Annotated[str | None, typer.Option("--terms", help="HPO ids instead of a file, e.g. "
                                              "'HP:0001250,HP:0001251' ('-HP:…' marks an excluded one).")] = None,
    text: Annotated[str | None, typer.Option("--text", help="The patient in words, e.g. 'seizures, ataxia, "
                                             "no hearing loss'.")] = None,
    top_k: Annotated[int, typer.Option("--top-k", "-k", min=1, max=100, help="Genes per case (1-100).")] = 10,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for <case>.json and <case>.tsv "
                                             "(gene results like Exomiser's).")] = None,
    as_json: JsonOpt = False,
    preset: PresetOpt = None,
    set_: SetOpt = None,
) -> None:
    """Rank genes for a patient by their best-matching HPO disease, showing per gene the
    disease (with its id), which features matched which disease features, the features it
    does not explain, and the score. Examples:

      biorag prioritise patient.json
      biorag prioritise cases/ --out results/
      biorag prioritise --text "seizures, ataxia and nystagmus, no hearing loss"
    """
    from retrievers.hpo.prioritise import prioritise
    from retrievers.stores.hpo_store import HpoStore, hpo_store_path

    given = [x for x in (case, terms, text) if x is not None]
    if len(given) != 1:
        fail("give one case: a file or folder, --terms, or --text")
    if case is not None:
        cases, bad = cases_in(case)
    else:
        given_case = (read_term_list([t for t in re.split(r"[\s,;]+", terms) if t], "--terms") if terms is not None
                      else read_input(text, "--text"))
        cases, bad = [given_case], []
    store = HpoStore(hpo_store_path(settings_from_options(preset, set_)))
    results = []
    try:
        for c in cases:
            try:
                results.append(prioritise(store, c, top_k))
            except InputError as e:
                if case is None or not case.is_dir():
                    raise
                bad.append((c.source, str(e)))
    finally:
        store.close()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for r in results:
            stem = Path(r.case.id.replace("/", "_")).name or "case"
            (out / f"{stem}.json").write_text(json.dumps(r.as_dict(), indent=2, ensure_ascii=False))
            write_tsv(out / f"{stem}.tsv", r.tsv_rows())
    if as_json:
        print_json({"cases": [r.as_dict() for r in results],
                    "not_read": [{"file": f, "error": why} for f, why in bad]})
    else:
        for i, r in enumerate(results):
            if len(results) > 1:
                typer.echo(("\n" if i else "") + f"== {r.case.id}")
            typer.echo("\n".join(r.lines()))
            for w in r.warnings:
                typer.echo(f"warning: {w}", err=True)
        if out is not None:
            typer.echo(f"written: {out}/<case>.json and <case>.tsv for {len(results)} case(s)", err=True)
    for f, why in bad:
        typer.echo(f"not read: {why if f in why else f + ': ' + why}", err=True)
    if bad:
        raise typer.Exit(1 if results else 2)

