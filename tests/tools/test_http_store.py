"""The record/replay store: keys, choice among several recorded responses, BLAST linking,
misses, secrets, record and cache modes over real HTTP."""

from __future__ import annotations

import json

import pytest

from biorag.contracts.errors import ConfigError, NotRecorded
from retrievers.common.http_store import HttpStore, request_key, safe_url


def test_key_ignores_paging_format_and_identity_and_sorts_ids():
    a = request_key("eutils", "esummary", {"db": "gene", "id": "8138,5699,19171", "retmax": "5",
                                            "retmode": "json", "api_key": "K", "email": "e@x", "tool": "t"})
    b = request_key("eutils", "esummary", {"db": "gene", "id": "19171,5699,8138", "sort": "relevance"})
    assert a == b
    assert request_key("eutils", "esearch", {"db": "gene", "term": "Meesmann+corneal  dystrophy"}) == \
        request_key("eutils", "esearch", {"db": "gene", "term": "meesmann corneal dystrophy"})
    assert request_key("eutils", "esearch", {"db": "gene", "term": "LMP10"}) != \
        request_key("eutils", "esearch", {"db": "omim", "term": "LMP10"})
    assert request_key("eutils", "elink", {"dbfrom": "gene", "db": "omim", "id": "1"}) != \
        request_key("eutils", "elink", {"dbfrom": "nuccore", "db": "omim", "id": "1"})


def test_bundled_cassette_prefers_best_fitting_then_most_observed(recorded_store):
    # LMP10 esearch was recorded with retmax 5 (3714x), 20 (2x) and as XML (no retmode)
    json5 = recorded_store.lookup("eutils", "esearch", {"db": "gene", "term": "LMP10", "retmax": "5",
                                                        "retmode": "json", "sort": "relevance"})
    assert json5.params["retmax"] == "5" and json5.n_observed >= 3714
    assert json5.body.lstrip().startswith("{")
    # with no format asked, the most-observed wins; asking for xml gets the XML one
    plain = recorded_store.lookup("eutils", "esearch", {"db": "gene", "term": "LMP10"})
    assert plain.n_observed >= 3714
    xml = recorded_store.lookup("eutils", "esearch", {"db": "gene", "term": "LMP10", "retmode": "xml"})
    assert xml.body.lstrip().startswith("<")
    r20 = recorded_store.lookup("eutils", "esearch", {"db": "gene", "term": "AF10", "retmax": "20",
                                                      "retmode": "json", "sort": "relevance"})
    assert json.loads(r20.body)["esearchresult"]["retmax"] == "20"


def test_blast_put_is_synthesised_and_linked_to_a_ready_report(recorded_store):
    seq = ("ATTCTGCCTTTAGTAATTTGATGACAGAGACTTCTTGGGAACCACAGCCAGGGAGCCACCCTTTACTCCACCAACAGGTGGC"
           "TTATATCCAATCTGAGAAAGAAAGAAAAAAAAAAAAGTATTTCTCT")
    put = recorded_store.lookup("blast", "Put", {"CMD": "Put", "QUERY": seq, "DATABASE": "nt",
                                                 "PROGRAM": "blastn"})
    assert "QBlastInfoBegin" in put.body and f"RID = {put.rid}" in put.body
    report = recorded_store.lookup("blast", "Get", {"CMD": "Get", "RID": put.rid, "FORMAT_TYPE": "Text"})
    assert "Status=READY" in report.body and "Sequences producing significant alignments" in report.body


def test_replay_miss_names_the_request(recorded_store):
    with pytest.raises(NotRecorded) as e:
        recorded_store.fetch("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi",
                             {"db": "gene", "term": "NOTAGENE42"}, source="gene")
    msg = str(e.value)
    assert msg.startswith("gene: not recorded: esearch db=gene term='NOTAGENE42'")
    assert "\n" not in msg


def test_replay_of_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        HttpStore("replay", tmp_path / "nope.jsonl")


def test_safe_url_drops_secrets():
    u = safe_url("https://x/esearch.fcgi?db=gene&api_key=SECRET&email=me%40x.org&term=A")
    assert "SECRET" not in u and "email" not in u and "term=A" in u


def test_record_then_replay_roundtrip_without_secrets(server, tmp_path):
    cassette = tmp_path / "rec.jsonl"
    rec = HttpStore("record", cassette)
    url = f"{server.base}/entrez/eutils/esummary.fcgi"
    params = {"db": "snp", "id": "1217074595", "retmode": "json", "api_key": "SECRET123", "email": "me@lab.org"}
    live = rec.fetch(url, params, source="dbsnp")
    assert live.ok and "LINC01270" in live.body
    assert server.requests[-1]["params"]["api_key"] == "SECRET123"  # sent on the wire...
    text = cassette.read_text()
    assert "SECRET123" not in text and "me@lab.org" not in text  # ...never recorded
    replay = HttpStore("replay", cassette)
    again = replay.fetch(url, {"db": "snp", "id": "1217074595"}, source="dbsnp")
    assert again.body == live.body and again.recorded


def test_cache_mode_goes_live_once(server, tmp_path):
    store = HttpStore("cache", tmp_path / "cache.jsonl")
    url = f"{server.base}/entrez/eutils/esearch.fcgi"
    params = {"db": "gene", "term": "LMP10", "retmode": "json", "retmax": "20", "sort": "relevance"}
    first = store.fetch(url, params, source="gene")
    n = len(server.requests)
    second = store.fetch(url, params, source="gene")
    assert len(server.requests) == n == 1
    assert second.body == first.body
    reopened = HttpStore("cache", tmp_path / "cache.jsonl")
    assert reopened.fetch(url, params, source="gene").body == first.body
    assert len(server.requests) == 1
