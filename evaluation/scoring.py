"""Scorers: one documented function per task or answer format.

GeneTuring and GeneHop follow the rules stated in the benchmark's PROVENANCE note
(GeneGPT's evaluation, described there in words; this is our own implementation):

- `Answer: ` is removed (anywhere) and the text stripped, unless a rule says otherwise;
- matching is exact and case-sensitive, with no synonym handling;
- a task's score is the mean per-question score.

Two GeneHop tasks have no published automatic rule; the rules used here are declared
in `DECLARED_RULES` and printed in every report:
- "sequence gene alias": recall of the gold aliases among the predicted `, `-list;
- "SNP gene function": recall of the gold function's content words (free text),
  with a slot for an LLM judge (`make_llm_judge`) that replaces it when given.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evaluation.bioasq_scores import list_prf
from evaluation.extract import (
    extract_choice,
    extract_factoid_list,
    extract_short_answer,
    extract_yes_no,
    strip_citations,
)

#: (question, gold, prediction) -> score in [0, 1]
Judge = Callable[[str, str, str], float]

SPECIES = {
    "Homo sapiens": "human",
    "Mus musculus": "mouse",
    "Rattus norvegicus": "rat",
    "Gallus gallus": "chicken",
    "Danio rerio": "zebrafish",
    "Caenorhabditis elegans": "worm",
    "Saccharomyces cerevisiae": "yeast",
}


def drop_answer_prefix(prediction: str) -> str:
    """The common GeneGPT cleaning step: remove every `Answer: ` and strip whitespace."""
    return prediction.replace("Answer: ", "").strip()


# ---- GeneTuring ------------------------------------------------------------------------


def score_chromosome(prediction: str, gold: str) -> float:
    """Gene location, SNP location: last whitespace token, `chr` prepended unless it
    already contains lower-case `chr`; exact match. `13` -> `chr13` (right),
    `Chr13` -> `chrChr13` (wrong). An empty prediction scores 0."""
    tokens = prediction.split()
    if not tokens:
        return 0.0
    last = tokens[-1]
    if "chr" not in last:
        last = "chr" + last
    return float(last == gold)


def score_exact_symbol(prediction: str, gold: str) -> float:
    """Gene alias, Gene name conversion, Gene SNP association: after the cleaning
    step, exact case-sensitive equality with the gold symbol."""
    return float(drop_answer_prefix(prediction) == gold)


def score_protein_coding(prediction: str, gold: str) -> float:
    """Protein-coding genes: gold is `TRUE`/`NA`. After cleaning, `Yes` -> `TRUE`,
    `No` -> `NA`; anything else is compared verbatim (`yes`, `Yes.` score 0)."""
    pred = drop_answer_prefix(prediction)
    pred = {"Yes": "TRUE", "No": "NA"}.get(pred, pred)
    return float(pred == gold)


def score_species(prediction: str, gold: str) -> float:
    """Multi-species DNA aligment: after cleaning, an exact Latin binomial from
    `SPECIES` becomes its common name; then exact match with the gold common name."""
    pred = drop_answer_prefix(prediction)
    return float(SPECIES.get(pred, pred) == gold)


_LEADING_CHROMOSOME = re.compile(r"^(chr[0-9A-Za-z]+)(?=[:\s(;,]|$)")


def score_genome_alignment(prediction: str, gold: str) -> float:
    """Human genome DNA aligment: gold `chr15:91950805-91950932`. After cleaning,
    exact match 1; the same chromosome 0.5; else 0. The chromosome is the text before the
    first `:` (GeneGPT's rule), or the leading `chrN` token of an answer that names the
    chromosome without coordinates or with another assembly's
    ("chr10 (named by the title of clone ...)", "chr8:1-2 on T2T-CHM13; ..."). A wrong
    chromosome, or one not at the start, scores 0."""
    pred = drop_answer_prefix(prediction)
    if pred == gold:
        return 1.0
    m = _LEADING_CHROMOSOME.match(pred)
    chrom = m.group(1) if m else pred.split(":")[0]
    return 0.5 if chrom == gold.split(":")[0] else 0.0


def _recall(predicted: list[str], gold: list[str]) -> float:
    if not gold:
        return 0.0
    pred = set(predicted)
    return sum(1 for g in gold if g in pred) / len(gold)


def score_gene_disease(prediction: str, gold: str) -> float:
    """Gene disease association (recall): gold is a `, `-separated gene list; the
    cleaned prediction is split on `, `; score = share of gold genes found exactly
    among the predicted elements. Extra predicted genes cost nothing."""
    return _recall(drop_answer_prefix(prediction).split(", "), gold.split(", "))


def score_disease_location(prediction: str, gold: list[str]) -> float:
    """Disease gene location (GeneHop, recall): the prediction is split on `, ` (no
    other cleaning); score = share of gold cytogenetic locations found exactly."""
    return _recall(prediction.split(", "), list(gold))


def score_sequence_alias(prediction: str, gold: list[str]) -> float:
    """Sequence gene alias (GeneHop; declared rule, GeneGPT publishes none): the
    cleaned prediction is split on `, `; score = share of gold aliases (official
    symbol included) found exactly among the predicted elements."""
    return _recall(drop_answer_prefix(prediction).split(", "), list(gold))


_STOP = frozenset(
    """a an the and or of in on at to by for with from into as is are was were be been
    being this that these those it its which who whom their there than then also may can
    such including include includes several various other others many both either
    gene genes protein proteins encoded encodes encoding function functions functional
    predicted enable enables enabling involved involve involves act acts acting upstream
    within located part member members family process processes activity activities
    et al pubmed""".split()
)
_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def content_words(text: str) -> set[str]:
    """Lower-cased words of a function description, minus stop/boilerplate words and
    pure numbers (years, PMIDs)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and not w.isdigit()}


def score_snp_gene_function(prediction: str, gold: str) -> float:
    """SNP gene function (GeneHop; declared rule): share of the gold description's
    content words (see `content_words`) that also occur in the prediction. When the
    gold has no content word, 1 if the cleaned gold text occurs (case-insensitive)
    in the prediction, else 0."""
    gold_words = content_words(gold)
    if not gold_words:
        return float(gold.strip().lower() in prediction.lower())
    return len(gold_words & content_words(prediction)) / len(gold_words)


# ---- multiple choice, yes/no, factoid -----------------------------------------------------


def score_choice(letter: str | None, gold: str) -> float:
    """Multiple choice accuracy: the extracted letter equals the gold letter."""
    return float(letter is not None and letter == gold.strip().upper())


def score_label(label: str | None, gold: str) -> float:
    """Yes/no(/maybe) accuracy: the extracted label equals the gold label, any case."""
    return float(label is not None and label == gold.strip().lower())


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def score_factoid(candidates: list[str], gold: list[Any]) -> dict[str, float]:
    """BioASQ factoid: `gold` is a list of synonyms (BioASQ gives `[[syn, ...]]` or
    `[syn, ...]`; both are flattened). Matching is case- and whitespace-insensitive
    equality. Returns strict accuracy (top-1 matches), lenient accuracy (any of the
    top 5 matches) and reciprocal rank (1/rank of the first match, 0 if none)."""
    synonyms = {_norm(s) for s in _flatten(gold) if str(s).strip()}
    rank = next((i + 1 for i, c in enumerate(candidates[:5]) if _norm(c) in synonyms), None)
    return {
        "strict": float(rank == 1),
        "lenient": float(rank is not None),
        "mrr": 1.0 / rank if rank else 0.0,
    }


def _flatten(x: Any) -> list[str]:
    if isinstance(x, list | tuple):
        return [s for item in x for s in _flatten(item)]
    return [str(x)]


# ---- dispatch ---------------------------------------------------------------------------

GENETURING_SCORERS: dict[str, Callable[[str, Any], float]] = {
    "Gene alias": score_exact_symbol,
    "Gene name conversion": score_exact_symbol,
    "Gene SNP association": score_exact_symbol,
    "Gene location": score_chromosome,
    "SNP location": score_chromosome,
    "Protein-coding genes": score_protein_coding,
    "Multi-species DNA aligment": score_species,
    "Human genome DNA aligment": score_genome_alignment,
    "Gene disease association": score_gene_disease,
    "Disease gene location": score_disease_location,
    "sequence gene alias": score_sequence_alias,
    "SNP gene function": score_snp_gene_function,
}

FREE_TEXT_TASKS = frozenset({"SNP gene function"})

DECLARED_RULES = {
    "sequence gene alias": (
        "declared rule (no published automatic rule): the answer's first line, `Answer: ` "
        "removed, split on ', '; score = share of gold aliases found exactly among the elements."
    ),
    "SNP gene function": (
        "declared rule (no published automatic rule): share of the gold description's content "
        "words (lower-cased; stop words, boilerplate like 'predicted/enable/activity/involved' "
        "and numbers removed) that occur in the answer; an LLM judge replaces it when "
        "`--judge llm` is given."
    ),
}

EXTRACTION_RULES = {
    "short": "citation markers and markdown emphasis removed, first non-empty line, stripped",
    "choice": "answer statement > bare letter > leading 'B.' > 'option B' > unique option text",
    "yesno": "first whole word yes/no in the answer",
    "yesnomaybe": "first whole word yes/no/maybe in the answer",
    "factoid": "bulleted lines, else the first line split on , ; 'and'; up to 5, in order",
    "list": "as factoid, every item (up to 100); precision, recall and F1 against the gold items' synonyms",
}


@dataclass
class Scored:
    prediction: Any
    score: float
    metrics: dict[str, float] = field(default_factory=dict)
    rule: str = ""


def score_answer(fmt: str, task: str, question: str, answer_text: str, gold: Any,
                 options: list[str] | None = None, judge: Judge | None = None) -> Scored:
    """Extract the prediction for `fmt` from the agent's answer text and score it."""
    if fmt == "geneturing":
        scorer = GENETURING_SCORERS.get(task)
        if scorer is None:
            raise ValueError(f"no scorer for GeneTuring/GeneHop task '{task}'")
        if task in FREE_TEXT_TASKS:  # the whole answer, citations removed, one line
            pred = " ".join(strip_citations(answer_text).split())
            if judge is not None:
                return Scored(pred, float(judge(question, str(gold), pred)), rule="llm-judge")
        else:
            pred = extract_short_answer(answer_text)
        return Scored(pred, scorer(pred, gold), rule="declared" if task in DECLARED_RULES else "genegpt")
    if fmt == "choice":
        letter = extract_choice(answer_text, options, n_options=len(options) if options else 4)
        return Scored(letter, score_choice(letter, gold))
    if fmt in ("yesno", "yesnomaybe"):
        label = extract_yes_no(answer_text, allow_maybe=fmt == "yesnomaybe")
        return Scored(label, score_label(label, gold))
    if fmt == "factoid":
        cands = extract_factoid_list(answer_text)
        metrics = score_factoid(cands, gold)
        return Scored(cands, metrics["strict"], metrics)
    if fmt == "list":  # BioASQ list: every stated item, scored by F1 against the gold items
        items = extract_factoid_list(answer_text, max_items=100)
        metrics = list_prf(items, gold if isinstance(gold, list) else [gold])
        return Scored(items, metrics["f1"], metrics)
    raise ValueError(f"unknown answer format '{fmt}'")


JUDGE_PROMPT = (
    "You grade answers about gene function. Reference description:\n{gold}\n\n"
    "Candidate answer:\n{prediction}\n\nQuestion: {question}\n"
    "Does the candidate describe the same gene function as the reference (same gene or "
    "same molecular function/process)? Reply YES or NO."
)


def make_llm_judge(llm) -> Judge:
    """An LLM judge for free-text answers: the model replies YES (1.0) or NO (0.0);
    anything else scores 0. `llm` is a biorag.llm.base.LLM (temperature 0)."""
    from biorag.llm.base import ChatMessage

    def judge(question: str, gold: str, prediction: str) -> float:
        msg = JUDGE_PROMPT.format(gold=gold, prediction=prediction, question=question)
        reply = llm.chat([ChatMessage(role="user", content=msg)], max_tokens=8, temperature=0.0)
        return float(extract_yes_no(reply.text) == "yes")

    return judge
