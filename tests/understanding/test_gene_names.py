"""Gene names in a question linked to genes, checked by invariance over real records (the
HGNC complete set bundled with BioRAG and the full local gene store built from it), each in
several wordings and cases:

- an alias asked for its official symbol or name is that gene's name, whatever else the
  word names (a disease or phenotype in the store's dictionary: "WARTS"; an English word);
- a name that is one gene's previous symbol and another's alias is ambiguous: the first
  line says so and lists each gene with its full name (none is picked);
- an official symbol that is also an English word ("mcc"), asked alone for a gene field, is
  the gene; English questions that ask no gene field of such a word link no gene;
- an Ensembl id that several gene_info records share means the gene HGNC maps it to.
"""

from __future__ import annotations

import random
import re
import sqlite3

import pytest

from biorag.understanding.analysis import analyse
from biorag.understanding.question_words import english_words
from tests.hgnc_rows import approved_hgnc_rows

SEED = 24
SYMBOL_LIKE = re.compile(r"[A-Z][A-Z0-9]{2,9}")


HGNC = approved_hgnc_rows()
BY_ENTREZ = {r["entrez_id"]: r for r in HGNC if r["entrez_id"]}


@pytest.fixture(scope="module")
def db(store_path):
    con = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    yield con
    con.close()


def _human_genes(db, name: str) -> dict[int, set[str]]:
    """Gene ID -> the kinds of name `name` is of that human gene in the store."""
    out: dict[int, set[str]] = {}
    for gid, kind in db.execute("SELECT n.gene_id, n.kind FROM names n JOIN genes g USING (gene_id) "
                                "WHERE n.name_lc=? AND g.tax_id=9606", (name.lower(),)):
        out.setdefault(gid, set()).add(kind)
    return out


def _first(answer: str) -> str:
    return answer.strip().split("\n")[0]


# ---- 1. an alias asked by its name ------------------------------------------------------------
SYMBOL_OF = ["official symbol of {x}", "quick question: official symbol of {x}", "What is {x} called now?",
             "please, what is {xl} called now?", "The current name of {x} is", "{xl}: current symbol?"]
NAME_OF = ["official name of {x}?", "What is the official gene name of {xl}?", "{x} - official gene name?"]


def _unique_aliases(db, n: int, keep) -> list[tuple[str, dict[str, str]]]:
    """(alias, its gene's HGNC row): HGNC aliases written like symbols that the store gives to
    this one human gene only, as no other kind of name, and for which `keep` holds."""
    pool = [(a, r) for r in HGNC if r["entrez_id"] for a in filter(None, r["alias_symbol"].split("|"))
            if SYMBOL_LIKE.fullmatch(a)]
    random.Random(SEED).shuffle(pool)
    out = []
    for alias, r in pool:
        if _human_genes(db, alias) == {int(r["entrez_id"]): {"alias"}} and keep(alias):
            out.append((alias, r))
            if len(out) == n:
                break
    return out


def _also_a_disease_or_phenotype(lexicon):
    """Whether the question reader's dictionary also knows the word as a disease or phenotype name."""
    return lambda alias: bool(lexicon.lookup_spans([alias], ("disease", "phenotype")))


def test_an_alias_asked_by_its_name_is_that_gene_whatever_else_it_names(agent, db):
    # few single-word aliases are disease or phenotype names too (WARTS, ICA512): all of them
    other_names = _unique_aliases(db, 10, _also_a_disease_or_phenotype(agent.lexicon))
    assert other_names
    cases = (other_names + _unique_aliases(db, 6, lambda a: a.lower() in english_words())
             + _unique_aliases(db, 6, lambda a: True))
    wrong = []
    for alias, gene in cases:
        for templates, expected in ((SYMBOL_OF, gene["symbol"]), (NAME_OF, f"{gene['symbol']} ({gene['name']})")):
            for t in templates:
                q = t.format(x=alias, xl=alias.lower())
                if _first(agent.answer(q).answer) != expected:
                    wrong.append((q, expected, _first(agent.answer(q).answer)))
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(map(repr, wrong[:8]))


# ---- 2. a previous symbol of one gene that is another's alias -----------------------------------
def _previous_and_alias(db, n: int) -> list[tuple[str, list[int]]]:
    """(name, its genes): names the store gives one human gene as a previous symbol and
    another as an alias, and none as its official symbol (HGNC's symbols are unique)."""
    rows = db.execute(
        "SELECT DISTINCT a.name FROM names a JOIN names b ON a.name_lc = b.name_lc AND a.gene_id != b.gene_id "
        "JOIN genes ga ON ga.gene_id = a.gene_id JOIN genes gb ON gb.gene_id = b.gene_id "
        "WHERE a.kind = 'previous' AND b.kind = 'alias' AND ga.tax_id = 9606 AND gb.tax_id = 9606 "
        "ORDER BY a.name").fetchall()
    pool = [name for (name,) in rows if SYMBOL_LIKE.fullmatch(name)]
    random.Random(SEED).shuffle(pool)
    out = []
    for name in pool:
        genes = _human_genes(db, name)
        if not any("symbol" in kinds for kinds in genes.values()) and all(str(g) in BY_ENTREZ for g in genes):
            out.append((name, sorted(genes)))
            if len(out) == n:
                break
    return out


@pytest.mark.parametrize("wording", ["please, what is {x} called now?", "official symbol of {x}",
                                     "{x} chromosome?", "What is the full name of {x}?"])
def test_a_previous_symbol_that_is_another_genes_alias_is_ambiguous(agent, db, wording):
    cases = _previous_and_alias(db, 8)
    assert len(cases) == 8
    for name, genes in cases:
        ans = agent.answer(wording.format(x=name, xl=name.lower()))
        line = _first(ans.answer)
        assert "ambiguous" in line.lower() and not ans.sufficient, (name, ans.answer)
        for gid in genes:
            row = BY_ENTREZ[str(gid)]
            assert f"{row['symbol']} ({row['name']};" in line, (name, row["symbol"], line)


# ---- 3. a lone official symbol that is an English word ----------------------------------------------
FIELD_OF = [("{x} is located on chromosome", "chromosome"), ("which chromosome is {x} on?", "chromosome"),
            ("chromosome of {x}?", "chromosome"), ("full name of {x}?", "full_name"),
            ("{x} stands for", "full_name"), ("Spell out the gene name {x}.", "full_name")]
#: English questions with no gene field asked of the word (or other words beside it)
NOT_ASKED = ["what is the {x}?", "how does {x} work", "is {x} good for you?", "where is the {x} in the house located?",
             "tell me about {x} in history", "what does {x} mean"]


def _english_symbols(n: int) -> list[dict[str, str]]:
    words = english_words()
    pool = [r for r in HGNC if r["entrez_id"] and r["symbol"].isalpha() and len(r["symbol"]) >= 3
            and r["symbol"].lower() in words and r["location"][:1].isdigit()]
    return random.Random(SEED).sample(sorted(pool, key=lambda r: r["symbol"]), n)


def test_a_lone_english_word_symbol_asked_a_gene_field_is_the_gene(agent):
    wrong = []
    for gene in _english_symbols(10):
        chrom = re.match(r"\d+|X|Y", gene["location"]).group(0)
        for t, field in FIELD_OF:
            expected = f"chr{chrom}" if field == "chromosome" else gene["name"]
            for q in (t.format(x=gene["symbol"].lower()), t.format(x=gene["symbol"]).upper()):
                got = _first(agent.answer(q).answer)
                if got.lower() != expected.lower():
                    wrong.append((q, expected, got))
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(map(repr, wrong[:8]))


def test_english_questions_that_ask_no_gene_field_link_no_gene(agent):
    for gene in _english_symbols(10):
        for t in NOT_ASKED:
            q = t.format(x=gene["symbol"].lower())
            a = analyse(q, agent.retrievers, agent.lexicon)
            assert not [e for e in a.entities if e.kind == "gene" and e.confident], (q, a.entities)


# ---- 4. an Ensembl id several gene_info records share ------------------------------------------------
def _shared_ensembl(db) -> tuple[list[tuple[str, dict[str, str]]], list[str]]:
    """Ensembl ids the store gives several human genes: (id, the HGNC row that lists it) where
    exactly one of those genes' HGNC rows lists it, and the ids none of them does."""
    rows = db.execute("SELECT n.name, group_concat(n.gene_id) FROM names n JOIN genes g USING (gene_id) "
                      "WHERE n.kind = 'ensembl' AND g.tax_id = 9606 GROUP BY n.name_lc "
                      "HAVING count(DISTINCT n.gene_id) > 1 ORDER BY n.name").fetchall()
    by_hgnc, unclaimed = [], []
    for ens, gids in rows:
        listing = [BY_ENTREZ[g] for g in gids.split(",") if g in BY_ENTREZ and BY_ENTREZ[g]["ensembl_gene_id"] == ens]
        if len(listing) == 1:
            by_hgnc.append((ens, listing[0]))
        elif not listing:
            unclaimed.append(ens)
    return by_hgnc, unclaimed


def test_an_ensembl_id_records_share_is_the_gene_hgnc_maps_it_to(agent, db):
    by_hgnc, _ = _shared_ensembl(db)
    assert len(by_hgnc) >= 100
    cases = random.Random(SEED).sample(by_hgnc, 12)
    assert any(ens == "ENSG00000187954" for ens, _ in by_hgnc)
    wrong = []
    for ens, gene in cases:
        # the question reader's dictionary agrees with the gene source
        assert {h.canonical for h in agent.lexicon.lookup_spans([ens], ("gene",))} == {gene["symbol"]}, ens
        for q, expected in ((f"Which gene is {ens}?", f"{gene['symbol']} ({gene['name']})"),
                            (f"What is the full name of {ens}?", gene["name"]),
                            (f"what is the full name of {gene['symbol']}?", gene["name"])):
            got = _first(agent.answer(q).answer)
            if got != expected:
                wrong.append((q, expected, got))
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(map(repr, wrong[:8]))


def test_an_ensembl_id_no_hgnc_record_of_them_lists_stays_ambiguous(agent, db):
    _, unclaimed = _shared_ensembl(db)
    for ens in unclaimed[:5]:
        ans = agent.answer(f"Which gene is {ens}?")
        assert "ambiguous" in _first(ans.answer).lower() and not ans.sufficient, (ens, ans.answer)
