"""One record/replay store for every tool's HTTP traffic.

Modes (``settings.tool_io.mode``):

- ``live``: plain HTTP, nothing saved;
- ``record``: live, and every successful exchange is appended to the cassette;
- ``replay``: recorded responses only; a miss raises `NotRecorded` naming the request;
- ``cache``: replay when recorded, else live and record.

Requests are matched on a *normalised key*: service, function, database, term and the
sorted ids (plus the few parameters that change what is asked, e.g. ``dbfrom``). Paging and
format knobs (retmax, retmode, sort, ...) and identity parameters (api_key, email, tool) are
not part of the key. When several recorded responses share a key (the same URL answered
differently across runs, or the same search with another retmax), the one that best fits
the request wins: the format asked for, a BLAST Put whose RID has a finished report, the
most request parameters in common, not cut short, then the most observed.

The cassette format is JSON lines, the one of the GeneGPT recording
(``url, service, function, params, response, content_type, n_observed, truncated, flags,
rid, ...``); recordings made here use the same fields. Secrets (api_key) and the contact
email never enter a recording, neither in ``params`` nor in ``url``.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from biorag.contracts.errors import ConfigError, NotRecorded, ToolError
from biorag.host.textfile import unreadable

if TYPE_CHECKING:
    import httpx

    from biorag.settings import Settings

log = logging.getLogger(__name__)

RESOURCES = Path(__file__).parents[1] / "resources"
BUNDLED_CASSETTE = RESOURCES / "ncbi_cassette_dev.jsonl"

#: never written to a recording
SECRET_PARAMS = frozenset({"api_key", "email", "mailto"})
#: not part of the match key (paging, formatting, identity)
IGNORED_PARAMS = frozenset(
    {"retmax", "retmode", "retstart", "sort", "api_key", "email", "mailto", "tool", "usehistory"}
)
#: key parts with a fixed role; everything else (minus IGNORED/RANKING) joins as "extra"
_DB_PARAMS = ("db", "database")
_TERM_PARAMS = ("term", "query")
_ID_PARAMS = ("id", "rid")
#: BLAST knobs that shape a report but not what is asked; they only rank candidates
RANKING_ONLY = frozenset(
    {"cmd", "format_type", "hitlist_size", "megablast", "program", "format_object", "alignments",
     "descriptions", "expect", "word_size", "filter"}
)
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


# ---- keys ---------------------------------------------------------------------------


def classify(url: str) -> tuple[str, str]:
    """(service, function) of a URL: eutils/esearch, blast/Put, web/gene, host/path..."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    path = parts.path.rstrip("/")
    if "/eutils/" in path or host.startswith("eutils."):
        return "eutils", path.rsplit("/", 1)[-1].removesuffix(".fcgi")
    if path.lower().endswith("blast.cgi"):
        cmd = dict(parse_qsl(parts.query)).get("CMD", "")
        return "blast", cmd
    if host == "www.ncbi.nlm.nih.gov":
        return "web", path.strip("/").split("/", 1)[0]
    return host or "local", path or "/"


def _flat(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return "" if value is None else str(value)


def normalise_params(params: Mapping[str, Any]) -> dict[str, str]:
    return {str(k).lower(): _flat(v) for k, v in params.items()}


def request_key(service: str, function: str, params: Mapping[str, Any]) -> str:
    p = normalise_params(params)
    db = next((p[k] for k in _DB_PARAMS if p.get(k)), "").strip().lower()
    term = next((p[k] for k in _TERM_PARAMS if p.get(k)), "")
    if service == "blast":
        term = re.sub(r"\s+", "", term).upper()
    else:
        term = " ".join(term.replace("+", " ").split()).lower()
    raw_ids = next((p[k] for k in _ID_PARAMS if p.get(k)), "")
    ids = ",".join(sorted(i.strip() for i in raw_ids.split(",") if i.strip()))
    fixed = set(_DB_PARAMS) | set(_TERM_PARAMS) | set(_ID_PARAMS)
    extra = sorted(
        (k, v) for k, v in p.items() if k not in fixed | IGNORED_PARAMS | RANKING_ONLY and v
    )
    parts = [service, function.lower(), db, term, ids] + [f"{k}={v}" for k, v in extra]
    return "|".join(parts)


def describe(service: str, function: str, params: Mapping[str, Any], width: int = 60) -> str:
    """One-line human name of a request: `esearch db=gene term='LMP10'`."""
    p = normalise_params(params)
    bits = [function if service in ("eutils", "blast") else f"{service} {function}"]
    for k in ("db", "database", "dbfrom", "term", "query", "id", "rid", "program"):
        if p.get(k):
            v = p[k] if len(p[k]) <= width else p[k][: width - 1] + "…"
            bits.append(f"{k}={v!r}" if k in ("term", "query") else f"{k}={v}")
    return " ".join(bits)


def strip_secrets(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if str(k).lower() not in SECRET_PARAMS}


def safe_url(url: str) -> str:
    """The URL with secret query parameters removed."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in SECRET_PARAMS]
    return parts._replace(query=urlencode(kept)).geturl()


def _cassette_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a JSONL recording, streamed; a ConfigError (one line) when
    `path` is not a readable text file."""
    fix = "give a JSONL recording (one JSON object per line)"
    try:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    yield lineno, line.strip()
    except (UnicodeDecodeError, OSError) as e:
        raise ConfigError(f"replay recording {path} {unreadable(e)}: {fix}") from None


# ---- exchanges ----------------------------------------------------------------------


@dataclass
class Exchange:
    """One request and its response, recorded or live."""

    url: str
    service: str
    function: str
    params: dict[str, Any]
    body: str
    status: int = 200
    content_type: str = ""
    n_observed: int = 1
    truncated: bool = False
    flags: list[str] = field(default_factory=list)
    rid: str | None = None
    recorded: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def key(self) -> str:
        return request_key(self.service, self.function, self.params)

    def describe(self) -> str:
        return describe(self.service, self.function, self.params)


def _blast_status(body: str) -> str | None:
    m = re.search(r"Status=(\w+)", body)
    return m.group(1).upper() if m else None


def synth_blast_put(rid: str, rtoe: int = 0) -> str:
    """The QBlastInfo block of a BLAST Put page around a stored RID (GeneGPT kept only the RID)."""
    return (
        "<!--QBlastInfoBegin\n"
        f"    RID = {rid}\n"
        f"    RTOE = {rtoe}\n"
        "QBlastInfoEnd\n-->\n"
    )


def _guess_content_type(body: str) -> str:
    s = body.lstrip()
    if s.startswith(("{", "[")):
        return "application/json"
    if s.startswith("<?xml"):
        return "text/xml"
    if s.startswith("<"):
        return "text/html"
    return "text/plain"


def _format_fits(request: dict[str, str], ex: Exchange) -> bool:
    want = request.get("retmode") or request.get("format_type", "")
    ctype = ex.content_type or _guess_content_type(ex.body)
    if want.lower() == "json":
        return "json" in ctype
    if want.lower() == "xml":
        return "xml" in ctype
    if want.lower() in ("text", "html"):
        return "json" not in ctype
    return True


# ---- rate limiting ------------------------------------------------------------------


class RateLimiter:
    """At most `rate` acquisitions per second across threads (slots spaced 1/rate apart)."""

    def __init__(self, rate: float):
        if rate <= 0:
            raise ValueError("rate must be positive")
        self.interval = 1.0 / rate
        self._next = 0.0
        self._lock = threading.Lock()

    def acquire(self) -> None:
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next)
            self._next = slot + self.interval
        delay = slot - time.monotonic()
        if delay > 0:
            time.sleep(delay)


# ---- the store ----------------------------------------------------------------------


class HttpStore:
    """Routes tool HTTP through live requests and/or a JSONL recording (see module doc)."""

    MODES = ("live", "record", "replay", "cache")

    def __init__(
        self,
        mode: str = "live",
        cassette: str | Path | None = None,
        *,
        client: httpx.Client | None = None,
        timeout: float = 30.0,
    ):
        if mode not in self.MODES:
            raise ConfigError(f"tool_io.mode must be one of {', '.join(self.MODES)}, got '{mode}'")
        self.mode = mode
        self.cassette = Path(cassette) if cassette else None
        self.timeout = timeout
        self._client = client
        self._by_key: dict[str, list[Exchange]] = {}
        self._blast_reports: dict[str, list[Exchange]] = {}
        self._write_lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.misses_log: list[str] = []
        if mode in ("replay", "cache") and self.cassette is not None:
            if self.cassette.exists():
                self.load(self.cassette)
            elif mode == "replay":
                raise ConfigError(
                    f"replay recording {self.cassette} does not exist: record one with "
                    "--set tool_io.mode=record, or point tool_io.cassette at a JSONL file"
                )
        if mode in ("record", "cache") and self.cassette is None:
            raise ConfigError(f"tool_io.mode={mode} needs a cassette file to write to")

    # -- loading ----------------------------------------------------------------------
    def load(self, path: Path) -> int:
        """Import a JSONL cassette; identical (key, response) pairs merge their counts."""
        n = 0
        seen: dict[tuple[str, str], Exchange] = {}
        for ex in self._by_key.values():
            for e in ex:
                seen[(e.key, e.body)] = e
        for lineno, line in _cassette_lines(path):
            try:
                row = json.loads(line)
                ex = self._from_row(row)
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as e:
                raise ConfigError(f"replay recording {path}:{lineno}: not a cassette line ({e})") from None
            prior = seen.get((ex.key, ex.body))
            if prior is not None:
                prior.n_observed += ex.n_observed
                continue
            seen[(ex.key, ex.body)] = ex
            self._add(ex)
            n += 1
        log.info("loaded %d recorded exchanges from %s", n, path)
        return n

    @staticmethod
    def _from_row(row: dict[str, Any]) -> Exchange:
        url = row["url"]
        service, function = row.get("service"), row.get("function")
        if not service or not function:
            service, function = classify(url)
        params = row.get("params")
        if params is None:
            params = dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))
        body = row.get("response", "")
        return Exchange(
            url=url,
            service=service,
            function=function,
            params=params,
            body=body,
            status=int(row.get("status", 200)),
            content_type=row.get("content_type") or _guess_content_type(body),
            n_observed=int(row.get("n_observed", 1)),
            truncated=bool(row.get("truncated", False)),
            flags=list(row.get("flags", [])),
            rid=row.get("rid"),
            recorded=True,
        )

    def _add(self, ex: Exchange) -> None:
        self._by_key.setdefault(ex.key, []).append(ex)
        if ex.service == "blast" and ex.function.lower() == "get":
            rid = normalise_params(ex.params).get("rid", "")
            self._blast_reports.setdefault(rid, []).append(ex)

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_key.values())

    # -- lookup -----------------------------------------------------------------------
    def _put_rid(self, ex: Exchange) -> str:
        if ex.rid is not None:
            return ex.rid
        m = re.search(r"RID\s*=\s*(\S+)", ex.body)
        return m.group(1) if m else ex.body.strip()

    def _report_ready(self, rid: str) -> int:
        """2: a finished, complete report is recorded for this RID; 1: finished but cut; 0: none."""
        best = 0
        for ex in self._blast_reports.get(rid, []):
            if _blast_status(ex.body) in ("READY", None) and ex.body.strip():
                best = max(best, 1 if ex.truncated else 2)
        return best

    def _rank(self, request: dict[str, str], ex: Exchange) -> tuple:
        recorded = normalise_params(ex.params)
        agreement = sum(1 for k, v in request.items() if recorded.get(k) == v)
        usable = 1
        if ex.service == "blast" and ex.function.lower() == "put":
            usable = self._report_ready(self._put_rid(ex))
        elif ex.service == "blast" and ex.function.lower() == "get":
            usable = {"READY": 2, None: 1, "WAITING": 0, "UNKNOWN": 0}.get(_blast_status(ex.body), 0)
        return (_format_fits(request, ex), usable, agreement, not ex.truncated, ex.n_observed)

    def lookup(self, service: str, function: str, params: Mapping[str, Any]) -> Exchange | None:
        candidates = self._by_key.get(request_key(service, function, params))
        if not candidates:
            return None
        request = normalise_params(strip_secrets(params))
        best = max(candidates, key=lambda ex: self._rank(request, ex))
        if best.service == "blast" and best.function.lower() == "put" and "QBlastInfo" not in best.body:
            rid = self._put_rid(best)
            return Exchange(**{**best.__dict__, "body": synth_blast_put(rid), "rid": rid})
        return best

    # -- the one entry point ----------------------------------------------------------
    def fetch(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        *,
        source: str,
        method: str = "GET",
        data: Mapping[str, Any] | None = None,
        retries: int = 0,
        backoff_s: float = 1.0,
        limiter: RateLimiter | None = None,
        timeout: float | None = None,
        service: str | None = None,
        function: str | None = None,
    ) -> Exchange:
        """Answer one request from the recording and/or the network, per the mode.

        `params` go in the query string, `data` in a form body (POST); both count for the
        key. `service`/`function` override the URL-derived ones (e.g. for non-HTTP tools)."""
        params = dict(params or {})
        all_params = {**params, **(data or {})}
        svc, fn = classify(url)
        if svc == "blast" and not fn:
            fn = str(all_params.get("CMD", ""))
        svc, fn = service or svc, function or fn
        hit = self._replayed(svc, fn, all_params, source)
        if hit is not None:
            return hit
        ex = self._live(url, params, data, method, source, retries, backoff_s, limiter, timeout)
        ex.service, ex.function = svc, fn
        if self.mode in ("record", "cache") and ex.ok:
            self.record(ex)
        return ex

    def _replayed(self, svc: str, fn: str, params: Mapping[str, Any], source: str) -> Exchange | None:
        """The recorded answer (replay/cache modes); a replay miss raises NotRecorded."""
        if self.mode not in ("replay", "cache"):
            return None
        hit = self.lookup(svc, fn, params)
        if hit is not None:
            self.hits += 1
            return hit
        if self.mode == "replay":
            self.misses += 1
            what = describe(svc, fn, params)
            self.misses_log.append(what)
            where = self.cassette.name if self.cassette else "the recording"
            raise NotRecorded(source, f"not recorded: {what} (replay from {where})")
        return None

    def call(self, service: str, function: str, params: Mapping[str, Any], live: Callable[[], str],
             *, source: str) -> Exchange:
        """Record/replay for a tool that does its own I/O (e.g. the ddgs library): `live()`
        returns the response body as text (JSON for structured results)."""
        hit = self._replayed(service, function, params, source)
        if hit is not None:
            return hit
        body = live()
        ex = Exchange(url=f"{service}://{function}?" + urlencode(strip_secrets(params)),
                      service=service, function=function, params=strip_secrets(params), body=body,
                      content_type=_guess_content_type(body))
        if self.mode in ("record", "cache"):
            self.record(ex)
        return ex

    def record(self, ex: Exchange) -> None:
        assert self.cassette is not None
        row = {
            "url": safe_url(ex.url),
            "service": ex.service,
            "function": ex.function,
            "params": strip_secrets(ex.params),
            "response": ex.body,
            "status": ex.status,
            "content_type": ex.content_type or _guess_content_type(ex.body),
            "n_observed": 1,
            "truncated": False,
            "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if ex.service == "blast" and ex.function.lower() == "put":
            m = re.search(r"RID\s*=\s*(\S+)", ex.body)
            row["rid"] = m.group(1) if m else ""
        line = json.dumps(row, ensure_ascii=False)
        with self._write_lock:
            self.cassette.parent.mkdir(parents=True, exist_ok=True)
            with open(self.cassette, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
            rec = Exchange(**{**ex.__dict__, "params": strip_secrets(ex.params), "recorded": True})
            self._add(rec)

    # -- live HTTP --------------------------------------------------------------------
    def client(self) -> httpx.Client:
        if self._client is None:
            import httpx

            self._client = httpx.Client(
                timeout=self.timeout,
                follow_redirects=True,
                headers={"User-Agent": "biorag (https://github.com/biorag)"},
            )
        return self._client

    def _live(self, url, params, data, method, source, retries, backoff_s, limiter, timeout) -> Exchange:
        import httpx

        what = describe(*classify(url), {**params, **(data or {})})
        last = ""
        for attempt in range(retries + 1):
            if attempt:
                time.sleep(backoff_s * (2 ** (attempt - 1)) * (1 + 0.1 * random.random()))
            if limiter is not None:
                limiter.acquire()
            try:
                resp = self.client().request(
                    method, url, params=params or None, data=data or None,
                    timeout=timeout or self.timeout,
                )
            except httpx.TimeoutException:
                last = f"timed out after {timeout or self.timeout:g}s"
                continue
            except httpx.TransportError as e:
                last = f"network error: {e.__class__.__name__}: {e}"
                continue
            if resp.status_code in RETRY_STATUS:
                last = f"HTTP {resp.status_code}"
                wait = resp.headers.get("Retry-After", "")
                if wait.isdigit() and attempt < retries:
                    time.sleep(min(float(wait), 30.0))
                continue
            return Exchange(
                url=safe_url(str(resp.request.url)),
                service="",
                function="",
                params=strip_secrets({**params, **(data or {})}),
                body=resp.text,
                status=resp.status_code,
                content_type=resp.headers.get("content-type", ""),
            )
        raise ToolError(source, f"{what} failed after {retries + 1} attempt(s): {last}")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


# ---- one store per settings ---------------------------------------------------------

_STORES: dict[tuple[str, str], HttpStore] = {}
_STORES_LOCK = threading.Lock()


def cassette_path(settings: Settings) -> Path | None:
    io = settings.tool_io
    if io.cassette:
        return Path(io.cassette).expanduser()
    if io.mode == "replay":
        return BUNDLED_CASSETTE
    if io.mode in ("record", "cache"):
        return Path(settings.data_dir) / "recordings" / "tool_io.jsonl"
    return None


def store_for(settings: Settings) -> HttpStore:
    """The store shared by every tool built from these settings (one per mode + file)."""
    path = cassette_path(settings)
    key = (settings.tool_io.mode, str(path))
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = HttpStore(settings.tool_io.mode, path, timeout=settings.ncbi.timeout_s)
            _STORES[key] = store
        return store
