"""The API half of the bad-input corpus, hand-written: each case against the real server
(real agent and engine, embedded preset, API keys on) must get a 4xx in the one error
shape, naming the field at fault, and leave no traceback in the server log. Property-based
fuzzing of the same API is test_serving_fuzz.py (Schemathesis)."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

import pytest
from live_server import serve, settings_with

KEY = "corpus-Key-5e6f7a8b9c"
AUTH = {"Authorization": f"Bearer {KEY}"}
LONG = "x" * 2001


@dataclass(frozen=True)
class Case:
    id: str
    method: str
    path: str
    status: int
    field: str  # named in `fields` (or, for errors with no single field, in `detail`)
    body: Any = None  # JSON-encoded unless bytes
    headers: dict[str, str] = field(default_factory=lambda: dict(AUTH))


def _cases() -> list[Case]:
    c: list[Case] = []

    def add(id_: str, method: str, path: str, status: int, field_: str, body: Any = None,
            headers: dict[str, str] | None = None) -> None:
        c.append(Case(id_, method, path, status, field_, body, dict(AUTH) if headers is None else headers))

    # -- authentication comes first, before the body is read or parsed ----------------------
    for hid, hdr in [("none", {}), ("wrong", {"Authorization": "Bearer wrong-key"}),
                     ("prefix", {"Authorization": f"Bearer {KEY}x"}), ("basic", {"Authorization": f"Basic {KEY}"}),
                     ("x-api-key-empty", {"X-API-Key": ""}), ("bearer-only", {"Authorization": "Bearer"})]:
        add(f"auth-{hid}-sources", "GET", "/v1/sources", 401, "header.authorization", headers=hdr)
    for bid, body in [("malformed", b'{"question": "x",'), ("not-utf8", b'{"question": "\xff\xfe"}'),
                      ("not-json", b"question=x"), ("valid", {"question": "What is LMP10?"})]:
        add(f"auth-before-body-{bid}", "POST", "/v1/answer", 401, "header.authorization", body, headers={})
    add("auth-before-body-stream", "POST", "/v1/answer/stream", 401, "header.authorization", b"{", headers={})
    add("auth-before-size", "POST", "/v1/answer", 401, "header.authorization",
        {"question": "y" * 70000}, headers={})
    add("auth-unknown-route", "GET", "/v1/nosuch", 401, "header.authorization", headers={})
    add("auth-metrics", "GET", "/metrics", 401, "header.authorization", headers={})
    add("auth-rebuild", "POST", "/v1/jobs/index-rebuild", 401, "header.authorization", {"inputs": ["x"]}, headers={})

    # -- Host header: DNS rebinding -----------------------------------------------------------
    for hid, host in [("evil", "evil.example"), ("suffix", "localhost.evil.example"),
                      ("nip", "127.0.0.1.nip.io"), ("other-v6", "[::2]:8000"), ("empty", "")]:
        add(f"host-{hid}", "GET", "/v1/sources", 400, "header.host", headers={**AUTH, "Host": host})
    add("host-evil-page", "GET", "/", 400, "header.host", headers={"Host": "evil.example"})

    # -- bodies that are not the request ------------------------------------------------------
    for bid, body in [("open", b"{"), ("trailing-comma", b'{"question": "x",'), ("array", []), ("string", "str"),
                      ("null", None), ("number", 123), ("empty", b""), ("no-value", b'{"question": }'),
                      ("single-quotes", b"{'question': 'x'}"), ("nan", b'{"question": "x", "top_k": NaN}')]:
        add(f"body-{bid}", "POST", "/v1/answer", 422, "body.top_k" if bid == "nan" else "body", body)
    for bid, body in [("latin1", '{"question": "caf\xe9"}'.encode("latin-1")),
                      ("binary", b"\xff\xd8\xff\xe0\x00\x10JFIF" + bytes(range(128, 256)))]:
        add(f"body-{bid}", "POST", "/v1/answer", 400, "body", body)
    add("body-too-large", "POST", "/v1/answer", 413, "body", {"question": "y" * 70000})

    # -- the question --------------------------------------------------------------------------
    for qid, q in [("missing", ...), ("null", None), ("number", 123), ("list", ["x"]), ("object", {"q": 1}),
                   ("empty", ""), ("blank", "  \t\n "), ("surrogate", "\ud800 which gene?"),
                   ("low-surrogate", "TP53 \udcff"), ("long", LONG), ("bool", True)]:
        body = {} if q is ... else {"question": q}
        add(f"question-{qid}", "POST", "/v1/answer", 422, "body.question", body)
        if qid in ("missing", "empty", "surrogate", "long"):
            add(f"stream-question-{qid}", "POST", "/v1/answer/stream", 422, "body.question", body)

    # -- overrides: wrong values (422) --------------------------------------------------------
    q = "What is the official gene symbol of LMP10?"
    for fid, extra, fld in [
        ("extra-field", {"colour": 1}, "body.colour"),
        ("top_k-0", {"top_k": 0}, "body.top_k"), ("top_k-101", {"top_k": 101}, "body.top_k"),
        ("top_k-text", {"top_k": "five"}, "body.top_k"), ("top_k-negative", {"top_k": -1}, "body.top_k"),
        ("top_k-fraction", {"top_k": 1.5}, "body.top_k"),
        ("max_rounds-0", {"max_rounds": 0}, "body.max_rounds"), ("max_rounds-51", {"max_rounds": 51}, "body.max_rounds"),
        ("max_rounds-text", {"max_rounds": "many"}, "body.max_rounds"),
        ("preset-unknown", {"preset": "nosuch"}, "body.preset"),
        ("preset-path", {"preset": "../../etc/passwd"}, "body.preset"), ("preset-number", {"preset": 5}, "body.preset"),
        ("disable-unknown", {"disable": ["gene", "genes"]}, "body.disable.1"),
        ("disable-number", {"disable": [5]}, "body.disable.0"), ("disable-string", {"disable": "gene"}, "body.disable"),
        ("enable-unknown", {"enable": ["wikipedia"]}, "body.enable.0"),
        ("set-string", {"set": "planner=rules"}, "body.set"), ("set-list", {"set": [1]}, "body.set"),
        ("set-unknown", {"set": {"colour": 1}}, "body.set.colour"),
        ("set-empty-key", {"set": {"": 1}}, "body.set."),
        ("set-dots", {"set": {"a..b": 1}}, "body.set.a..b"),
        ("set-unknown-component", {"set": {"components.nosuch": True}}, "body.set.components.nosuch"),
        ("set-top_k-1000", {"set": {"sources.gene.top_k": 1000}}, "body.set.sources.gene.top_k"),
        ("set-top_k-text", {"set": {"sources.gene.top_k": "x"}}, "body.set.sources.gene.top_k"),
        ("set-planner", {"set": {"planner": "genius"}}, "body.set.planner"),
        ("set-max_rounds", {"set": {"max_rounds": 0}}, "body.set.max_rounds"),
        ("set-grounding", {"set": {"grounding": "sometimes"}}, "body.set.grounding"),
        ("set-mesh_widen", {"set": {"index.mesh_widen": "everything"}}, "body.set.index.mesh_widen"),
        ("set-null", {"set": {"sources.gene.enabled": None}}, "body.set.sources.gene.enabled"),
    ]:
        add(f"override-{fid}", "POST", "/v1/answer", 422, fld, {"question": q, **extra})

    # -- overrides that would leave the operator's configuration (403) ------------------------
    for fid, extra, fld in [
        ("preset-paper", {"preset": "paper"}, "body.preset"),
        ("enable-disabled-web", {"enable": ["web"]}, "body.enable.0"),
        ("enable-second", {"enable": ["gene", "web"]}, "body.enable.1"),
        ("set-web-enabled", {"set": {"sources.web.enabled": True}}, "body.set.sources.web.enabled"),
        ("set-new-source", {"set": {"sources.evil.enabled": True}}, "body.set.sources.evil.enabled"),
        ("set-llm-base_url", {"set": {"llm.base_url": "http://evil.example/v1"}}, "body.set.llm.base_url"),
        ("set-llm-backend", {"set": {"llm.backend": "openai"}}, "body.set.llm.backend"),
        ("set-llm-api_key", {"set": {"llm.api_key": "mine"}}, "body.set.llm.api_key"),
        ("set-llm-model_path", {"set": {"llm.model_path": "/etc/passwd"}}, "body.set.llm.model_path"),
        ("set-index-uri", {"set": {"index.uri": "http://evil.example:19530"}}, "body.set.index.uri"),
        ("set-index-embedder", {"set": {"index.embedder": "/tmp/x"}}, "body.set.index.embedder"),
        ("set-ncbi-url", {"set": {"ncbi.eutils_url": "http://evil.example"}}, "body.set.ncbi.eutils_url"),
        ("set-blast-url", {"set": {"ncbi.blast_url": "http://evil.example"}}, "body.set.ncbi.blast_url"),
        ("set-web-url", {"set": {"web.wikipedia_url": "http://evil.example"}}, "body.set.web.wikipedia_url"),
        ("set-tool_io-mode", {"set": {"tool_io.mode": "live"}}, "body.set.tool_io.mode"),
        ("set-tool_io-cassette", {"set": {"tool_io.cassette": "/etc/passwd"}}, "body.set.tool_io.cassette"),
        ("set-data_dir", {"set": {"data_dir": "/"}}, "body.set.data_dir"),
        ("set-gene_store", {"set": {"gene_store": "/etc/passwd"}}, "body.set.gene_store"),
        ("set-serve-keys", {"set": {"serve.api_keys": []}}, "body.set.serve.api_keys"),
        ("set-mesh-tagger", {"set": {"mesh.tagger": "/tmp/adapter"}}, "body.set.mesh.tagger"),
        ("set-question-limit", {"set": {"max_question_chars": 100000}}, "body.set.max_question_chars"),
        ("set-source-backend", {"set": {"sources.gene.backend": "local"}}, "body.set.sources.gene.backend"),
    ]:
        add(f"operator-{fid}", "POST", "/v1/answer", 403, fld, {"question": q, **extra})
    for fid, extra, fld in [("preset-paper", {"preset": "paper"}, "body.preset"),
                            ("enable-web", {"enable": ["web"]}, "body.enable.0"),
                            ("set-tool_io", {"set": {"tool_io.mode": "record"}}, "body.set.tool_io.mode")]:
        add(f"stream-operator-{fid}", "POST", "/v1/answer/stream", 403, fld, {"question": q, **extra})

    # -- direct search ------------------------------------------------------------------------
    for sid, path, status, fld in [
        ("unknown-source", "/v1/search/nosuchsource?q=TP53", 422, "path.source"),
        ("disabled-source", "/v1/search/web?q=TP53", 422, "path.source"),
        ("traversal-source", "/v1/search/..%2F..%2Fetc?q=x", 404, "path"),
        ("q-missing", "/v1/search/gene", 422, "query.q"), ("q-empty", "/v1/search/gene?q=", 422, "query.q"),
        ("q-blank", "/v1/search/gene?q=%20%09", 422, "query.q"), ("q-long", f"/v1/search/gene?q={LONG}", 422, "query.q"),
        ("k-0", "/v1/search/gene?q=TP53&k=0", 422, "query.k"), ("k-101", "/v1/search/gene?q=TP53&k=101", 422, "query.k"),
        ("k-text", "/v1/search/gene?q=TP53&k=abc", 422, "query.k"), ("k-fraction", "/v1/search/gene?q=TP53&k=1.5", 422, "query.k"),
        ("no-record", "/v1/search/gene?q=ENSG10010137169.1", 404, "query.q"),
        ("not-recorded", "/v1/search/dbsnp?q=rs999999999", 404, "query.q"),
        # each source's own query format, as its path's schema states it
        ("blast-words", "/v1/search/blast?q=the%20PSMB10%20gene%20sequence%20please", 422, "query.q"),
        ("blast-short", "/v1/search/blast?q=ACGTACGT", 422, "query.q"),
        ("blast-protein", "/v1/search/blast?q=MKTAYIAKQRQISFVKSHFSRQ", 422, "query.q"),
        ("geneset-one-name", "/v1/search/geneset?q=TP53", 422, "query.q"),
        ("geneset-number", "/v1/search/geneset?q=0", 422, "query.q"),
        ("genome-words", "/v1/search/genome?q=TP53", 422, "query.q"),
        ("genome-no-chr", "/v1/search/genome?q=7:5530601-5530700", 422, "query.q"),
        ("genome-too-long", "/v1/search/genome?q=chr7:1-200000", 422, "query.q"),
        ("genome-reversed", "/v1/search/genome?q=chr7:200-100", 422, "query.q"),
        ("genome-no-fasta", "/v1/search/genome?q=chr7:5530601-5530700", 404, "path.source"),
        ("seqtools-words", "/v1/search/seqtools?q=translate%20ATGGCC", 422, "query.q"),
        ("seqtools-digits-only", "/v1/search/seqtools?q=1%2060", 422, "query.q"),
    ]:
        add(f"search-{sid}", "GET", path, status, fld)

    # -- gene sets ------------------------------------------------------------------------------
    for gid, body in [("empty-string", {"genes": ""}), ("one-name", {"genes": "TP53"}),
                      ("one-item", {"genes": ["TP53"]}), ("blank-item", {"genes": ["TP53", " "]}),
                      ("brackets-only", {"genes": "( ) [ ]"}), ("number", {"genes": 5}),
                      ("unknown-genes", {"genes": "NOTAGENE1 NOTAGENE2"}),
                      ("same-gene-twice", {"genes": "TP53 tp53"})]:
        add(f"geneset-{gid}", "POST", "/v1/geneset", 422, "body.genes", body)
    add("geneset-library", "POST", "/v1/geneset", 422, "body.exclude.0", {"genes": "TP53 MDM2", "exclude": ["kegg"]})

    # -- phenotype prioritisation: a phenopacket, HPO ids or text -------------------------------
    feats = [{"type": {"id": "HP:0001250"}}]
    for pid, body, fld in [
        ("nothing", {}, "body"), ("two", {"terms": ["HP:0001250"], "text": "seizures"}, "body"),
        ("feature-without-id", {"phenopacket": {"phenotypicFeatures": [*feats, {"type": {"label": "Ataxia"}}]}},
         "body.phenopacket"),
        ("no-features", {"phenopacket": {"id": "p1", "subject": {"sex": "MALE"}}}, "body.phenopacket"),
        ("features-not-list", {"phenopacket": {"phenotypicFeatures": "HP:0001250"}}, "body.phenopacket"),
        ("feature-not-hpo", {"phenopacket": {"phenotypicFeatures": [{"type": {"id": "MONDO:0007947"}}]}},
         "body.phenopacket"),
        ("bad-sex", {"phenopacket": {"phenotypicFeatures": feats, "subject": {"sex": "F"}}}, "body.phenopacket"),
        ("bad-age", {"phenopacket": {"phenotypicFeatures": feats, "subject": {
            "timeAtLastEncounter": {"age": {"iso8601duration": "seven"}}}}}, "body.phenopacket"),
        ("excluded-text", {"phenopacket": {"phenotypicFeatures": [{"type": {"id": "HP:0001250"}, "excluded": "no"}]}},
         "body.phenopacket"),
        ("only-excluded", {"terms": ["-HP:0001250"]}, "body.terms"),
        ("phenopacket-list", {"phenopacket": [1, 2]}, "body.phenopacket"),
        ("terms-bad-id", {"terms": ["HP:1"]}, "body.terms.0"), ("terms-empty", {"terms": []}, "body.terms"),
        ("terms-number", {"terms": [5]}, "body.terms.0"),
        ("text-empty", {"text": ""}, "body.text"), ("text-long", {"text": LONG}, "body.text"),
        ("top_k-0", {"terms": ["HP:0001250"], "top_k": 0}, "body.top_k"),
        ("top_k-101", {"terms": ["HP:0001250"], "top_k": 101}, "body.top_k"),
        ("top_k-text", {"terms": ["HP:0001250"], "top_k": "ten"}, "body.top_k"),
        ("malformed", b'{"terms": [', "body"),
    ]:
        add(f"prioritise-{pid}", "POST", "/v1/prioritise", 422, fld, body)

    # -- jobs ------------------------------------------------------------------------------
    add("job-unknown", "GET", "/v1/jobs/nosuch", 404, "path.job_id")
    add("job-long-id", "GET", "/v1/jobs/" + "j" * 5000, 404, "path.job_id")
    for jid, body, fld in [("empty", {}, "body.inputs"), ("no-inputs", {"inputs": []}, "body.inputs"),
                           ("inputs-string", {"inputs": "x"}, "body.inputs"),
                           ("inputs-number", {"inputs": [5]}, "body.inputs.0"),

                           ("mode", {"inputs": ["x"], "mode": "sideways"}, "body.mode"),
                           ("extra", {"inputs": ["x"], "colour": 1}, "body.colour"),
                           ("malformed", b'{"inputs": [', "body")]:
        add(f"rebuild-{jid}", "POST", "/v1/jobs/index-rebuild", 422, fld, body)
    for jid, path, status in [("outside-roots", "/etc/passwd", 403), ("traversal", "../../../../etc/passwd", 403),
                              ("relative-path", "no-such-file.xml", 403)]:
        add(f"rebuild-{jid}", "POST", "/v1/jobs/index-rebuild", status, "body.inputs.0", {"inputs": [path]})

    # -- methods and routes ---------------------------------------------------------------------
    for method, path in [("PUT", "/v1/answer"), ("DELETE", "/v1/answer"), ("GET", "/v1/answer"),
                         ("PATCH", "/v1/jobs/x"), ("POST", "/v1/sources"), ("PUT", "/v1/jobs/index-rebuild")]:
        add(f"method-{method}-{path}", method, path, 405, "method")
    add("job-cancel-unknown", "DELETE", "/v1/jobs/nosuch", 404, "path.job_id")
    add("route-unknown", "GET", "/v1/nosuch", 404, "path")
    add("route-unknown-root", "GET", "/admin", 404, "path")
    return c


CASES = _cases()


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(logging.Formatter().format(record))


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    data = tmp_path_factory.mktemp("bad-input-data")
    log = _Collect()
    loggers = [logging.getLogger(n) for n in ("", "uvicorn", "uvicorn.error", "uvicorn.access")]
    for lg in loggers:
        lg.addHandler(log)
    s = settings_with(f"data_dir={data}", f'serve.api_keys=["{KEY}"]')
    try:
        with serve(s) as srv, srv.client() as client:
            yield client, log
    finally:
        for lg in loggers:
            lg.removeHandler(log)


def test_the_api_corpus_is_large_and_ids_are_unique():
    assert len(CASES) >= 120  # with the CLI half (tests/reliability) well over 200
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_api_bad_input_gets_a_4xx_naming_the_field(case: Case, api):
    client, log = api
    seen = len(log.lines)
    headers = dict(case.headers)
    if isinstance(case.body, bytes):
        content = case.body
        headers.setdefault("Content-Type", "application/json")
    elif case.body is None and case.method in ("GET", "DELETE"):
        content = None
    else:
        content = json.dumps(case.body).encode()
        headers.setdefault("Content-Type", "application/json")
    r = client.request(case.method, case.path, content=content, headers=headers)
    assert r.status_code == case.status, f"{case.id}: {r.status_code} {r.text[:500]}"
    body = r.json()
    assert set(body) == {"error", "detail", "fields"} and isinstance(body["detail"], str), body
    named = [f["field"] for f in body["fields"]]
    assert case.field in named, f"{case.id}: fields {named}, detail {body['detail']!r}"
    new = "\n".join(log.lines[seen:])
    assert "Traceback" not in new, f"{case.id}: traceback in the server log\n{new}"


#: the chat API's bad input: (id, body, status, the parameter its OpenAI error names)
CHAT_CASES = [
    ("empty", {}, 400, "model"),
    ("no-messages", {"model": "biorag-embedded"}, 400, "messages"),
    ("messages-empty", {"model": "biorag-embedded", "messages": []}, 400, "messages"),
    ("only-system", {"model": "biorag-embedded", "messages": [{"role": "system", "content": "hi"}]}, 400, "messages"),
    ("blank-question", {"model": "biorag-embedded", "messages": [{"role": "user", "content": " \t"}]}, 400,
     "messages.0.content"),
    ("long-question", {"model": "biorag-embedded", "messages": [{"role": "user", "content": LONG}]}, 400,
     "messages.0.content"),
    ("two-parts", {"model": "biorag-embedded", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]}, 400, "messages.0.content"),
    ("image-part", {"model": "biorag-embedded", "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "http://x"}}]}]}, 400, "messages.0.content"),
    ("tool-role", {"model": "biorag-embedded", "messages": [{"role": "tool", "content": "1"}]}, 400,
     "messages.0.role"),
    ("unknown-model", {"model": "gpt-4o", "messages": [{"role": "user", "content": "q"}]}, 400, "model"),
    ("tools", {"model": "biorag-embedded", "messages": [{"role": "user", "content": "q"}], "tools": []}, 400, "tools"),
    ("n-3", {"model": "biorag-embedded", "messages": [{"role": "user", "content": "q"}], "n": 3}, 400, "n"),
    ("stop", {"model": "biorag-embedded", "messages": [{"role": "user", "content": "q"}], "stop": ["x"]}, 400, "stop"),
    ("top-p", {"model": "biorag-embedded", "messages": [{"role": "user", "content": "q"}], "top_p": 0.5}, 400,
     "top_p"),
    ("stream-text", {"model": "biorag-embedded", "messages": [{"role": "user", "content": "q"}], "stream": "yes"},
     400, "stream"),
    ("malformed", b'{"model": "biorag-embedded", "messages": [', 400, None),
    ("not-utf8", b'{"model": "\xff"}', 400, None),
]


@pytest.mark.parametrize("cid, body, status, param", CHAT_CASES, ids=[c[0] for c in CHAT_CASES])
def test_chat_bad_input_gets_an_openai_error_naming_the_parameter(cid, body, status, param, api):
    client, log = api
    seen = len(log.lines)
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    r = client.post("/v1/chat/completions", content=content, headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == status, f"{cid}: {r.status_code} {r.text[:500]}"
    err = r.json()["error"]
    assert set(err) == {"message", "type", "param", "code"} and err["type"] == "invalid_request_error", err
    assert err["param"] == param and err["message"], err
    assert "Traceback" not in "\n".join(log.lines[seen:]), cid
