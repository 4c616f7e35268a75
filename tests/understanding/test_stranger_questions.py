"""Questions a newcomer typed on the README's stores (a stranger's try), turned
into rules checked on real records, by invariance:

- "what is X involved in?" asks what the gene does: the same first line as "what does X do",
  citing only GO terms the shipped annotations give that gene;
- a gene named by its one-word full name in lower case ("huntingtin") is that gene: the same
  card and the same function line as asked by its symbol;
- a gene's type reads as words, with the record's code kept ("non-coding RNA (ncRNA)"),
  whatever the phrasing, and the card says the same;
- "what is X" gets the card, whose first line says what the gene does, not only its name;
- a disease name with one word misspelt is still that disease, also when the misspelling is
  a word some catalogue name holds ("syndrom").

Genes come from HGNC and the GO annotations the project ships (test_gene_card.py reads them),
diseases from the metamorphic sample of HPO's disease names (tests/data/metamorphic).
"""

from __future__ import annotations

import random
import re

import pytest

from biorag.understanding.analysis import analyse
from biorag.understanding.question_words import english_words
from tests.metamorphic.records import DISEASES, GENES
from tests.understanding.test_gene_card import (
    GO,
    GO_ID,
    HGNC,
    SEED,
    _ask,
    _first_lines,
    _function_genes,
)

INVOLVED = ["what is {x} involved in?", "what is {xl} involved in thanks!", "quick question: what is {x} involved in",
            "which processes does {x} take part in?", "What is {x} part of?"]


@pytest.mark.parametrize("gene", _function_genes(8), ids=lambda g: g["symbol"])
def test_what_a_gene_is_involved_in_is_what_it_does(agent, gene):
    symbol, annotated = gene["symbol"], GO[gene["entrez_id"]]
    does = agent.answer(f"What does the {symbol} gene do?").answer.split("\n")[0]
    for q, ans in zip(INVOLVED, _ask(agent, INVOLVED, symbol), strict=True):
        assert ans.sufficient and ans.answer.split("\n")[0] == does, (q, ans.answer)
        cited = set(GO_ID.findall(ans.answer.split("\n")[0]))
        assert cited and cited <= set(annotated), (q, cited - set(annotated))


def _one_word_names(store, n: int = 6) -> list[dict[str, str]]:
    """Protein-coding HGNC genes with GO BP annotations whose full name is one word, no
    English word, that the store's names give to this gene only ("huntingtin", "frataxin")."""
    pool = [r for r in HGNC if re.fullmatch(r"[a-z]{5,}", r["name"]) and r["name"] not in english_words()
            and r["locus_group"] == "protein-coding gene" and r["entrez_id"] in GO]
    out = []
    for r in random.Random(SEED + 5).sample(pool, len(pool)):
        genes = {g for (g,) in store._con.execute("SELECT DISTINCT gene_id FROM names WHERE name_lc=?", (r["name"],))}
        if genes <= {int(r["entrez_id"])}:
            out.append(r)
        if len(out) == n:
            break
    return out


def test_a_gene_named_by_its_full_name_is_that_gene(agent, full_gene_store):
    genes = _one_word_names(full_gene_store)
    assert len(genes) == 6
    for g in genes:
        for by_name, by_symbol in ((f"tell me about {g['name']}", f"tell me about {g['symbol']}"),
                                   (f"what does {g['name']} do?", f"what does {g['symbol']} do?"),
                                   (f"where is {g['name']} located", f"where is {g['symbol']} located")):
            a, b = agent.answer(by_name), agent.answer(by_symbol)
            assert a.sufficient and a.answer.split("\n")[0] == b.answer.split("\n")[0], (by_name, a.answer, b.answer)


TYPE = ["what kind of gene is {x}", "What type of gene is {x}?", "{xl} gene type", "The biotype of {x} is"]


def _genes_by_type(store) -> list[tuple[str, str]]:
    """(symbol, gene_info type) of two human genes of each type the store holds (HGNC-named,
    their symbol no other human record's)."""
    rng = random.Random(SEED + 6)
    out = []
    for (gtype,) in store._con.execute("SELECT DISTINCT gene_type FROM genes WHERE gene_type NOT IN ('', 'unknown')"):
        rows = store._con.execute(
            "SELECT symbol FROM genes WHERE gene_type=? AND tax_id=9606 AND hgnc_id IS NOT NULL AND symbol IN "
            "(SELECT symbol FROM genes WHERE tax_id=9606 GROUP BY symbol HAVING COUNT(*) = 1)", (gtype,)).fetchall()
        out += [(s, gtype) for (s,) in rng.sample(rows, min(2, len(rows)))]
    return out


def test_a_gene_type_reads_as_words_whatever_the_phrasing(agent, full_gene_store):
    cases = _genes_by_type(full_gene_store)
    assert {t for _, t in cases} >= {"protein-coding", "ncRNA", "pseudo", "snoRNA"}
    for symbol, gtype in cases:
        answers = _ask(agent, TYPE, symbol)
        lines = _first_lines(answers)
        assert len(lines) == 1 and all(a.sufficient for a in answers), (symbol, lines)
        line = lines.pop()
        if gtype not in ("protein-coding", "other"):  # a code alone is no answer a reader understands
            assert line != gtype and " " in line, (symbol, line)
        assert gtype.lower().replace("-", " ") in line.lower().replace("-", " "), (symbol, gtype, line)
        card = agent.answer(f"What is {symbol}?").answer.split("\n")[0]
        assert f", a {line} gene" in card, (symbol, card)


def test_a_gene_alone_gets_a_card_that_says_what_it_does_first(agent):
    for gene in _function_genes(6):
        first = agent.answer(f"what is {gene['symbol']}").answer.split("\n")[0]
        assert first.startswith(f"{gene['symbol']}: {gene['name']}, a "), first
        acts = first.split("; acts in ", 1)
        assert len(acts) == 2 and acts[1], first


def _misspelt(name: str, rng: random.Random) -> str | None:
    """The name with one letter left out of its longest word (7 letters or more, not its
    first letter): "syndrome" -> "syndrom"."""
    words = name.split()
    i = max(range(len(words)), key=lambda j: len(words[j]))
    w = words[i]
    if len(words) < 2 or len(w) < 7 or not w.isalpha():
        return None
    k = rng.randrange(1, len(w))
    return " ".join([*words[:i], w[:k] + w[k + 1:], *words[i + 1:]])


def test_a_misspelt_disease_name_is_still_that_disease(agent):
    rng = random.Random(SEED + 7)
    cases = [(d.name, typo) for d in DISEASES if (typo := _misspelt(d.name, rng)) and typo.lower() != d.name.lower()]
    # the misspelling of "syndrome" that a catalogue name holds ("syndrom"), for every such name
    cases += [(d.name, re.sub(r"(?i)\bsyndrome\b", "syndrom", d.name)) for d in DISEASES
              if re.search(r"(?i)\bsyndrome\b", d.name)]
    assert len(cases) >= 40

    def disease(q: str):
        e = analyse(q, agent.retrievers, agent.lexicon).first("disease")
        return e and (e.confident, tuple(sorted(c.lower() for c in e.canonical)))

    linked = 0
    for right, typo in cases:
        want = disease(f"which gene is mutated in {right}?")
        if not want or not want[0] or not want[1]:
            continue  # the right spelling itself is not one known disease
        linked += 1
        got = disease(f"which gene is mutated in {typo.lower()}?")
        assert got == want, (right, typo, want, got)
    assert linked >= 30, linked


def test_what_a_gene_encodes_is_its_full_name(agent):
    """"What does X encode?", "What protein does X encode?", "the protein product of X": the
    gene's full name (HGNC's approved name), not its function card nor the literature;
    "What kind of protein does X encode?" stays the class its names state."""
    genes = [g for g in GENES if g.name and g.symbol.isalnum()][:15]
    for g in genes:
        for q in (f"What does {g.symbol} encode?", f"what protein does {g.symbol} encode",
                  f"What is the protein product of the {g.symbol} gene?", f"What does the {g.symbol} gene code for?"):
            a = analyse(q, agent.retrievers, agent.lexicon)
            assert a.intent is not None and a.intent.kind == "full_name", (q, a.intent and a.intent.kind)
        ans = agent.answer(f"What does {g.symbol} encode?")
        assert ans.sufficient and ans.answer.splitlines()[0] == g.name, (g.symbol, ans.answer)
    a = analyse("What kind of protein does BRAF encode?", agent.retrievers, agent.lexicon)
    assert a.intent is not None and a.intent.kind == "gene_class"


def test_how_common_a_disease_is_names_the_disease_for_the_literature(agent):
    """"How common is X?", "How rare is X?": the disease is found after the asking words and
    the question goes to the literature (how common is no record field)."""
    for d in DISEASES[:20]:
        for q in (f"How common is {d.name}?", f"how rare is {d.name}"):
            a = analyse(q, agent.retrievers, agent.lexicon)
            names = {n.lower() for e in a.entities if e.kind == "disease" for n in (e.text, e.span, *e.canonical)}
            assert d.name.lower() in names and a.intent is None and a.asks is not None, (q, a.entities, a.intent)
