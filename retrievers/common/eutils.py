"""NCBI E-utilities client (esearch, esummary, efetch, elink) over the shared `HttpStore`.

- JSON wherever NCBI offers it; `sort=relevance` on esearch (the GeneGPT paper found both
  essential) are defaults, not left to the LLM.
- `api_key`/`email`/`tool` come from settings; one rate limiter per process, 3 requests/s,
  10/s with an API key; retries with backoff on 429/5xx and network errors.
- NCBI answers errors with HTTP 200: esearch ``errorlist`` ("phrases not found"),
  esummary ``"error": "Invalid uid ..."``, XML ``<ERROR>`` bodies, HTML pages. They are
  recognised and reported as such, naming the call.
- Responses cut short (the GeneGPT recording truncated bodies at 10,000 bytes) are parsed
  as far as they go: every complete esummary document is kept and the result says so.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import NoRecord, ToolError
from biorag.retrieval.retriever import Retriever
from retrievers.common.http_store import Exchange, HttpStore, RateLimiter, describe, store_for

if TYPE_CHECKING:
    from biorag.settings import NCBISettings, Settings

_LIMITERS: dict[float, RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def shared_limiter(rate: float) -> RateLimiter:
    """One limiter per rate for the whole process: every tool shares NCBI's budget."""
    with _LIMITERS_LOCK:
        if rate not in _LIMITERS:
            _LIMITERS[rate] = RateLimiter(rate)
        return _LIMITERS[rate]


@dataclass
class SearchResult:
    ids: list[str]
    count: int
    phrases_not_found: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    translation: str = ""

    def found(self, source: str, missing: str) -> list[str]:
        """The ids found. None found is `NoRecord` (`missing`, e.g. "OMIM has no entry for
        'x'") when NCBI says the phrase is not in the database, else an empty list: nothing
        matched, which is not an error."""
        if not self.ids and self.phrases_not_found:
            raise NoRecord(source, f"{missing} (phrase not found)")
        return self.ids


@dataclass
class SummaryResult:
    docs: dict[str, dict[str, Any]]  # uid -> document, in NCBI's order
    errors: list[str] = field(default_factory=list)
    truncated: bool = False


# ---- lenient parsing ----------------------------------------------------------------


def _error_text(body: str) -> str | None:
    """NCBI error carried in an XML/HTML/plain body."""
    m = re.search(r"<ERROR>(.*?)</ERROR>", body, re.S | re.I)
    if m:
        return " ".join(m.group(1).split())
    m = re.search(r'"ERROR"\s*:\s*"([^"]*)"', body)
    if m:
        return m.group(1)
    return None


def _kind(body: str) -> str:
    s = body.lstrip()[:200].lower()
    if not s:
        return "empty"
    if s.startswith(("{", "[")):
        return "json"
    if "<html" in s or "<!doctype html" in s:
        return "html"
    if s.startswith("<"):
        return "xml"
    return "text"


def parse_esearch(body: str, what: str, source: str) -> SearchResult:
    kind = _kind(body)
    if kind != "json":
        raise ToolError(source, f"{what}: {_not_json(body, kind)}")
    try:
        res = json.loads(body).get("esearchresult", {})
    except json.JSONDecodeError:
        # cut short: the id list comes early, keep it
        m = re.search(r'"idlist"\s*:\s*\[([^\]]*)\]', body)
        if not m:
            raise ToolError(source, f"{what}: response was cut short before the id list") from None
        ids = re.findall(r'"(\d+)"', m.group(1))
        return SearchResult(ids=ids, count=len(ids), warnings=["response truncated"])
    if "ERROR" in res:
        raise ToolError(source, f"{what}: NCBI error: {res['ERROR']}")
    errors = res.get("errorlist") or {}
    warns = res.get("warninglist") or {}
    return SearchResult(
        ids=[str(i) for i in res.get("idlist", [])],
        count=int(res.get("count", 0) or 0),
        phrases_not_found=list(errors.get("phrasesnotfound", []) or []),
        warnings=list(warns.get("outputmessages", []) or []),
        translation=res.get("querytranslation", ""),
    )


def parse_esummary(body: str, what: str, source: str) -> SummaryResult:
    """esummary JSON -> documents. Truncated JSON keeps every complete document."""
    kind = _kind(body)
    if kind != "json":
        raise ToolError(source, f"{what}: {_not_json(body, kind)}")
    try:
        data = json.loads(body)
        truncated = False
    except json.JSONDecodeError:
        data = _salvage_esummary(body)
        truncated = True
    result = data.get("result") or {}
    errors = [data["error"]] if data.get("error") else []
    docs: dict[str, dict[str, Any]] = {}
    for uid in result.get("uids", []):
        doc = result.get(str(uid))
        if not isinstance(doc, dict):
            continue
        if doc.get("error"):
            errors.append(f"{uid}: {doc['error']}")
            continue
        docs[str(uid)] = doc
    if not docs and errors:
        raise ToolError(source, f"{what}: NCBI error: {'; '.join(errors)}")
    if not docs and truncated:
        raise ToolError(source, f"{what}: response was cut short before the first complete record")
    return SummaryResult(docs=docs, errors=errors, truncated=truncated)


def _salvage_esummary(body: str) -> dict[str, Any]:
    dec = json.JSONDecoder()
    m = re.search(r'"uids"\s*:\s*\[([^\]]*)\]', body)
    uids = re.findall(r'"([^"]+)"', m.group(1)) if m else []
    result: dict[str, Any] = {"uids": []}
    for uid in uids:
        hit = re.search(rf'"{re.escape(uid)}"\s*:\s*\{{', body[m.end():] if m else body)
        if not hit:
            break
        start = (m.end() if m else 0) + hit.end() - 1
        try:
            doc, _ = dec.raw_decode(body, start)
        except json.JSONDecodeError:
            break  # the cut falls inside this document
        result["uids"].append(uid)
        result[uid] = doc
    top_error = re.search(r'"error"\s*:\s*"([^"]*)"', body[: m.start()] if m else body)
    out: dict[str, Any] = {"result": result}
    if top_error:
        out["error"] = top_error.group(1)
    return out


def _not_json(body: str, kind: str) -> str:
    err = _error_text(body)
    if err:
        return f"NCBI error: {err}"
    if kind == "empty":
        return "NCBI returned an empty response"
    if kind == "html":
        return "NCBI returned an HTML page instead of JSON (service error or bad request)"
    return f"NCBI returned {kind} instead of JSON: {body.strip()[:120]!r}"


# ---- the client ---------------------------------------------------------------------


class EUtils:
    """Thin E-utilities client. `source` names the calling tool in errors and replay misses."""

    def __init__(self, store: HttpStore, ncbi: NCBISettings, source: str = "ncbi"):
        self.store = store
        self.ncbi = ncbi
        self.source = source
        self.base = ncbi.eutils_url.rstrip("/")
        rate = ncbi.rate_limit or (10.0 if ncbi.api_key else 3.0)
        self.limiter = shared_limiter(rate)

    @classmethod
    def from_settings(cls, settings: Settings, source: str = "ncbi") -> EUtils:
        return cls(store_for(settings), settings.ncbi, source)

    def call(self, function: str, params: dict[str, Any]) -> Exchange:
        full = dict(params)
        full["tool"] = self.ncbi.tool
        if self.ncbi.email:
            full["email"] = self.ncbi.email
        if self.ncbi.api_key:
            full["api_key"] = self.ncbi.api_key.get_secret_value()
        ex = self.store.fetch(
            f"{self.base}/{function}.fcgi",
            full,
            source=self.source,
            retries=self.ncbi.retries,
            backoff_s=self.ncbi.backoff_s,
            limiter=self.limiter,
            timeout=self.ncbi.timeout_s,
        )
        if not ex.ok:
            raise ToolError(
                self.source,
                f"{describe('eutils', function, params)}: HTTP {ex.status}: {_error_text(ex.body) or ex.body.strip()[:120]}",
            )
        return ex

    def esearch(self, db: str, term: str, retmax: int = 20, sort: str = "relevance") -> SearchResult:
        params = {"db": db, "term": term, "retmax": str(retmax), "retmode": "json", "sort": sort}
        ex = self.call("esearch", params)
        return parse_esearch(ex.body, describe("eutils", "esearch", params), self.source)

    def esummary(self, db: str, ids: list[str]) -> SummaryResult:
        if not ids:
            return SummaryResult(docs={})
        params = {"db": db, "id": ",".join(ids), "retmode": "json"}
        ex = self.call("esummary", params)
        res = parse_esummary(ex.body, describe("eutils", "esummary", params), self.source)
        res.truncated = res.truncated or ex.truncated
        return res

    def efetch(self, db: str, ids: list[str], rettype: str | None = None, retmode: str = "text") -> str:
        params = {"db": db, "id": ",".join(ids), "retmode": retmode}
        if rettype:
            params["rettype"] = rettype
        ex = self.call("efetch", params)
        err = _error_text(ex.body)
        if err and len(ex.body) < 2000:
            raise ToolError(self.source, f"{describe('eutils', 'efetch', params)}: NCBI error: {err}")
        return ex.body

    def elink(self, dbfrom: str, db: str, ids: list[str]) -> list[str]:
        params = {"dbfrom": dbfrom, "db": db, "id": ",".join(ids), "retmode": "json"}
        ex = self.call("elink", params)
        what = describe("eutils", "elink", params)
        if _kind(ex.body) != "json":
            raise ToolError(self.source, f"{what}: {_not_json(ex.body, _kind(ex.body))}")
        try:
            data = json.loads(ex.body)
        except json.JSONDecodeError:
            raise ToolError(self.source, f"{what}: response was cut short") from None
        if data.get("ERROR"):
            raise ToolError(self.source, f"{what}: NCBI error: {data['ERROR']}")
        out: list[str] = []
        for ls in data.get("linksets", []):
            for lsdb in ls.get("linksetdbs", []):
                out.extend(str(i) for i in lsdb.get("links", []))
        return out


class EUtilsRetriever(Retriever):
    """Base of the tools that are one E-utilities database (dbSNP, OMIM): the client and
    the candidate pool size come from settings; subclasses implement `search`."""

    def __init__(self, eutils: EUtils, retmax: int = 20):
        self.eutils = eutils
        self.retmax = retmax

    @classmethod
    def from_settings(cls, settings: Settings) -> EUtilsRetriever:
        return cls(EUtils.from_settings(settings, cls.name), settings.ncbi.retmax)
