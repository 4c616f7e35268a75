"""`biorag prioritise`, `POST /v1/prioritise` and `biorag eval prioritise` end to end, on
the real HPO store and real published cases (tests/data/phenopackets)."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

sys.path.insert(0, str(Path(__file__).parents[1] / "serving"))
from live_server import serve  # noqa: E402

from biorag.settings import load_settings  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "phenopackets"
EXAMPLES = sorted((DATA / "examples").glob("*.json"))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory, hpo_store_path) -> Path:
    d = tmp_path_factory.mktemp("prioritise-data")
    shutil.copy(hpo_store_path, d / "hpo_store.sqlite")
    return d


def _run(data_dir: Path, *argv: str):
    return CliRunner().invoke(app, [*argv, "--set", f"data_dir={json.dumps(str(data_dir))}"])


def test_a_folder_with_one_bad_file_ranks_the_others_and_lists_it(data_dir, tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    for p in EXAMPLES:
        shutil.copy(p, cases / p.name)
    bad = json.loads(EXAMPLES[0].read_text())
    bad["phenotypicFeatures"][2]["type"].pop("id")
    (cases / "broken.json").write_text(json.dumps(bad))
    (cases / "words.txt").write_text("Seizures, ataxia and nystagmus. No hearing loss.")
    out = tmp_path / "out"
    r = _run(data_dir, "prioritise", str(cases), "--out", str(out), "--top-k", "5")
    assert r.exit_code == 1, r.output  # something could not be read: said by the exit code too
    assert "broken.json" in r.output and "phenotypicFeatures[2].type.id" in r.output
    ranked = {p.stem for p in out.glob("*.json")}
    assert ranked == {json.loads(p.read_text())["id"] for p in EXAMPLES} | {"words"}
    for p in EXAMPLES:
        doc = json.loads(p.read_text())
        result = json.loads((out / f"{doc['id']}.json").read_text())
        assert len(result["genes"]) == 5
        with open(out / f"{doc['id']}.tsv", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter="\t"))
        assert rows[0][:4] == ["#RANK", "GENE_SYMBOL", "ENTREZ_GENE_ID", "PHENO_SCORE"]
        assert [r[1] for r in rows[1:]] == [g["symbol"] for g in result["genes"]]
        assert [r[4] for r in rows[1:]] == [g["disease"]["id"] for g in result["genes"]]
    words = json.loads((out / "words.json").read_text())
    assert [t["id"] for t in words["case"]["excluded"]] == ["HP:0000365"]


def test_the_first_line_is_the_ranked_gene_list(data_dir):
    r = _run(data_dir, "prioritise", str(EXAMPLES[1]))
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    genes = lines[0].split(", ")
    assert len(genes) == 10 and all(line.startswith(f"{i}. {g} ") for i, (line, g) in enumerate(zip(lines[1:11], genes, strict=True), 1))
    j = _run(data_dir, "prioritise", "--terms", "HP:0001250,HP:0001251,-HP:0000365", "--json", "-k", "3")
    case = json.loads(j.stdout)["cases"][0]
    assert [g["rank"] for g in case["genes"]] == [1, 2, 3]
    assert [t["id"] for t in case["case"]["excluded"]] == ["HP:0000365"]


def test_the_api_answers_as_the_cli_does(data_dir):
    settings = load_settings(preset="embedded", overrides={"data_dir": str(data_dir), "serve": {"api_keys": ["k1"]}})
    doc = json.loads(EXAMPLES[2].read_text())
    cli = json.loads(_run(data_dir, "prioritise", str(EXAMPLES[2]), "--json").stdout)["cases"][0]
    with serve(settings) as srv:
        with srv.client(headers={"Authorization": "Bearer k1"}) as c:
            r = c.post("/v1/prioritise", json={"phenopacket": doc})
            assert r.status_code == 200, r.text
            api = r.json()
            assert api["genes"] == cli["genes"] and api["case"]["observed"] == cli["case"]["observed"]
            assert api["hpo_release"] == "2025-01-16" and "Human Phenotype Ontology" in api["notice"]
            few = c.post("/v1/prioritise", json={"terms": ["HP:0001250"], "top_k": 3})
            assert few.status_code == 200 and len(few.json()["genes"]) == 3
            words = c.post("/v1/prioritise", json={"text": "seizures and ataxia without hearing loss"})
            assert [t["id"] for t in words.json()["case"]["excluded"]] == ["HP:0000365"]
            nothing = c.post("/v1/prioritise", json={"text": "what a lovely day"})
            assert nothing.status_code == 422 and "body.text" in nothing.text
        with srv.client() as c:
            assert c.post("/v1/prioritise", json={"terms": ["HP:0001250"]}).status_code == 401


def test_eval_prioritise_reports_the_field_measures(data_dir, tmp_path):
    out = tmp_path / "eval"
    r = _run(data_dir, "eval", "prioritise", "--cases", str(DATA / "dev_sample.jsonl"), "--out", str(out),
             "--folds", "3")
    assert r.exit_code == 0, r.output
    summary = json.loads((out / "summary.json").read_text())
    n = sum(1 for _ in open(DATA / "dev_sample.jsonl"))
    assert summary["n"] == n and 0 < summary["coverable"] <= n
    cv = summary["figures"]["cross-validated"]
    for subset in ("all", "coverable"):
        m = cv[subset]
        assert 0 <= m["top1"] <= m["top3"] <= m["top10"] <= 1 and 0 < m["mrr"] <= 1
    assert cv["coverable"]["top10"] >= cv["all"]["top10"]
    assert sum(cv["ranks"].values()) == n
    assert (out / "ranks.png").read_bytes()[:4] == b"\x89PNG"
    assert "Exomiser" in r.output and "PhenoBrain" in r.output and "0.654" in r.output
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert all(len(x["features"]) <= 8 for x in rows)
    # folds split by cohort: no gene is scored in two folds
    from evaluation.prioritise import fold_of

    folds = {}
    for x in rows:
        folds.setdefault(x["cohort"], set()).add(fold_of(x["cohort"], 3))
    assert all(len(f) == 1 for f in folds.values())
    # leaving each case's own disease out can only make its gene's rank worse or equal
    left = tmp_path / "left"
    r2 = _run(data_dir, "eval", "prioritise", "--cases", str(DATA / "dev_sample.jsonl"), "--out", str(left),
              "--folds", "3", "--leave-own-disease")
    assert r2.exit_code == 0, r2.output
    worse = [json.loads(x) for x in (left / "results.jsonl").read_text().splitlines()]
    pairs = [(a["rank_shipped"], b["rank_shipped"]) for a, b in zip(rows, worse, strict=True)]
    assert all(b is None or (a is not None and b >= a) for a, b in pairs)
    assert any(a != b for a, b in pairs)
