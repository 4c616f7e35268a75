"""A local disease -> genes answer cites the record it read under that record's own catalogue
and id (MedGen CUI, OMIM MIM number, Orphanet number, NCBI Gene ID), with that catalogue's
page, and says which offline catalogue linked the genes. Before, every such record was cited
under the omim source ("omim:MedGen:C0343073", a MedGen concept filed under OMIM).

Records are real: ClinVar gene_condition_source_id rows and HPO's phenotype.hpoa, picked by a
rule (the first N of a class, in file order)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from biorag.contracts.models import Citation
from biorag.settings import load_settings
from biorag.understanding.search_request import SearchRequest
from indexing import hpo_files
from retrievers.omim.local import LocalOmimRetriever
from tests.tools.test_disease_dictionary import _gcs_rows

sys.path.insert(0, str(Path(__file__).parents[1] / "serving"))
from live_server import serve  # noqa: E402

N = 20


@pytest.fixture(scope="module")
def local_omim(full_gene_store):
    return LocalOmimRetriever(full_gene_store)


def medgen_only_rows() -> list[dict[str, str]]:
    """ClinVar diseases known only by a MedGen concept (no OMIM number, no other source), with
    an associated gene: the first N distinct names."""
    rows = [r for r in _gcs_rows() if r["AssociatedGenes"] and not r["DiseaseMIM"] and not r["SourceName"]]
    return list({r["DiseaseName"]: r for r in rows}.values())[:N]


def test_a_medgen_concept_is_cited_as_medgen_and_linked_by_clinvar(local_omim):
    rows = medgen_only_rows()
    assert len(rows) == N
    medgen = 0
    for r in rows:
        hits = local_omim.search(SearchRequest.of(r["DiseaseName"], 5))
        assert hits, r["DiseaseName"]
        top = hits[0]
        c = Citation.from_evidence(top)
        assert c.found_by == "omim"
        prefix, _, local_id = top.metadata["disease_id"].partition(":")
        if prefix == "MedGen":
            medgen += 1
            assert (c.source, c.id) == ("medgen", r["ConceptID"]), r["DiseaseName"]
            assert c.url == f"https://www.ncbi.nlm.nih.gov/medgen/{r['ConceptID']}"
            assert "ClinVar" in c.linked_by
        # whatever the catalogue, never another catalogue's id under "omim"
        assert c.source != "omim" or c.id.isdigit()
        assert c.id == local_id and c.url and c.id in c.url
    assert medgen >= N // 2


def test_wooly_hair_names_its_medgen_concept_and_clinvar(local_omim):
    rows = [r for r in _gcs_rows() if r["DiseaseName"] == "Wooly hair"]
    assert {r["ConceptID"] for r in rows} == {"C0343073"}
    genes = {r["AssociatedGenes"] or r["RelatedGenes"] for r in rows}
    [ev] = local_omim.search(SearchRequest.of("wooly hair", 5))
    assert ev.cited == "medgen:C0343073" and set(ev.metadata["genes"]) == genes
    # ClinVar lists both genes as "related" only: the citation says so
    assert ev.linked_by == ["ClinVar (related genes)"]
    assert "[medgen:C0343073] Wooly hair" in ev.render()


def test_an_orphanet_disease_is_cited_as_orphanet_and_linked_by_hpo(local_omim, full_gene_store):
    """HPO's Orphanet diseases with genes and no OMIM number in the dictionary."""
    names = hpo_files.read_disease_names()
    with_genes = {d for d, _ in hpo_files.read_disease_genes() if d.startswith("ORPHA:")}
    cases = [(d, n) for d, n in names.items() if d in with_genes][:N]
    seen = 0
    for disease_id, name in cases:
        hits = [h for h in local_omim.search(SearchRequest.of(name, 5)) if h.metadata["disease_id"] == disease_id]
        if not hits:
            continue  # the name is also another catalogue's (OMIM first): its record cites that one
        seen += 1
        c = Citation.from_evidence(hits[0])
        number = disease_id.removeprefix("ORPHA:")
        assert (c.source, c.id, c.found_by) == ("orphanet", number, "omim")
        assert c.url == f"https://www.orpha.net/en/disease/detail/{number}"
        assert "HPO annotations" in c.linked_by
    assert seen >= 5


def test_an_omim_phenotype_keeps_its_mim_number(local_omim):
    [ev] = [h for h in local_omim.search(SearchRequest.of("Marfan syndrome", 5)) if h.metadata["form"] == "name"]
    c = Citation.from_evidence(ev)
    assert (c.source, c.id, c.url) == ("omim", "154700", "https://omim.org/entry/154700")
    assert ev.cite_as is None and {"ClinVar", "NCBI mim2gene_medgen", "HPO annotations"} <= set(c.linked_by)


def test_cli_answer_cites_medgen_with_its_linking_catalogue(geneset_data_dir):
    from typer.testing import CliRunner

    from cli.main import app

    r = CliRunner().invoke(app, ["ask", "which gene causes wooly hair", "--quiet", "--set", f"data_dir={geneset_data_dir}"])
    assert r.exit_code == 0, r.output
    assert "Answer: KRT74, LPAR6" in r.stdout
    assert ("[medgen:C0343073] Wooly hair (genes linked by ClinVar (related genes); found by the omim source)"
            "  https://www.ncbi.nlm.nih.gov/medgen/C0343073") in r.stdout
    assert "omim:MedGen" not in r.output


@pytest.fixture(scope="module")
def server(geneset_data_dir):
    with serve(load_settings(preset="embedded", overrides={"data_dir": str(geneset_data_dir)})) as srv:
        yield srv


def test_api_citation_and_trace_name_the_catalogue(server):
    with server.client() as c:
        r = c.post("/v1/answer", json={"question": "Which genes cause wooly hair?"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["answer"] == "KRT74, LPAR6"
    assert d["citations"] == [{
        "source": "medgen", "id": "C0343073", "title": "Wooly hair",
        "url": "https://www.ncbi.nlm.nih.gov/medgen/C0343073", "found_by": "omim",
        "linked_by": ["ClinVar (related genes)"], "genes": [],
    }]
    [retrieve] = [t for t in d["trace"] if t["step"] == "retrieve"]
    assert retrieve["retriever"] == "omim" and retrieve["hits"] == ["medgen:C0343073"]
    assert "ClinVar" in json.dumps([t for t in d["trace"] if t["step"] == "generate"])
