"""Gene-disease links the HPO store takes from NCBI mim2gene_medgen and ClinVar (the bundled
snapshot in indexing/resources/human_genes): a gene HPO itself does not link to a disease
is ranked for a patient with that disease's features, and says which catalogue linked it."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3

import pytest

from biorag.knowledge.phenopackets import Case
from indexing.gene_store_build import snapshot_paths
from retrievers.hpo.prioritise import TSV_COLUMNS, prioritise
from retrievers.hpo.retriever import HpoRetriever
from retrievers.stores.hpo_store import HpoStore, TermMatch


@pytest.fixture(scope="module")
def con(hpo_store_path):
    c = sqlite3.connect(f"file:{hpo_store_path}?mode=ro", uri=True)
    yield c
    c.close()


def _catalogue_only(con) -> list[tuple[int, str, str, str, int]]:
    """Links of genes that HPO's own table links to no disease, with how many other genes
    link to the same disease."""
    return con.execute(
        "SELECT l.gene_id, l.symbol, l.disease_id, l.source, "
        "(SELECT COUNT(*) FROM gene_diseases g WHERE g.disease_id=l.disease_id) + "
        "(SELECT COUNT(*) FROM linked_gene_diseases x WHERE x.disease_id=l.disease_id) - 1 "
        "FROM linked_gene_diseases l WHERE l.gene_id NOT IN (SELECT gene_id FROM gene_diseases) "
        "ORDER BY l.gene_id").fetchall()


def test_a_gene_linked_only_by_a_catalogue_is_ranked_and_names_it(hpo_store, con):
    """A patient with the linked disease's own features (its most frequent, most informative
    8): the gene is ranked for that disease and names the catalogue; where the disease is the
    best match for those features and no other gene shares it, the gene comes first."""
    links = _catalogue_only(con)
    assert len(links) >= 3  # 7 genes in HPO 2025-01-16 with the bundled snapshot
    alone_and_best = 0
    for gid, symbol, disease_id, source, others in links:
        features = [p["id"] for p in hpo_store.disease_phenotypes(disease_id)][:8]
        result = prioritise(hpo_store, Case(id=symbol, observed=features), top_k=100)
        genes = {g["symbol"]: g for g in result.as_dict()["genes"]}
        assert symbol in genes, (symbol, disease_id)
        g = genes[symbol]
        assert g["gene_id"] == gid and g["disease"]["id"] == disease_id and g["linked_by"] == [source]
        line = next(x for x in result.lines()[1:] if f" {symbol} (Gene ID {gid})" in x)
        assert f"({disease_id}, linked by {source})" in line
        row = next(r for r in result.tsv_rows() if r[1] == symbol)
        assert row[TSV_COLUMNS.index("LINKED_BY")] == source
        if not others and hpo_store.rank_diseases(features, limit=1)[0].id == disease_id:
            alone_and_best += 1
            assert g["rank"] == 1, (symbol, disease_id, list(genes)[:5])
    assert alone_and_best >= 1


def test_the_hpo_sources_gene_records_name_the_catalogue(hpo_store, con):
    """What `biorag ask` cites for "which genes ..." questions: a gene record whose link is not
    HPO's own names the catalogue (Evidence.linked_by and its text); HPO's own name none."""
    gid, symbol, disease_id, source, others = next(x for x in _catalogue_only(con) if x[3] == "NCBI mim2gene_medgen")
    terms = [TermMatch(p["id"], p["name"], p["name"], 0.0, p["ic"])
             for p in hpo_store.disease_phenotypes(disease_id)][:8]
    records = HpoRetriever(store=hpo_store).ranked_gene_records(terms, 100)
    mine = next(r for r in records if r.metadata["symbol"] == symbol)
    assert mine.linked_by == [source] and f"(linked by {source})" in mine.text
    assert mine.metadata["diseases"][0] == disease_id
    assert any(not r.linked_by and "linked by" not in r.text for r in records)


def test_hpo_own_links_say_so(hpo_store):
    case = Case(id="rp", observed=["HP:0000510", "HP:0000662", "HP:0007703"])
    genes = prioritise(hpo_store, case, top_k=5).as_dict()["genes"]
    assert genes and all("HPO annotations" in g["linked_by"] for g in genes)


def test_catalogue_links_are_new_causal_and_to_annotated_diseases(hpo_store, con):
    assert hpo_store.info()["schema"] == 3
    rows = con.execute("SELECT gene_id, disease_id, source FROM linked_gene_diseases").fetchall()
    assert len(rows) > 100
    hpo_own = set(con.execute("SELECT gene_id, disease_id FROM gene_diseases").fetchall())
    annotated = {d for (d,) in con.execute(
        "SELECT DISTINCT disease_id FROM disease_terms WHERE aspect='P' AND negated=0")}
    assert not {(g, d) for g, d, _ in rows} & hpo_own
    assert {d for _, d, _ in rows} <= annotated
    # NCBI's qualified links (susceptibility, question, ...) are not taken, from either catalogue
    qualified = set()
    with gzip.open(snapshot_paths()["mim2gene_medgen"], "rt") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if not line.startswith("#") and cols[2] == "phenotype" and cols[1].isdigit() and cols[5] != "-":
                qualified.add((int(cols[1]), f"OMIM:{cols[0]}"))
    assert len(qualified) > 1000
    assert not {(g, d) for g, d, _ in rows} & qualified
    assert {s for _, _, s in rows} == {"NCBI mim2gene_medgen", "ClinVar"}


def test_a_store_built_before_the_links_still_ranks_and_says_to_rebuild(hpo_store_path, tmp_path):
    """A schema-2 store (no linked_gene_diseases) ranks with HPO's links and warns."""
    old = tmp_path / "hpo_store.sqlite"
    shutil.copy(hpo_store_path, old)
    c = sqlite3.connect(old)
    record = json.loads(c.execute("SELECT value FROM meta WHERE key='build'").fetchone()[0])
    c.execute("DROP TABLE linked_gene_diseases")
    c.execute("UPDATE meta SET value=? WHERE key='build'", (json.dumps({**record, "schema": 2}),))
    c.commit()
    c.close()
    store = HpoStore(old)
    try:
        result = prioritise(store, Case(id="rp", observed=["HP:0000510", "HP:0000662"]), top_k=5)
        assert result.genes and all(g.linked_by == ["HPO annotations"] for g in result.genes)
        assert any("biorag data hpo-store build" in w for w in result.warnings)
    finally:
        store.close()


def test_genes_hpo_writes_without_a_symbol_get_hgncs_or_gene_infos(con):
    """HPO's genes_to_phenotype.txt writes "-" as the symbol of a few region genes (7467, the
    Wolf-Hirschhorn region, among them). The store names them as HGNC / gene_info do, so a
    disease's gene list and a PhEval result never show a gene called "-"."""
    from indexing.hpo_files import hpo_data_dir, read_genes_to_phenotype
    from indexing.hpo_gene_links import gene_symbols, link_inputs

    unnamed = {r.gene_id for r in read_genes_to_phenotype(hpo_data_dir()) if r.gene_symbol.strip() in ("", "-")}
    assert 7467 in unnamed  # the release the store is built from still writes it so
    symbols = gene_symbols(link_inputs())
    stored = dict(con.execute(
        f"SELECT DISTINCT gene_id, symbol FROM gene_diseases WHERE gene_id IN ({','.join('?' * len(unnamed))})",
        sorted(unnamed)).fetchall())
    assert stored == {g: symbols[g] for g in unnamed}
    assert stored[7467] == "WHCR"
    assert not con.execute("SELECT COUNT(*) FROM gene_diseases WHERE symbol IN ('', '-')").fetchone()[0]
