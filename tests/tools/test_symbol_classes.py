"""Record-field accuracy by class, on the full store built from the shipped snapshot: names a
person may use for a gene (previous HGNC symbols, C…orf… and FAM… names, aliases, gene_info's
2022 symbols, clone-based names) map to the CURRENT human symbol, current meaning the shipped
HGNC snapshot. Examples are the first N of each class in the HGNC / gene_info files, picked
by a rule over the data (a name that another gene also carries is a different class:
ambiguity, surfaced rather than resolved), never hand-picked."""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from collections import defaultdict

import pytest

from biorag.understanding.search_request import SearchRequest
from indexing.gene_store_build import snapshot_paths
from retrievers.gene.retriever import GeneRetriever, LocalGeneRetriever
from tests.registered import analyse, structured_answer

N = 25
CLONE = re.compile(r"^(?:RP\d{1,2}|CT[A-D]|CH\d{2,3}|XX|LA16c|KB|GS1)-[\w.]+$|^A[CLP]\d{6}\.\d+$")


def _hgnc() -> list[dict[str, str]]:
    with gzip.open(snapshot_paths()["hgnc"], "rt", encoding="utf-8") as fh:
        return list(csv.DictReader(io.StringIO(fh.read()), delimiter="\t", quoting=csv.QUOTE_NONE))


def _split(v: str) -> list[str]:
    return [x for x in v.strip('"').split("|") if x]


@pytest.fixture(scope="module")
def data():
    """HGNC rows with an Entrez ID, and every gene carrying each name (any kind, both files)."""
    rows = [r for r in _hgnc() if r["entrez_id"].isdigit()]
    carriers: dict[str, set[str]] = defaultdict(set)
    for r in rows:
        for name in [r["symbol"], *_split(r["prev_symbol"]), *_split(r["alias_symbol"])]:
            carriers[name.lower()].add(r["entrez_id"])
    info_symbol: dict[str, str] = {}
    with gzip.open(snapshot_paths()["gene_info"], "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            cols = line.split("\t")
            info_symbol[cols[1]] = cols[2]
            for name in [cols[2], *(s for s in cols[4].split("|") if s != "-")]:
                carriers[name.lower()].add(cols[1])
    return rows, carriers, info_symbol


def _first(data, kind: str, pattern: re.Pattern | None = None) -> list[tuple[str, str, str]]:
    """(name, entrez id, current symbol): the first N names of `kind` carried by one gene only."""
    rows, carriers, _ = data
    out = []
    for r in rows:
        for name in _split(r[kind]):
            if (pattern is None or pattern.match(name)) and carriers[name.lower()] == {r["entrez_id"]}:
                out.append((name, r["entrez_id"], r["symbol"]))
        if len(out) >= N:
            break
    return out[:N]


def _check(store, examples, matched: str):
    local = LocalGeneRetriever(store)
    for name, gene_id, current in examples:
        hits = local.search(SearchRequest.of(name, 10))
        assert (hits[0].id, hits[0].metadata["symbol"], hits[0].metadata["matched"]) == (gene_id, current, matched), name
        for question in (f"What is the official gene symbol of {name}?", f"What is the official symbol of {name}?"):
            answer = structured_answer(analyse(question), hits)
            assert answer is not None and answer.text == current, (question, answer)


CLASSES = {  # class -> (HGNC column, pattern of the names, how the store says it matched)
    "previous symbol": ("prev_symbol", None, "previous"),
    "C…orf… name": ("prev_symbol", re.compile(r"^C(?:\d{1,2}|X|Y)orf\d+[A-Z]?$"), "previous"),
    "FAM… name": ("prev_symbol", re.compile(r"^FAM\d+[A-Z]*\d*$"), "previous"),
    "alias": ("alias_symbol", re.compile(r"^[A-Za-z][A-Za-z0-9\-]{2,}$"), "alias"),
}


@pytest.mark.parametrize("name_class", list(CLASSES))
def test_names_of_a_class_give_the_current_symbol(full_gene_store, data, name_class):
    column, pattern, matched = CLASSES[name_class]
    examples = _first(data, column, pattern)
    assert len(examples) == N
    _check(full_gene_store, examples, matched)


def test_gene_info_2022_symbols_renamed_since_give_the_current_symbol(full_gene_store, data):
    rows, carriers, info_symbol = data
    examples = [(info_symbol[r["entrez_id"]], r["entrez_id"], r["symbol"]) for r in rows
                if r["entrez_id"] in info_symbol and info_symbol[r["entrez_id"]] != r["symbol"]
                and carriers[info_symbol[r["entrez_id"]].lower()] == {r["entrez_id"]}][:N]
    assert len(examples) == N
    _check(full_gene_store, examples, "previous")


def test_clone_based_names_resolve_to_their_own_record(full_gene_store, data):
    examples = _first(data, "alias_symbol", CLONE) + _first(data, "prev_symbol", CLONE)
    assert len(examples) >= N
    local = LocalGeneRetriever(full_gene_store)
    for name, gene_id, current in examples:
        hits = local.search(SearchRequest.of(name, 10))
        assert [h.id for h in hits] == [gene_id], name  # its own record, nothing else
        assert hits[0].metadata["symbol"] == current
        answer = structured_answer(analyse(f"Which chromosome is {name} gene located on human genome?"), hits)
        assert answer is not None and answer.text == f"chr{hits[0].metadata['chromosome']}"


def test_shared_names_are_surfaced_not_resolved(full_gene_store, data):
    """Names HGNC gives to several genes: every gene comes back, official symbols first."""
    rows, carriers, _ = data
    symbols = {x["symbol"].lower() for x in rows}
    shared = [name for r in rows for name in _split(r["alias_symbol"])
              if len(carriers[name.lower()]) >= 2 and name.lower() not in symbols][:N]
    assert len(shared) == N
    hgnc_carriers: dict[str, set[int]] = defaultdict(set)
    for r in rows:
        for name in _split(r["alias_symbol"]) + _split(r["prev_symbol"]):
            hgnc_carriers[name.lower()].add(int(r["entrez_id"]))
    for name in shared:
        found = {g["gene_id"] for g, _ in full_gene_store.lookup(name)}
        assert hgnc_carriers[name.lower()] <= found and len(found) >= 2, name


def test_human_record_first_when_ncbi_lists_another_organism_first(server, live_settings, recorded_store):
    """NCBI Gene answering an alias with another organism's record only (the mouse Psmb10 for
    LMP10, as the recorded esummary has it): the source asks once more restricted to human
    and the human record comes first, with its own symbol's case."""
    body = json.loads(recorded_store.lookup("eutils", "esummary", {"db": "gene", "id": "5699,8138,19171"}).body)
    result = body["result"]

    def summary(uid):
        return json.dumps({"header": body["header"], "result": {"uids": [uid], uid: result[uid]}})

    def search(uid):
        return json.dumps({"esearchresult": {"count": "1", "retmax": "1", "retstart": "0", "idlist": [uid],
                                             "translationset": [], "querytranslation": "LMP10[All Fields]"}})

    server.script("/entrez/eutils/esearch.fcgi", (200, search("19171"), "application/json", 0),
                  (200, search("5699"), "application/json", 0))
    server.script("/entrez/eutils/esummary.fcgi", (200, summary("19171"), "application/json", 0),
                  (200, summary("5699"), "application/json", 0))
    gene = GeneRetriever.from_settings(live_settings())
    try:
        hits = gene.search(SearchRequest.of("LMP10", 5))
    finally:
        gene.close()
    assert [(h.metadata["symbol"], h.metadata["tax_id"]) for h in hits] == [("PSMB10", 9606), ("Psmb10", 10090)]
    restricted = [r["params"]["term"] for r in server.requests if r["path"].endswith("esearch.fcgi")]
    assert restricted == ["LMP10", "LMP10 AND txid9606[Organism:exp]"]
    answer = structured_answer(analyse("What is the official gene symbol of LMP10?"), hits)
    assert answer.text == "PSMB10"
