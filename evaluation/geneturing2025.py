"""GeneTuring-2025's layout and scoring ("Benchmarking large language models for genomic
knowledge with GeneTuring", 2025): a CSV with the columns `Module`, `Question` and
`Goldstandard`, 16 modules; other columns holding text are other systems' answers (the
paper lists its models' answers), scored by the same rules as reference columns
(`answer_columns_scored`).

The paper scored answers by hand against the gold standard; the rules below state that
scoring in code, one per module, and every report prints the rule it used:

- the GeneGPT rules (evaluation.scoring) for the modules GeneGPT's layout also has: gene
  alias, name conversion, SNP association (exact symbol), gene and SNP location
  (chromosome), protein-coding genes, disease association (recall of the gold genes), the
  two alignment modules;
- amino acid translation: the protein, letters only, upper case, a trailing stop removed,
  equal to the gold;
- DNA sequence extraction: the sequence, letters only, upper case, equal to the gold;
- TF regulation: the first regulation mode the answer names (Activation, Repression,
  Unknown) equal to the gold's; a gold that names two modes needs the answer to name both;
- gene name extraction: the gold mentions ("No gene" for none) against the answer's
  first line split on commas and semicolons; 1 when they are the same set (case-insensitive),
  0.5 when they share at least one name, else 0;
- gene ontology: the gold term's words (case-insensitive) all in the answer's first line;
- a module asked as "a computer program that answers ..." is scored as its plain module.

A module name is matched case-insensitively with spaces, hyphens and underscores ignored,
and with the usual misspelling "aligment".
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError
from evaluation.extract import extract_short_answer
from evaluation.references import Reference
from evaluation.scoring import (
    score_chromosome,
    score_exact_symbol,
    score_gene_disease,
    score_genome_alignment,
    score_protein_coding,
    score_species,
)

COLUMNS = ("Module", "Question", "Goldstandard")
MODES = ("Activation", "Repression", "Unknown")
FMT = "geneturing2025"


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name.lower()).replace("aligment", "alignment")


def _letters(text: str) -> str:
    return re.sub(r"[^A-Za-z*]", "", text).upper().rstrip("*")


def score_translation(prediction: str, gold: str) -> float:
    """The protein (letters only, upper case, a trailing stop removed) equals the gold."""
    return float(bool(_letters(prediction)) and _letters(prediction) == _letters(gold))


def score_sequence(prediction: str, gold: str) -> float:
    """The sequence (letters only, upper case) equals the gold."""
    return float(bool(_letters(prediction)) and _letters(prediction) == _letters(gold))


def modes_named(text: str) -> list[str]:
    """The regulation modes a text names, in the order it names them."""
    found = [(m.start(), mode) for mode in MODES for m in re.finditer(rf"\b{mode}\b", text, re.I)]
    return list(dict.fromkeys(mode for _i, mode in sorted(found)))


def score_tf_regulation(prediction: str, gold: str) -> float:
    """The first mode named is the gold's; a gold naming two modes needs both named."""
    wanted, named = modes_named(gold), modes_named(prediction)
    if not wanted or not named:
        return 0.0
    if len(wanted) == 1:
        return float(named[0] == wanted[0])
    return float(set(wanted) <= set(named))


def _names(text: str) -> set[str]:
    parts = [p.strip(" .'\"") for p in re.split(r"[,;]|\band\b", text)]
    names = {p.lower() for p in parts if p}
    return set() if names <= {"no gene", "no genes", "none"} else names


def score_name_extraction(prediction: str, gold: str) -> float:
    """1 for the same set of names ("No gene" is the empty set), 0.5 for an overlap, else 0."""
    want, got = _names(gold), _names(prediction)
    if want == got:
        return 1.0
    return 0.5 if want & got else 0.0


def score_gene_ontology(prediction: str, gold: str) -> float:
    """Every word of the gold term in the answer's first line (case-insensitive)."""
    words = set(re.findall(r"[a-z0-9]+", gold.lower()))
    return float(bool(words) and words <= set(re.findall(r"[a-z0-9]+", prediction.lower())))


SCORERS: dict[str, Callable[[str, Any], float]] = {
    _key("Gene alias"): score_exact_symbol,
    _key("Gene name conversion"): score_exact_symbol,
    _key("Gene SNP association"): score_exact_symbol,
    _key("Gene location"): score_chromosome,
    _key("SNP location"): score_chromosome,
    _key("Protein-coding genes"): score_protein_coding,
    _key("Gene disease association"): score_gene_disease,
    _key("Human genome DNA alignment"): score_genome_alignment,
    _key("Multi-species DNA alignment"): score_species,
    _key("Amino acid translation"): score_translation,
    _key("DNA sequence extraction"): score_sequence,
    _key("TF regulation"): score_tf_regulation,
    _key("Gene name extraction"): score_name_extraction,
    _key("Gene ontology"): score_gene_ontology,
}
_PROGRAM = re.compile(r"(?:^|\b)(?:programming|program|computer program|code)\b[\s:_\-]*|[\s:_\-]*\((?:program|programming)\)$", re.I)


def plain_module(module: str) -> str:
    """The module a programming variant asks ("Human genome DNA alignment (programming)" ->
    "Human genome DNA alignment"); other names unchanged."""
    return _PROGRAM.sub(" ", module).strip(" -_:") or module


def scorer_for(module: str) -> Callable[[str, Any], float] | None:
    return SCORERS.get(_key(module)) or SCORERS.get(_key(plain_module(module)))


def score(module: str, answer_text: str, gold: Any) -> tuple[str, float]:
    """(prediction, score) of an answer to a question of `module`; `ValueError` for a module
    with no rule."""
    scorer = scorer_for(module)
    if scorer is None:
        raise ValueError(f"no GeneTuring-2025 rule for module '{module}'")
    pred = extract_short_answer(answer_text)
    return pred, scorer(pred, gold)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a GeneTuring-2025 CSV (`InputError` naming what is missing): `Module`,
    `Question`, `Goldstandard`, and ``answers``: {column: text} of every other column that
    holds text (the paper's model answers; a column of bare numbers, such as an id, is not one)."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        header = {(h or "").strip().lower(): h for h in reader.fieldnames or []}
        missing = [c for c in COLUMNS if c.lower() not in header]
        if missing:
            raise InputError(f"{path}: not the GeneTuring-2025 layout, missing column(s) {', '.join(missing)} "
                             f"(need {', '.join(COLUMNS)})")
        others = [h for h in reader.fieldnames or [] if h and h.strip().lower() not in {c.lower() for c in COLUMNS}]
        rows: list[dict[str, Any]] = []
        for n, row in enumerate(reader, 2):
            got: dict[str, Any] = {c: (row.get(header[c.lower()]) or "").strip() for c in COLUMNS}
            got["answers"] = {h.strip(): v for h in others if (v := (row.get(h) or "").strip())}
            if not got["Question"]:
                continue
            if not got["Module"]:
                raise InputError(f"{path}: line {n} has a question but no Module")
            if scorer_for(got["Module"]) is None:
                raise InputError(f"{path}: line {n}: no scoring rule for module '{got['Module']}'")
            rows.append(got)
    numeric = {h.strip() for h in others if all(re.fullmatch(r"[\d.]+", r["answers"].get(h.strip(), "0")) for r in rows)}
    for r in rows:
        r["answers"] = {h: v for h, v in r["answers"].items() if h not in numeric}
    return rows


def answer_columns_scored(items: list[Any]) -> list[Reference]:
    """Each answer column of the loaded items (``meta["answers"]``) as a reference column:
    its answers scored by this module's rules, per module and over all ("overall"), on
    exactly the questions run. The paper scored its models' answers by hand; these are our
    rules' scores of the same answers, so they sit beside ours on one scale."""
    by_column: dict[str, dict[str, list[float]]] = {}
    for it in items:
        for column, text in (it.meta.get("answers") or {}).items():
            by_column.setdefault(column, {}).setdefault(it.task, []).append(score(it.task, text, it.gold)[1])
    refs = []
    for column, per_task in by_column.items():
        values = {task: sum(v) / len(v) for task, v in per_task.items()}
        every = [x for v in per_task.values() for x in v]
        values["overall"] = sum(every) / len(every)
        n = {task: len(v) for task, v in per_task.items()}
        refs.append(Reference(f"{column} (answers in the file)",
                              f"the questions file's column '{column}', {len(every)} answers "
                              f"({', '.join(f'{t} {k}' for t, k in n.items())}), scored here by the rules "
                              "above; a question without an answer in the column is left out", values))
    return refs
