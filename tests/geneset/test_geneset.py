"""Gene-set interpretation on real benchmark sets, the full gene store and the real HPO
store: validation, enrichment per library, the name, and claim verification."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from biorag.contracts.errors import InputError
from biorag.knowledge.gene_sets import bundled_library
from retrievers.geneset.retriever import Claim, GeneSetInterpreter, parse_gene_list

DATA = Path(__file__).parents[1] / "data" / "geneset"


def nest(set_id: str) -> tuple[list[str], str]:
    with open(DATA / "nest_sample.tsv", newline="") as fh:
        row = next(r for r in csv.DictReader(fh, delimiter="\t") if r["NEST ID"] == set_id)
    return row["Genes"].replace('"', "").split(","), row["name_new"]


def test_parse_gene_list_pasted_forms():
    assert parse_gene_list("MLH1, MSH2;MSH6  PMS2\nmlh1") == ["MLH1", "MSH2", "MSH6", "PMS2"]
    assert parse_gene_list(["MLH1 MSH2", "MSH6"]) == ["MLH1", "MSH2", "MSH6"]


def test_validation_renames_and_reports(interpreter):
    genes, _ = nest("NEST:125")
    report = interpreter.interpret([*genes, "KIAA0101", "FOOBAR1", "AIS"])
    by_listed = {g.listed: g for g in report.genes}
    assert by_listed["KIAA0101"].status == "renamed" and by_listed["KIAA0101"].symbol == "PCLAF"
    assert by_listed["FOOBAR1"].status == "unknown" and by_listed["FOOBAR1"].symbol is None
    assert by_listed["AIS"].status == "ambiguous" and {"AR", "TP63"} <= set(by_listed["AIS"].candidates)
    d = report.as_dict()
    assert d["genes"]["unknown"] == ["FOOBAR1"]
    assert d["genes"]["renamed"] == [by_listed["KIAA0101"].as_dict()]
    assert "PCLAF" in report.used and "AIS" not in report.used and "KIAA0101" not in report.used


def test_real_set_is_named_by_its_best_term_with_cited_claims(interpreter):
    genes, _gold = nest("NEST:125")
    report = interpreter.interpret(genes)
    assert report.significant and report.name == "mismatch repair" and report.name_source == "term"
    assert report.summary_line().startswith("mismatch repair (GO:0006298, GO Biological Process, ")
    go = bundled_library("go_bp")
    members = [c for c in report.claims if c.kind == "member"]
    assert len(members) == report.name_term.k
    for c in members:  # each supported membership cites the term and the Gene ID, and is true
        gene = c.text.split(" takes part in ")[0]
        assert gene in go.members("GO:0006298")
        assert c.evidence[0] == f"GO:0006298 (GO Biological Process) lists {gene}"
        assert c.evidence[1].startswith("Gene ID ")
    enriched = [c for c in report.claims if c.kind == "enriched"]
    assert enriched and all("adjusted p" in c.evidence[0] for c in enriched)
    assert report.unsupported == []
    assert set(report.enriched) == {"go_bp", "reactome", "hpo"}  # no PubMed index here: no MeSH
    assert any("MeSH library skipped" in n for n in report.notes)
    assert report.hpo_notice and "2025-01-16" in report.hpo_notice
    assert "Mismatch Repair" in [e.name for e in report.enriched["reactome"][:3]]


def test_unsupported_claims_are_removed_and_listed(interpreter):
    genes, _ = nest("NEST:125")
    report = interpreter.interpret(genes)
    libraries = {"go_bp": bundled_library("go_bp"), "reactome": bundled_library("reactome")}
    go = libraries["go_bp"]
    not_member = next(g for g in report.used if g not in go.members("GO:0006298"))
    bogus_term = next(t for t in go.term_ids if not (set(report.used) & go.members(t)))
    checks = {
        "member of a term it is not in": Claim(kind="member", term="GO:0006298", gene=not_member),
        "gene not in the set": Claim(kind="member", term="GO:0006298", gene="TP53"),
        "term not enriched": Claim(kind="enriched", term=bogus_term),
        "term that does not exist": Claim(kind="enriched", term="cosmic ray sensing"),
        "supported": Claim(kind="member", term="mismatch repair", gene="MLH1"),
    }
    out = {k: interpreter.verify(c, report, libraries) for k, c in checks.items()}
    assert out["supported"].supported and out["supported"].evidence[0] == "GO:0006298 (GO Biological Process) lists MLH1"
    for k in ("member of a term it is not in", "gene not in the set", "term not enriched", "term that does not exist"):
        assert not out[k].supported and out[k].reason, k
    assert "is not among the genes of GO:0006298" in out["member of a term it is not in"].reason
    assert "not one of the validated genes" in out["gene not in the set"].reason
    assert "not enriched" in out["term not enriched"].reason
    assert "is not a term of the libraries" in out["term that does not exist"].reason


def test_go_benchmark_sets_are_scored_without_go_bp(geneset_settings):
    it = GeneSetInterpreter.from_settings(geneset_settings, exclude=["go_bp"])
    try:
        with open(DATA / "go_sample.csv", newline="") as fh:
            row = next(csv.DictReader(fh))
        report = it.interpret(row["Genes"].split())
    finally:
        it.close()
    assert "go_bp" not in report.enriched
    assert all(not e.term.startswith("GO:") for terms in report.enriched.values() for e in terms)


def test_no_shared_term_is_said_plainly(interpreter):
    report = interpreter.interpret(["OR1A1", "KRT12"])  # an olfactory receptor and a corneal keratin
    assert not report.significant
    assert report.summary_line().startswith(("No term answers what these genes share", "No term shares"))
    assert not [c for c in report.claims if c.kind == "member"]


@pytest.mark.parametrize("genes,message", [
    (["TP53"], "at least 2 genes"),
    (["FOOBAR1", "NOTAGENE2"], "fewer than 2 of the genes are known"),
])
def test_bad_input_is_one_clear_error(interpreter, genes, message):
    with pytest.raises(InputError, match=message):
        interpreter.interpret(genes)


def test_cli_text_and_json(geneset_data_dir):
    from typer.testing import CliRunner

    from cli.main import app

    genes, _ = nest("NEST:125")
    runner = CliRunner()
    r = runner.invoke(app, ["geneset", *genes, "SGOL1", "--set", f"data_dir={geneset_data_dir}"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("mismatch repair (GO:0006298")
    assert "  SGOL1 -> SGO1 (current symbol)" in lines
    assert any(line.startswith("  - MLH1 takes part in mismatch repair (GO:0006298) [") for line in lines)
    assert "Human Phenotype Ontology (version 2025-01-16)" in r.stdout
    r = runner.invoke(app, ["geneset", *genes, "--json", "-x", "go_bp", "--set", f"data_dir={geneset_data_dir}"])
    d = json.loads(r.stdout)
    assert d["name_term"]["library"] == "reactome" and "Mismatch Repair" in d["name"]
    assert set(d["enriched"]) == {"reactome", "hpo"}
    r = runner.invoke(app, ["geneset", "TP53", "--set", f"data_dir={geneset_data_dir}"])
    assert r.exit_code != 0 and "error: give at least 2 genes" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["geneset", "TP53", "MDM2", "-x", "kegg"])
    assert r.exit_code != 0 and "unknown library kegg" in r.output


@pytest.mark.llm
def test_model_naming_claims_are_verified(geneset_settings):
    """The model path, with the real embedded model standing in for a large one: whatever it
    claims is checked, only supported claims stay, and the name is backed by a term."""
    from biorag.settings import load_settings

    settings = load_settings(overrides={"data_dir": str(geneset_settings.data_dir), "geneset": {"naming": "model"}})
    it = GeneSetInterpreter.from_settings(settings)
    try:
        genes, _ = nest("NEST:125")
        report = it.interpret(genes)
    finally:
        it.close()
    go, reactome = bundled_library("go_bp"), bundled_library("reactome")
    for c in report.claims:
        if c.kind == "member":
            gene, term = c.text.split(" takes part in ")
            tid = term.rsplit("(", 1)[1].rstrip(")")
            assert gene in (go.members(tid) | reactome.members(tid)) or tid.startswith("HP:")
        else:
            assert "adjusted p" in c.evidence[0]
    assert all(c.reason for c in report.unsupported)
    assert report.name  # the model's name when a term backs it, else the best term
    if report.name_source == "term":
        assert report.name == report.name_term.name


def test_the_name_covers_the_set_when_a_broader_term_is_as_significant(interpreter, geneset_settings):
    """MLH1, MSH2, MSH6, PMS2: "meiotic mismatch repair" (3/4 genes, a 3-gene term) ties
    "mismatch repair" (4/4) after correction; the broader term, its GO parent, names the set,
    and the supporting genes are all four. With the consensus (geneset.consensus_top_k) and
    the broader choice off, the narrow term."""
    report = interpreter.interpret(["MLH1", "MSH2", "MSH6", "PMS2"])
    assert report.significant and report.name == "mismatch repair"
    assert report.name_term.term == "GO:0006298" and report.name_term.overlap == ["MLH1", "MSH2", "MSH6", "PMS2"]
    assert report.summary_line().startswith("mismatch repair (GO:0006298, GO Biological Process, 4/4 genes")
    members = [c.text.split(" takes part in ")[0] for c in report.claims if c.kind == "member"]
    assert sorted(members) == ["MLH1", "MSH2", "MSH6", "PMS2"]
    narrow = GeneSetInterpreter(geneset_settings.model_copy(update={
        "geneset": geneset_settings.geneset.model_copy(update={"broader_strength": 2.0, "consensus_top_k": 0})}),
        interpreter.gene_store, interpreter.hpo, None, ["go_bp", "reactome"])
    assert narrow.interpret(["MLH1", "MSH2", "MSH6", "PMS2"]).name == "meiotic mismatch repair"
