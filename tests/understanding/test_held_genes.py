"""The sufficiency check's "does the evidence mention what the question names" works on the
question's resolved genes (Gene IDs and official symbols, `Entity.members` for a set) and the
genes the sources' typed records hold (`Source.genes`), not on the question's words: real
genes of the full gene store, named in any order and case, or by an alias, are held when
their records are there, and reported missing when they are not."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from biorag.loop.sufficiency import missing_entities
from biorag.understanding.analysis import analyse
from biorag.understanding.search_request import SearchRequest
from retrievers.gene.retriever import LocalGeneRetriever
from retrievers.stores.gene_store import GeneStore
from tests.registered import SOURCES


@pytest.fixture(scope="module")
def records(store_path):
    """symbol -> its gene record (evidence), and symbol -> an alias only that gene has."""
    con = sqlite3.connect(store_path)
    rows = con.execute("SELECT n.name, g.symbol FROM names n JOIN genes g USING (gene_id) "
                       "WHERE n.kind='alias' AND g.gene_type='protein-coding' AND length(n.name) BETWEEN 4 AND 8 "
                       "AND n.name GLOB '[A-Z]*[0-9]*' AND n.name_lc IN "
                       "(SELECT name_lc FROM names GROUP BY name_lc HAVING COUNT(DISTINCT gene_id)=1) "
                       "ORDER BY g.symbol").fetchall()
    con.close()
    alias = dict(random.Random(7).sample([(s, a) for a, s in rows], 120))
    store = GeneStore(store_path)
    gene = LocalGeneRetriever(store)
    found = {s: gene.search(SearchRequest.of(s, 1))[0] for s in alias}
    store.close()
    return {s: ev for s, ev in found.items() if ev.metadata["symbol"] == s}, alias


def _ask(genes: list[str], rng: random.Random) -> str:
    joined = rng.choice([", ".join, " ".join, "\n".join, lambda g: ", ".join(g[:-1]) + " and " + g[-1]])(genes)
    return rng.choice([f"Where are {joined} located?", f"chromosomes of {joined}", f"{joined}: which chromosomes?"])


def test_a_gene_list_in_any_order_case_or_alias_is_held_by_its_records(lexicon, records):
    by_symbol, alias = records
    symbols = sorted(by_symbol)
    rng = random.Random(24)
    cases = 0
    for _ in range(60):
        genes = rng.sample(symbols, rng.randint(2, 4))
        evidence = [by_symbol[g] for g in genes]
        named = [rng.choice([g, g.lower(), alias[g]]) for g in genes]
        rng.shuffle(named)
        question = _ask(named, rng)
        analysis = analyse(question, SOURCES, lexicon)
        resolved = {c for e in analysis.entities for c in (*e.canonical, *(m.name for m in e.members))}
        if not set(genes) <= resolved:
            continue  # a name entity linking read otherwise: not what this test is about
        cases += 1
        assert missing_entities(analysis, evidence, SOURCES) == [], question
        # the control: the records of all but one gene do not hold it
        dropped = rng.choice(genes)
        rest = [ev for ev in evidence if ev.metadata["symbol"] != dropped]
        if any(dropped.lower() in json.dumps(ev.model_dump()).lower() for ev in rest):
            continue
        assert missing_entities(analysis, rest, SOURCES), (question, dropped)
    assert cases >= 40


def test_a_record_held_under_its_gene_id_is_held_whatever_it_is_called(lexicon, records):
    """A record that calls the gene by none of the question's words (a live record written
    before a rename) still holds it: the Gene ID the name resolved to is the record's."""
    by_symbol, alias = records
    symbol = sorted(by_symbol)[0]
    analysis = analyse(f"which chromosome is {alias[symbol]} on?", SOURCES, lexicon)
    (gene,) = [e for e in analysis.entities if e.kind == "gene"]
    assert gene.ident == by_symbol[symbol].id
    renamed = by_symbol[symbol].model_copy(update={
        "title": "", "text": "", "metadata": {**by_symbol[symbol].metadata, "symbol": "RENAMED1",
                                              "aliases": [], "previous_symbols": [],
                                              "designations": []}})
    assert missing_entities(analysis, [renamed], SOURCES) == []
    # the words alone do not hold it: without the source's typed reading it is missing
    assert missing_entities(analysis, [renamed]) == [gene.text]
