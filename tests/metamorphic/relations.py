"""The metamorphic relations, as data: each draws (base question, reworded question) pairs
from real records and says what must stay the same. `families` says how a base question
of each kind is generated and when its answer is right against its record.

"The same answer" is the same first line (for a list: the same items in the same order);
for multiple choice it is the set of option texts the first line names, since the letters
change with the style. A relation whose current behaviour is broken carries `xfail`: the
reason names what is broken and which fix makes it hold; the lead removes it at merge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.metamorphic import wording as w
from tests.metamorphic.records import DISEASES, GENE_SETS, GENES, PATIENTS, VARIANTS, Disease, Gene

INSUFFICIENT = "insufficient"


def first_line(answer: str) -> str:
    return next((ln.strip() for ln in answer.splitlines() if ln.strip()), "")


def refused(answer: str) -> bool:
    return first_line(answer).lower().startswith(INSUFFICIENT)


@dataclass(frozen=True)
class Case:
    base: str
    variant: str
    record: Any
    extra: Any = None  # what a key or scorer needs besides the record (the options of a MCQ)


@dataclass(frozen=True)
class Relation:
    name: str
    what: str  # the wording that changes
    cases: Callable[[], st.SearchStrategy[Case]]
    examples: int
    key: Callable[[str, Case], Any] = lambda answer, case: first_line(answer)
    xfail: str | None = None


@dataclass(frozen=True)
class Family:
    """Base questions of one kind: every record asked in every form, scored against it."""

    name: str
    questions: Callable[[], list[tuple[str, Any, Any]]]  # (question, record, extra)
    right: Callable[[str, Any, Any], bool]
    xfail: str | None = None


# ---- scoring against the record ------------------------------------------------------

def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def _items(line: str) -> list[str]:
    """The genes a first line lists, in order ('PDE6A, SCAPER (HPO terms ...)' -> [...])."""
    line = re.sub(r"\s*\(.*", "", line)
    return [x.strip() for x in re.split(r",\s*|\s+and\s+", line) if x.strip()]


def gene_field_right(answer: str, gene: Gene, field: str) -> bool:
    line = first_line(answer)
    if field == "chromosome":
        return line == f"chr{gene.chromosome}"
    return _norm(line) == _norm(gene.name)


def gene_set_right(answer: str, gs, _extra) -> bool:
    return not refused(answer) and _norm(gs.term) in _norm(first_line(answer))


def genes_first(answer: str, genes, within: int) -> bool:
    return not refused(answer) and bool(set(_items(first_line(answer))[:within]) & set(genes))


def list_key(answer: str, case: Case) -> Any:
    """A listed answer: its items in order (what follows them in parentheses, such as the
    matched terms in the question's order, is not the answer); a refusal: its first line."""
    return first_line(answer) if refused(answer) else tuple(_items(first_line(answer)))


def option_key(answer: str, case: Case) -> Any:
    """The option texts the first line names (letters differ between styles)."""
    if refused(answer):
        return INSUFFICIENT
    line = first_line(answer)
    return frozenset(o for o in case.extra if re.search(rf"\b{re.escape(o)}\b", line))


_LETTER = re.compile(r"^\(?(?:[A-Da-d]|[1-4])[).:]\s*")


def chose_only(answer: str, right: str, options) -> bool:
    """The first line names the right option and nothing beyond the options."""
    items = [_LETTER.sub("", x) for x in _items(first_line(answer))]
    return option_key(answer, Case("", "", None, options)) == {right} and all(x in options for x in items)


# ---- drawing questions -----------------------------------------------------------------

def _template(d, table: dict[str, tuple[str, ...]], form: str | None = None) -> str:
    form = form or d(st.sampled_from(w.FORMS))
    return d(st.sampled_from(table[form]))


@st.composite
def gene_field_forms(draw) -> Case:
    gene, field = draw(st.sampled_from(GENES)), draw(st.sampled_from(sorted(w.GENE_FIELD)))
    a, b = draw(st.lists(st.sampled_from(w.FORMS), min_size=2, max_size=2, unique=True))
    table = w.GENE_FIELD[field]
    return Case(_template(draw, table, a).format(gene=gene.symbol), _template(draw, table, b).format(gene=gene.symbol),
                gene, field)


@st.composite
def gene_field_case(draw) -> Case:
    gene, field = draw(st.sampled_from(GENES)), draw(st.sampled_from(sorted(w.GENE_FIELD)))
    q = _template(draw, w.GENE_FIELD[field]).format(gene=gene.symbol)
    return Case(q, draw(st.sampled_from((str.lower, str.upper)))(q), gene, field)


@st.composite
def gene_field_polite(draw) -> Case:
    gene, field = draw(st.sampled_from(GENES)), draw(st.sampled_from(sorted(w.GENE_FIELD)))
    q = _template(draw, w.GENE_FIELD[field]).format(gene=gene.symbol)
    return Case(q, w.wrap(q, draw(st.sampled_from(w.WRAPPERS))), gene, field)


@st.composite
def gene_ids(draw) -> Case:
    gene = draw(st.sampled_from(GENES))
    q = _template(draw, w.GENE_FIELD["full_name"])
    other = draw(st.sampled_from((gene.ensembl_id, f"NCBI Gene ID {gene.entrez_id}")))
    return Case(q.format(gene=gene.symbol), q.format(gene=other), gene, "full_name")


def _gene_set_case(draw, order, sep, genes_word) -> Case:
    gs = draw(st.sampled_from(GENE_SETS))
    q = _template(draw, w.GENE_SET)
    base_sep = draw(st.sampled_from(sorted(w.SEPARATORS)))
    listed = w.SEPARATORS[base_sep](list(gs.genes))
    base = q.format(genes=listed)
    if order:
        variant = q.format(genes=w.SEPARATORS[base_sep](draw(st.permutations(gs.genes))))
    elif sep:
        other = draw(st.sampled_from(sorted(set(w.SEPARATORS) - {base_sep})))
        variant = q.format(genes=w.SEPARATORS[other](list(gs.genes)))
    else:
        variant = q.format(genes="the genes " + listed.lstrip("\n"))
    return Case(base, variant, gs)


gene_set_order = st.composite(lambda d: _gene_set_case(d, True, False, False))
gene_set_separators = st.composite(lambda d: _gene_set_case(d, False, True, False))
gene_set_genes_word = st.composite(lambda d: _gene_set_case(d, False, False, True))


@st.composite
def gene_set_case(draw) -> Case:
    gs = draw(st.sampled_from(GENE_SETS))
    q = _template(draw, w.GENE_SET).format(genes=", ".join(gs.genes))
    return Case(q, q.lower(), gs)


def features_text(features) -> str:
    return w.SEPARATORS["comma-and"]([f.lower() for f in features])


def _features(draw, patient, shuffled: bool) -> str:
    return features_text(draw(st.permutations(patient.features)) if shuffled else patient.features)


@st.composite
def phenotype_order(draw) -> Case:
    p = draw(st.sampled_from(PATIENTS))
    q = draw(st.sampled_from(w.PHENOTYPE_PAIRS))[0]
    return Case(q.format(features=_features(draw, p, False)), q.format(features=_features(draw, p, True)), p)


@st.composite
def phenotype_genes_word(draw) -> Case:
    p = draw(st.sampled_from(PATIENTS))
    with_word, without = draw(st.sampled_from(w.PHENOTYPE_PAIRS))
    f = _features(draw, p, False)
    return Case(with_word.format(features=f), without.format(features=f), p)


LONG_NAMED = tuple(d for d in DISEASES if w.long_word(d.name))


@st.composite
def disease_typo(draw) -> Case:
    d: Disease = draw(st.sampled_from(LONG_NAMED))
    q = _template(draw, w.DISEASE_GENES)
    return Case(q.format(disease=d.name), q.format(disease=w.typo(d.name, draw(st.integers(0, 20)))), d)


@st.composite
def disease_case_polite(draw) -> Case:
    d: Disease = draw(st.sampled_from(DISEASES))
    q = _template(draw, w.DISEASE_GENES).format(disease=d.name)
    how = draw(st.sampled_from(("lower", "wrap")))
    return Case(q, q.lower() if how == "lower" else w.wrap(q, draw(st.sampled_from(w.WRAPPERS))), d)


def mcq(d: Disease, distractors: list[str], right_at: int, stem: str, style: str, inline: bool = False) -> tuple[str, tuple[str, ...]]:
    opts = list(distractors[:3])
    opts.insert(right_at, d.genes[0])
    return stem.format(disease=d.name) + ("\n" if not inline else " ") + w.options_block(style, opts, inline), tuple(opts)


def _distractors(d: Disease, k: int, start: int) -> list[str]:
    pool = [g.symbol for g in GENES if g.symbol not in d.genes]
    return [pool[(start + 37 * i) % len(pool)] for i in range(k)]


@st.composite
def option_styles(draw) -> Case:
    d = draw(st.sampled_from(DISEASES))
    distract = _distractors(d, 3, draw(st.integers(0, len(GENES))))
    at, stem = draw(st.integers(0, 3)), draw(st.sampled_from(w.MCQ_STEMS))
    a, b = draw(st.lists(st.sampled_from(sorted(w.OPTION_STYLES)), min_size=2, max_size=2, unique=True))
    base, opts = mcq(d, distract, at, stem, a)
    variant, _ = mcq(d, distract, at, stem, b, inline=draw(st.booleans()))
    return Case(base, variant, d, opts)


@st.composite
def variant_forms(draw) -> Case:
    v = draw(st.sampled_from(VARIANTS))
    a, b = draw(st.lists(st.sampled_from(w.FORMS), min_size=2, max_size=2, unique=True))
    return Case(_template(draw, w.VARIANT_GENE, a).format(variant=v.rsid),
                _template(draw, w.VARIANT_GENE, b).format(variant=v.rsid), v)


# ---- the relations -------------------------------------------------------------------------

# what is still broken (counts from
# `python -m tests.metamorphic.report`), and what would make it hold (remove the mark then)
GENE_SET_FIX = ("the gene-set family: a set's answer names GeneAgent's gold GO term; today 0.42 of the base "
                "questions do (every wording gives the same answer: the order, case and separator relations "
                "hold), the rest name a Reactome pathway or another GO term the enrichment ranks first")
PHENOTYPE_RANK = ("the phenotype prioritisation issue (order): the causal gene in the first 3; every wording "
                  "now reaches HPO's ranking (0.50 right), which rarely puts it there")

RELATIONS: tuple[Relation, ...] = (
    Relation("gene_field_forms", "cloze vs question vs fragment vs imperative", gene_field_forms, 300),
    Relation("gene_field_case", "upper/lower case", gene_field_case, 250),
    Relation("gene_field_polite", "polite wrappers and extra words", gene_field_polite, 250),
    Relation("gene_ids", "symbol vs Ensembl id / NCBI Gene ID", gene_ids, 150),
    Relation("gene_set_order", "gene list shuffled", gene_set_order, 100),
    Relation("gene_set_separators", "commas, spaces, 'and', newlines, ';', '/'", gene_set_separators, 100),
    Relation("gene_set_genes_word", "'the genes' present or absent", gene_set_genes_word, 80),
    Relation("gene_set_case", "gene list in lower case", gene_set_case, 60),
    Relation("phenotype_order", "symptom list shuffled", phenotype_order, 30, key=list_key),
    Relation("phenotype_genes_word", "the word 'genes' present or absent", phenotype_genes_word, 30, key=list_key),
    Relation("disease_typo", "a typo in a long disease name", disease_typo, 200, key=list_key),
    Relation("disease_case_polite", "lower case, polite wrappers", disease_case_polite, 200, key=list_key),
    Relation("option_styles", "A) / A. / (A) / (a) / a) / 1. / 1), one per line or inline",
             option_styles, 150, key=option_key),
    Relation("variant_forms", "cloze vs question vs fragment vs imperative", variant_forms, 120),
)


# ---- base questions, scored against their records ----------------------------------------

def _every(table: dict[str, tuple[str, ...]]) -> list[str]:
    return [t for form in w.FORMS for t in table[form]]


def _gene_field_questions():
    return [(t.format(gene=g.symbol), g, f) for f, table in sorted(w.GENE_FIELD.items())
            for t in _every(table) for g in GENES[::3]]


def _gene_id_questions():
    return [(t.format(gene=i), g, "full_name") for t in _every(w.GENE_FIELD["full_name"])[::2] for g in GENES[::5]
            for i in (g.ensembl_id, f"NCBI Gene ID {g.entrez_id}")]


def _mcq_questions():
    out = []
    for n, d in enumerate(DISEASES):
        style = sorted(w.OPTION_STYLES)[n % len(w.OPTION_STYLES)]
        q, opts = mcq(d, _distractors(d, 3, 7 * n), n % 4, w.MCQ_STEMS[n % 2], style)
        out.append((q, d, opts))
    return out


FAMILIES: tuple[Family, ...] = (
    Family("gene_field", _gene_field_questions, gene_field_right),
    Family("gene_ids", _gene_id_questions, gene_field_right),
    Family("gene_set", lambda: [(t.format(genes=", ".join(s.genes)), s, None) for t in _every(w.GENE_SET)
                                for s in GENE_SETS[::4]], gene_set_right, xfail=GENE_SET_FIX),
    Family("phenotype", lambda: [(pair[0].format(features=features_text(p.features)), p, None)
                                 for pair in w.PHENOTYPE_PAIRS for p in PATIENTS[::4]],
           lambda a, p, _x: genes_first(a, [p.gene], 3), xfail=PHENOTYPE_RANK),
    Family("disease_genes", lambda: [(t.format(disease=d.name), d, None) for t in _every(w.DISEASE_GENES)
                                     for d in DISEASES[::2]],
           lambda a, d, _x: genes_first(a, d.genes, 1)),
    Family("options", _mcq_questions, lambda a, d, opts: chose_only(a, d.genes[0], opts)),
    Family("variant_gene", lambda: [(t.format(variant=v.rsid), v, None) for t in _every(w.VARIANT_GENE)
                                    for v in VARIANTS[::2]],
           lambda a, v, _x: not refused(a) and _items(first_line(a))[:1] == [v.symbol]),
)


def _pooled_questions():
    return [(q, (fam, record), extra) for fam in FAMILIES for q, record, extra in fam.questions()]


#: every family's base questions together (the issue's "base questions >= 0.9 right")
ALL_BASE = Family("all", _pooled_questions, lambda a, fam_record, extra: fam_record[0].right(a, fam_record[1], extra))
