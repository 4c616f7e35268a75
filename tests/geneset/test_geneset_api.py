"""POST /v1/geneset over real HTTP (uvicorn on 127.0.0.1): the same object as
`biorag geneset --json`, bad input named by field, the API key guard."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "serving"))
from live_server import serve  # noqa: E402

from biorag.settings import load_settings  # noqa: E402

DATA = Path(__file__).parents[1] / "data" / "geneset"


@pytest.fixture(scope="module")
def server(geneset_data_dir):
    settings = load_settings(preset="embedded", overrides={"data_dir": str(geneset_data_dir),
                                                           "serve": {"api_keys": ["k1"]}})
    with serve(settings) as srv:
        yield srv


def nest_genes(set_id: str) -> list[str]:
    for line in (DATA / "nest_sample.tsv").read_text().splitlines()[1:]:
        cols = line.split("\t")
        if cols[0] == set_id:
            return cols[2].strip('"').split(",")
    raise KeyError(set_id)


def test_geneset_over_http(server):
    genes = nest_genes("NEST:125")
    with server.client(headers={"Authorization": "Bearer k1"}) as c:
        r = c.post("/v1/geneset", json={"genes": genes + ["SGOL1", "FOOBAR1"]})
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["answer"].startswith("mismatch repair (GO:0006298")
        assert d["genes"]["unknown"] == ["FOOBAR1"]
        assert d["genes"]["renamed"][0]["symbol"] == "SGO1"
        assert {"go_bp", "reactome", "hpo"} <= set(d["enriched"])
        assert d["enriched"]["go_bp"][0]["overlap"] == d["name_term"]["overlap"]
        r2 = c.post("/v1/geneset", json={"genes": " ".join(genes), "exclude": ["go_bp"]})
        assert r2.status_code == 200 and "go_bp" not in r2.json()["enriched"]
        bad = c.post("/v1/geneset", json={"genes": genes, "exclude": ["kegg"]})
        assert bad.status_code == 422 and "body.exclude" in bad.text
        few = c.post("/v1/geneset", json={"genes": ["TP53"]})
        assert few.status_code == 422 and "at least 2 distinct gene names" in few.text
    with server.client() as c:
        assert c.post("/v1/geneset", json={"genes": genes}).status_code == 401
