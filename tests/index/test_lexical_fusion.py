"""Hybrid retrieval's parts without Milvus: reciprocal rank fusion, the FTS5 lexical index on
real PubMed records (the bundled sample), and query expansion from the bundled MeSH
vocabulary and the real gene store."""

from __future__ import annotations

import random
import re
import sqlite3

import pytest

from biorag.knowledge.mesh import vocabulary
from biorag.ml import lexical_index
from biorag.ml.fusion import rrf
from biorag.ml.query_expansion import expand, symbol_words
from tests.index.index_helpers import sample_rows

# ---- fusion -----------------------------------------------------------------------


def test_an_id_both_lists_rank_beats_ids_one_list_ranks_higher():
    fused = rrf([["a", "b", "c"], ["x", "b", "y"]], k=60)
    assert fused[0].id == "b"
    assert fused[0].ranks == (2, 2)
    assert {h.id for h in fused} == {"a", "b", "c", "x", "y"}


def test_small_k_lets_a_top_hit_win_alone_large_k_rewards_agreement():
    lists = [["solo", "d2", "d3", "shared"], ["l1", "l2", "l3", "shared"]]
    assert rrf(lists, k=0)[0].id in ("solo", "l1")
    assert rrf(lists, k=1000, weights=[1.0, 1.0])[0].id == "shared"


def test_weights_depth_and_limit():
    lists = [["a", "b"], ["b", "a"]]
    assert rrf(lists, weights=[2.0, 1.0])[0].id == "a"
    assert rrf(lists, weights=[1.0, 2.0])[0].id == "b"
    assert [h.id for h in rrf(lists, weights=[1.0, 0.0])] == ["a", "b"]  # weight 0: ignored
    assert [h.id for h in rrf([["a", "b", "c"]], depth=2)] == ["a", "b"]
    assert len(rrf([["a", "b", "c"]], limit=1)) == 1


def test_fusion_is_deterministic_and_counts_a_repeated_id_once():
    rng = random.Random(7)
    ids = [f"d{i}" for i in range(50)]
    lists = [rng.sample(ids, 30) for _ in range(3)]
    assert rrf(lists) == rrf([list(x) for x in lists])
    assert rrf([["a", "a", "b"]])[0].score == pytest.approx(1 / 61)


@pytest.mark.parametrize("bad", [{"k": -1}, {"weights": [1.0]}, {"weights": [1.0, -1.0]}])
def test_bad_fusion_arguments_raise(bad):
    with pytest.raises(ValueError):
        rrf([["a"], ["b"]], **bad)


# ---- lexical index on real records ---------------------------------------------------

ROWS = sample_rows(300)


@pytest.fixture(scope="module")
def lex(tmp_path_factory):
    path = tmp_path_factory.mktemp("lex") / "lexical" / "c.fts.sqlite"
    n = lexical_index.build(path, ((r["pmid"], r["title"], r["abstract"]) for r in ROWS), {"collection": "c"})
    assert n == len(ROWS)
    index = lexical_index.LexicalIndex(path)
    yield index
    index.close()


def _title_rows(n: int = 40) -> list[dict]:
    return [r for r in ROWS if len(lexical_index.query_words(r["title"])) >= 4][:n]


def test_a_records_own_title_finds_it_first(lex):
    rows = _title_rows()
    top1 = [lex.search(lexical_index.query_words(r["title"]), 3)[0][0] == str(r["pmid"]) for r in rows]
    assert len(rows) >= 30
    assert sum(top1) / len(top1) >= 0.9


def test_rewordings_of_a_title_keep_its_top_hit(lex):
    """Case, word order and a polite wrapper change nothing a bag of words sees."""
    rng = random.Random(11)
    wrappers = ["Could you find papers on {}?", "{}", "I'd like to know about {}, please.", "what is known on {}"]
    for r in _title_rows(30):
        base = lex.search(lexical_index.query_words(r["title"]), 1)
        words = r["title"].split()
        rng.shuffle(words)
        for variant in (r["title"].upper(), r["title"].lower(), " ".join(words), rng.choice(wrappers).format(r["title"])):
            assert lex.search(lexical_index.query_words(variant), 1)[0][0] == base[0][0], variant


@pytest.mark.parametrize("query", ['"amyloid', "tau* OR NEAR(a b)", "title: amyloid", "AND OR NOT", "-(", "'",
                                   "amyloid\u00a0β-peptide", "^ {} []"])
def test_fts_syntax_in_a_question_is_literal_text(lex, query):
    hits = lex.search(lexical_index.query_words(query), 5)
    assert all(p.isdigit() for p, _ in hits)


def test_a_name_ending_in_a_greek_letter_finds_the_initialism_abstracts_write(lex):
    """Records of the sample that write "Abeta42"/"Aβ42" and never "amyloid beta": the
    question's words alone find some of them, low in the list (on "42", "mutations"); with
    the initialisms every one is in the top 50 and one leads."""
    writes = [str(r["pmid"]) for r in ROWS if re.search(r"\b(abeta42|aβ42)\b", _text(r))
              and not re.search(r"amyloid[ -]beta|beta[ -]amyloid|amyloid β", _text(r))]
    assert len(writes) >= 3
    question = "Which mutations raise amyloid-beta 42?"
    assert {"aβ42", "abeta42"} <= set(lexical_index.query_terms(question))
    words_only = [p for p, _ in lex.search(lexical_index.query_words(question), 50)]
    with_initialisms = [p for p, _ in lex.search(lexical_index.query_terms(question), 50)]
    assert set(writes) <= set(with_initialisms) and min(with_initialisms.index(p) for p in writes) < 3
    assert not set(writes) <= set(words_only) and min(words_only.index(p) for p in writes if p in words_only) >= 10


def _text(row: dict) -> str:
    return f"{row['title']} {row['abstract']}".lower()


def test_a_query_of_stopwords_only_searches_nothing(lex):
    assert lexical_index.query_words("What is the, of which?") == []
    assert lex.search([], 10) == []


def test_the_file_appears_only_when_complete(tmp_path):
    path = tmp_path / "lexical" / "x.fts.sqlite"

    def rows():
        yield 1, "a title", "an abstract"
        raise RuntimeError("reader broke")

    with pytest.raises(RuntimeError):
        lexical_index.build(path, rows())
    assert not path.exists() and not list(path.parent.glob("*.tmp"))
    with pytest.raises(FileNotFoundError):
        lexical_index.LexicalIndex(path)


def test_index_is_read_only_for_the_retriever(lex):
    with pytest.raises(sqlite3.OperationalError):
        lex._con.execute("DELETE FROM docs")


# ---- query expansion ---------------------------------------------------------------------


def test_mesh_descriptors_named_add_their_other_names_not_the_ones_asked():
    vocab = vocabulary()
    with_aliases = [d for d in vocab.by_ui.values() if d.aliases and len(d.name) > 8 and d.tree_numbers
                    and d.name.casefold() not in {a.casefold() for a in d.aliases}]
    rng = random.Random(3)
    picked = rng.sample(with_aliases, 30)
    found = 0
    for d in picked:
        question = f"What treatments improve outcomes in {d.name}?"
        ex = expand(question, vocab=vocab)
        assert d.name not in ex.terms  # already in the question
        if any(a in ex.terms for a in d.aliases):
            found += 1
            assert all(o.startswith("mesh:") for o in ex.origin.values())
    assert found >= 24  # the rest: a longer descriptor matched first, or its aliases are its own words


def test_symbol_words():
    assert symbol_words("Does BRCA1 interact with p53 and HLA-B in DNA repair?") == ["BRCA1", "HLA-B", "DNA"]
    assert symbol_words("what does the gene do") == []


def test_gene_symbols_expand_to_their_aliases_from_the_gene_store(full_gene_store):
    from retrievers.stores.gene_aliases import gene_names_from

    names = gene_names_from(full_gene_store)
    checked = 0
    for symbol in ("TP53", "BRCA1", "EGFR", "APOE", "CFTR", "MTOR", "PSEN1", "KRAS"):
        hits = [g for g, kind in full_gene_store.lookup(symbol) if g["tax_id"] == 9606 and kind == "symbol"]
        aliases = [a for a in hits[0]["aliases"] if len(a) >= 3]
        ex = expand(f"How does {symbol} affect survival?", gene_names=names, mesh=False)
        assert ex.terms, symbol
        assert set(ex.terms) <= {hits[0]["symbol"], *hits[0]["aliases"]}
        assert any(a in ex.terms for a in aliases)
        assert all(o == f"gene:{symbol}" for o in ex.origin.values())
        checked += 1
    assert checked == 8
    # a word no gene is named by adds nothing
    assert expand("How does XQZZ9 affect survival?", gene_names=names, mesh=False).terms == []


def test_the_mesh_vocabulary_is_loaded_once_per_process():
    """Every MeSH filter, tag and expansion reads it: reloading the 31k descriptors per call
    cost each filtered search about 0.3 s (several seconds on a loaded machine)."""
    from biorag.knowledge import mesh

    assert mesh.vocabulary() is mesh.vocabulary()
    assert mesh.resolve("Alzheimer Disease").ui == "D000544"
