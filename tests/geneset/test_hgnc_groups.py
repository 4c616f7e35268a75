"""HGNC gene groups as a term library (`hgnc_groups`): built from the real HGNC complete set
that BioRAG bundles, enriched like GO BP and Reactome, cited as "HGNC group <id>", off by
default and named in the settings and the CLI help."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from biorag.contracts.errors import InputError
from biorag.knowledge.enrichment import enrich
from biorag.knowledge.gene_sets import (
    HGNC_GROUPS_GMT,
    bundled_library,
    bundled_symbols,
    hgnc_groups_gmt,
)
from biorag.understanding.search_request import SearchRequest

HGNC_TSV = Path(__file__).parents[2] / "indexing" / "resources" / "human_genes" / "hgnc_complete_set.txt.gz"
# real HGNC groups (hgnc_complete_set, release of about 2024-10-18)
MCM = {"MCM2", "MCM3", "MCM4", "MCM5", "MCM6", "MCM7"}  # group 1998, "minichromosome maintenance 2-7 complex"
PROTEASOME_CORE = {f"PSMA{i}" for i in range(1, 8)} | {f"PSMB{i}" for i in range(1, 8)}  # in group 690 "Proteasome"


def _settings(tmp_path, libraries, **geneset):
    from biorag.settings import load_settings

    return load_settings(overrides={"data_dir": str(tmp_path), "geneset": {"libraries": libraries, **geneset}})


def test_library_holds_real_hgnc_groups():
    lib = bundled_library("hgnc_groups")
    assert lib.names["HGNC group 1998"] == "minichromosome maintenance 2-7 complex"
    assert lib.members("HGNC group 1998") == MCM
    assert lib.names["HGNC group 690"] == "Proteasome"
    assert PROTEASOME_CORE <= lib.members("HGNC group 690") and "TP53" not in lib.members("HGNC group 690")
    # the universe is every gene in some group (non-coding RNAs included), not only GO/Reactome genes
    assert len(lib.universe) == 25906 and {"MCM2", "LINC00028"} <= lib.universe
    assert "LINC00028" not in bundled_symbols() and "MCM2" in bundled_symbols()  # the dictionary: GO BP + Reactome


def test_bundled_file_is_what_the_bundled_hgnc_set_gives():
    """The shipped GMT is regenerated from the HGNC complete set in the repository, line for
    line: a newer HGNC file without a rebuilt library fails here."""
    with gzip.open(HGNC_GROUPS_GMT, "rt", encoding="utf-8") as fh:
        shipped = fh.read().splitlines()
    assert shipped == hgnc_groups_gmt(HGNC_TSV)
    # a gene in two groups (a quoted, pipe-separated field in the TSV) is in both
    lib = bundled_library("hgnc_groups")
    assert lib.names["HGNC group 362"] == "WD repeat domain containing" and lib.names["HGNC group 1051"] == "Nucleoporins"
    assert "NUP43" in lib.members("HGNC group 362") and "NUP43" in lib.members("HGNC group 1051")


def test_a_file_that_is_not_hgnc_is_one_clear_error(tmp_path):
    bad = tmp_path / "genes.tsv"
    bad.write_text("symbol\tname\nTP53\ttumor protein p53\n")
    with pytest.raises(InputError, match="not an HGNC complete set.*gene_group"):
        hgnc_groups_gmt(bad)
    skewed = tmp_path / "skewed.tsv"
    skewed.write_text('symbol\tstatus\tgene_group\tgene_group_id\nX1\tApproved\t"A|B"\t7\n')
    with pytest.raises(InputError, match="X1 has 1 group ids but 2 group names"):
        hgnc_groups_gmt(skewed)


def test_enrichment_of_a_groups_members_names_that_group():
    lib = bundled_library("hgnc_groups")
    top = enrich(MCM, lib)[0]
    assert (top.term, top.name, top.k, top.K, top.N) == ("HGNC group 1998", "minichromosome maintenance 2-7 complex",
                                                         6, 6, 25906)
    assert top.p_adj < 1e-15


def test_interpreter_cites_the_group_and_links_its_page(tmp_path):
    from retrievers.geneset.retriever import GeneSetInterpreter, GeneSetRetriever

    it = GeneSetInterpreter.from_settings(_settings(tmp_path, ["hgnc_groups"]))
    report = it.interpret(sorted(MCM))
    assert report.significant and report.name == "minichromosome maintenance 2-7 complex"
    assert report.summary_line().startswith(
        "minichromosome maintenance 2-7 complex (HGNC group 1998, HGNC gene groups, 6/6 genes")
    member = {c.text: c.evidence for c in report.claims if c.kind == "member"}
    assert len(member) == 6
    assert member["MCM2 takes part in minichromosome maintenance 2-7 complex (HGNC group 1998)"] == [
        "HGNC group 1998 (HGNC gene groups) lists MCM2"]
    ev = GeneSetRetriever(it).search(SearchRequest.of("what do MCM2 MCM3 MCM4 MCM5 MCM6 MCM7 do together", 3))
    assert ev[0].id == "HGNC group 1998"
    assert ev[0].url == "https://www.genenames.org/data/genegroup/#!/group/1998"


def test_with_go_and_reactome_the_group_only_names_what_they_do_not(tmp_path):
    """On by `geneset.libraries`, HGNC groups are enriched and reported, but the consensus
    stays among GO BP and Reactome (`geneset.consensus_libraries`); a group names a set only
    when neither has a significant term."""
    from retrievers.geneset.retriever import GeneSetInterpreter

    it = GeneSetInterpreter.from_settings(_settings(tmp_path, ["go_bp", "reactome", "hgnc_groups"]))
    report = it.interpret(sorted(MCM))
    assert report.enriched["hgnc_groups"][0].term == "HGNC group 1998"
    assert report.name_term.library in ("go_bp", "reactome")
    voting = GeneSetInterpreter.from_settings(_settings(
        tmp_path, ["reactome", "hgnc_groups"], consensus_libraries=["reactome", "hgnc_groups"]))
    assert voting.interpret(sorted(MCM)).enriched["hgnc_groups"][0].name == "minichromosome maintenance 2-7 complex"


def test_off_by_default_and_named_in_settings_and_help():
    from typer.testing import CliRunner

    from biorag.settings import GeneSetSettings, Settings
    from cli.main import app

    assert "hgnc_groups" not in Settings().geneset.libraries
    assert "hgnc_groups" in GeneSetSettings.model_fields["libraries"].description
    assert GeneSetSettings(libraries=["go_bp", "hgnc_groups"]).libraries == ["go_bp", "hgnc_groups"]
    with pytest.raises(ValueError):
        GeneSetSettings(libraries=["hgnc_group"])
    for cmd in (["geneset", "--help"], ["eval", "geneset", "--help"]):
        r = CliRunner().invoke(app, cmd, terminal_width=200)
        assert r.exit_code == 0 and "hgnc_groups" in r.output, r.output
