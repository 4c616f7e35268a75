"""E-utilities client: rate limiting, retries, timeouts, NCBI error payloads, truncation."""

from __future__ import annotations

import json
import threading
import time

import pytest

from biorag.contracts.errors import ToolError
from retrievers.common.eutils import EUtils, parse_esearch, parse_esummary
from retrievers.common.http_store import RateLimiter

ESEARCH = "/entrez/eutils/esearch.fcgi"
ESUMMARY = "/entrez/eutils/esummary.fcgi"


def test_rate_limiter_holds_under_concurrency():
    rate = 10.0
    lim = RateLimiter(rate)
    stamps: list[float] = []
    lock = threading.Lock()

    def worker():
        for _ in range(3):
            lim.acquire()
            with lock:
                stamps.append(time.monotonic())

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stamps.sort()
    assert len(stamps) == 18
    assert stamps[-1] - stamps[0] >= 17 / rate - 0.05  # 18 calls at 10/s need 1.7 s
    # no 1-second window holds more than `rate` calls (+1 for thread wake-up jitter)
    for i, t0 in enumerate(stamps):
        assert sum(1 for t in stamps[i:] if t - t0 < 1.0) <= rate + 1


def test_eutils_uses_the_rate_limit_over_http(server, live_settings):
    eu = EUtils.from_settings(live_settings(ncbi={"rate_limit": 10}), "gene")
    t0 = time.monotonic()
    for _ in range(4):
        eu.esearch("gene", "LMP10")
    assert time.monotonic() - t0 >= 0.3 - 0.01  # 4 calls at 10/s span at least 0.3 s
    assert len(server.requests) == 4


def test_api_key_email_tool_and_paper_defaults_are_sent(server, live_settings):
    eu = EUtils.from_settings(live_settings(ncbi={"api_key": "KEY1", "email": "a@b.org"}), "gene")
    eu.esearch("gene", "LMP10")
    p = server.requests[-1]["params"]
    assert p["api_key"] == "KEY1" and p["email"] == "a@b.org" and p["tool"] == "biorag"
    assert p["sort"] == "relevance" and p["retmode"] == "json"


def test_retries_on_429_and_503_then_succeeds(server, live_settings):
    server.script(ESEARCH, (429, "Too Many Requests", "text/plain", 0), (503, "busy", "text/plain", 0))
    res = EUtils.from_settings(live_settings(), "gene").esearch("gene", "LMP10")
    assert "5699" in res.ids
    assert len(server.requests) == 3


def test_gives_up_after_retries_naming_the_call(server, live_settings):
    server.script(ESEARCH, *[(503, "busy", "text/plain", 0)] * 3)
    eu = EUtils.from_settings(live_settings(ncbi={"retries": 2}), "gene")
    with pytest.raises(ToolError, match=r"esearch db=gene term='LMP10' failed after 3 attempt\(s\): HTTP 503"):
        eu.esearch("gene", "LMP10")


def test_timeout_is_reported(server, live_settings):
    server.script(ESEARCH, (200, "{}", "application/json", 1.5))
    eu = EUtils.from_settings(live_settings(ncbi={"retries": 0, "timeout_s": 0.3}), "gene")
    with pytest.raises(ToolError, match="timed out after 0.3s"):
        eu.esearch("gene", "LMP10")


def test_phrase_not_found_is_recognised(server, live_settings):
    res = EUtils.from_settings(live_settings(), "gene").esearch("gene", "AC018712.2")
    assert res.ids == [] and res.phrases_not_found == ["AC018712.2"]


def test_invalid_uid_error_payload(server, live_settings):
    # recorded: esummary db=gene id=ENSG... -> {"error": "Invalid uid ENSG... at position= 0"}
    with pytest.raises(ToolError, match="NCBI error: Invalid uid ENSG00000124157"):
        EUtils.from_settings(live_settings(), "gene").esummary("gene", ["ENSG00000124157"])


@pytest.mark.parametrize(
    "body, match",
    [
        ("", "empty response"),
        ("<html><body>Service unavailable</body></html>", "HTML page"),
        ("<?xml version='1.0'?><eSummaryResult><ERROR>Invalid uid x</ERROR></eSummaryResult>",
         "NCBI error: Invalid uid x"),
        ('{"header":{},"result":{"uids":["1","2"],"1":{"uid":"1","na', "cut short"),
    ],
)
def test_malformed_responses_are_clear_errors(body, match):
    with pytest.raises(ToolError, match=match):
        parse_esummary(body, "esummary db=gene id=1", "gene")


def test_truncated_recorded_esummary_keeps_complete_documents(recorded_store):
    ex = recorded_store.lookup("eutils", "esummary", {
        "db": "gene", "retmode": "json",
        "id": "401089,743481,129033823,126948201,125921642,123862931,123644564,123610398,122491030,122229340,1222241923"})
    assert ex.truncated and len(ex.body) == 10000
    with pytest.raises(json.JSONDecodeError):
        json.loads(ex.body)
    res = parse_esummary(ex.body, "esummary", "gene")
    assert res.truncated and res.docs
    first = next(iter(res.docs.values()))
    assert first["name"] == "FOXL2NB"


def test_esearch_html_page_is_not_json():
    with pytest.raises(ToolError, match="HTML page"):
        parse_esearch("<!DOCTYPE html><html></html>", "esearch db=gene term='x'", "gene")


def test_an_empty_search_is_no_record_only_when_ncbi_says_the_phrase_is_not_there():
    """One rule for the gene, dbSNP and OMIM tools (`SearchResult.found`)."""
    from biorag.contracts.errors import NoRecord

    body = {"esearchresult": {"count": "0", "idlist": [], "errorlist": {"phrasesnotfound": ["nosuchthing"]}}}
    with pytest.raises(NoRecord, match=r"OMIM has no entry for 'nosuchthing' \(phrase not found\)"):
        parse_esearch(json.dumps(body), "esearch", "omim").found("omim", "OMIM has no entry for 'nosuchthing'")
    empty = parse_esearch(json.dumps({"esearchresult": {"count": "0", "idlist": []}}), "esearch", "omim")
    assert empty.found("omim", "unused") == []
    hit = parse_esearch(json.dumps({"esearchresult": {"count": "1", "idlist": ["154700"]}}), "esearch", "omim")
    assert hit.found("omim", "unused") == ["154700"]
