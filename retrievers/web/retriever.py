"""Web search behind one interface: DuckDuckGo & co. (the `ddgs` package, backend ``ddgs``),
Wikipedia, arXiv and Crossref (backends ``wikipedia``, ``arxiv``, ``crossref``).

Every backend goes through the shared record/replay store, so web results replay like NCBI.
Evidence: ``source="web"``, ``id`` = result URL, ``title``, ``text`` = snippet (plain text,
HTML stripped), ``url``. ``metadata``: a `WebRecord` (retrievers/web/record.py), keys:
``engine`` (backend name), ``url``, ``snippet``, ``date`` (ISO date or None), ``authors``
(list, arXiv/Crossref), ``doi`` (Crossref/arXiv when known), ``untrusted`` (always True: web
text is data, never instructions; prompts must quote it as such).
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError, SourceUnavailable, ToolError
from biorag.contracts.models import Evidence
from biorag.contracts.sources import PASSAGES
from biorag.loop.prompts import MANUALS
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest
from retrievers.common.http_store import HttpStore, store_for
from retrievers.web.record import WebRecord

if TYPE_CHECKING:
    from biorag.settings import Settings, WebSettings

MANUAL = MANUALS["web"]  # the text lives with every other prompt

_TAG = re.compile(r"<[^>]+>")


def plain(text: str | None) -> str:
    return " ".join(html.unescape(_TAG.sub("", text or "")).split())


def web_evidence(engine: str, url: str, title: str, snippet: str, date: str | None = None,
                 **extra: Any) -> Evidence:
    """A result as evidence carrying its `WebRecord`; `extra`: ``authors``, ``doi``."""
    rec = WebRecord(engine=engine, url=url, snippet=snippet, date=date, **extra)
    text = snippet + (f"\n(date: {date})" if date else "")
    return Evidence(source="web", id=url, title=title, text=text, url=url, metadata=rec.as_metadata())


class _WebBase(Retriever):
    name = "web"
    manual = MANUAL
    query_format = "a short keyword query"
    engine = ""
    accepts = ("free_text",)
    answers = (PASSAGES,)

    def __init__(self, store: HttpStore, web: WebSettings):
        self.store = store
        self.web = web

    @classmethod
    def from_settings(cls, settings: Settings) -> _WebBase:
        return cls(store_for(settings), settings.web)

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        q = " ".join(query.split())
        if not q:
            raise InputError("web: empty query")
        return self._search(q, k)[:k]

    def _search(self, q: str, k: int) -> list[Evidence]:
        raise NotImplementedError

    def _get_json(self, url: str, params: dict[str, Any]) -> Any:
        ex = self.store.fetch(url, params, source="web", retries=2, timeout=self.web.timeout_s,
                              backoff_s=1.0)
        if not ex.ok:
            raise ToolError("web", f"{self.engine}: HTTP {ex.status}")
        try:
            return json.loads(ex.body)
        except json.JSONDecodeError:
            raise ToolError("web", f"{self.engine}: response is not JSON") from None


class DdgsWebRetriever(_WebBase):
    """Metasearch through the `ddgs` package (it does its own HTTP; recorded as JSON)."""

    engine = "ddgs"

    def _search(self, q: str, k: int) -> list[Evidence]:
        params = {"q": q, "region": self.web.region, "safesearch": self.web.safesearch, "max_results": str(k)}

        def live() -> str:
            try:
                from ddgs import DDGS
                from ddgs.exceptions import DDGSException
            except ImportError:
                raise SourceUnavailable("web", "the ddgs package is not installed (pip install ddgs)") from None
            try:
                rows = DDGS(timeout=int(self.web.timeout_s)).text(
                    q, region=self.web.region, safesearch=self.web.safesearch, max_results=k)
            except DDGSException as e:
                msg = str(e) or e.__class__.__name__
                if "No results" in msg:
                    return "[]"
                raise ToolError("web", f"ddgs search failed: {msg}") from None
            return json.dumps(rows, ensure_ascii=False)

        ex = self.store.call("web_search", "ddgs", params, live, source="web")
        rows = json.loads(ex.body or "[]")
        return [web_evidence("ddgs", r.get("href", ""), plain(r.get("title")), plain(r.get("body")),
                             r.get("date")) for r in rows if r.get("href")]


class WikipediaRetriever(_WebBase):
    engine = "wikipedia"

    def _search(self, q: str, k: int) -> list[Evidence]:
        data = self._get_json(self.web.wikipedia_url, {
            "action": "query", "list": "search", "srsearch": q, "srlimit": str(k),
            "format": "json", "utf8": "1"})
        if "error" in data:
            raise ToolError("web", f"wikipedia: {data['error'].get('info', data['error'])}")
        base = self.web.wikipedia_url.split("/w/")[0]
        out = []
        for r in data.get("query", {}).get("search", []):
            title = r.get("title", "")
            url = f"{base}/wiki/{title.replace(' ', '_')}"
            out.append(web_evidence("wikipedia", url, title, plain(r.get("snippet")),
                                    (r.get("timestamp") or "")[:10] or None))
        return out


class ArxivRetriever(_WebBase):
    engine = "arxiv"
    _NS = {"a": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}

    def _search(self, q: str, k: int) -> list[Evidence]:
        ex = self.store.fetch(self.web.arxiv_url, {"search_query": f"all:{q}", "start": "0",
                                                   "max_results": str(k)},
                              source="web", retries=2, timeout=self.web.timeout_s)
        if not ex.ok:
            raise ToolError("web", f"arxiv: HTTP {ex.status}")
        try:
            root = ET.fromstring(ex.body)
        except ET.ParseError:
            raise ToolError("web", "arxiv: response is not Atom XML") from None
        out = []
        for e in root.findall("a:entry", self._NS):
            url = (e.findtext("a:id", "", self._NS) or "").strip()
            out.append(web_evidence(
                "arxiv", url, plain(e.findtext("a:title", "", self._NS)),
                plain(e.findtext("a:summary", "", self._NS)),
                (e.findtext("a:published", "", self._NS) or "")[:10] or None,
                authors=[plain(a.findtext("a:name", "", self._NS)) for a in e.findall("a:author", self._NS)],
                doi=e.findtext("arxiv:doi", None, self._NS)))
        return out


class CrossrefRetriever(_WebBase):
    engine = "crossref"

    def _search(self, q: str, k: int) -> list[Evidence]:
        params = {"query": q, "rows": str(k)}
        if self.web.mailto:
            params["mailto"] = self.web.mailto
        data = self._get_json(self.web.crossref_url, params)
        out = []
        for it in data.get("message", {}).get("items", []):
            doi = it.get("DOI")
            parts = ((it.get("issued") or {}).get("date-parts") or [[None]])[0]
            date = "-".join(f"{p:02d}" if i else str(p) for i, p in enumerate(parts) if p) or None
            title = plain((it.get("title") or [""])[0])
            venue = plain((it.get("container-title") or [""])[0])
            snippet = plain(it.get("abstract")) or (f"{venue}" if venue else "")
            out.append(web_evidence(
                "crossref", it.get("URL") or f"https://doi.org/{doi}", title, snippet, date,
                authors=[" ".join(filter(None, [a.get("given"), a.get("family")])) for a in it.get("author", [])],
                doi=doi))
        return out
