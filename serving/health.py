"""Readiness: can this server answer right now? Checks the LLM, the vector store and each
enabled tool, concurrently, each with a time limit, and reports every result."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from application.engine import Engine
from biorag.understanding.search_request import SearchRequest


def _probe(fn: Callable[[], str | None]) -> dict:
    t = time.perf_counter()
    try:
        detail = fn() or "ok"
        ok = True
    except Exception as e:  # any failure means "not ready"; say why
        detail, ok = (str(e) or type(e).__name__), False
    return {"ok": ok, "detail": detail, "ms": round((time.perf_counter() - t) * 1000, 1)}


def _check_llm(engine: Engine) -> str:
    llm = engine.llm()
    llm.check()
    return llm.identity


_NCBI_TOOLS = {"gene", "dbsnp", "omim", "blast"}


def _check_ncbi(engine: Engine, name: str) -> str:
    """Replay: the recording is loaded. Live/record/cache: the NCBI endpoint answers HTTP."""
    s = engine.settings
    if s.tool_io.mode == "replay":
        from retrievers.common.http_store import cassette_path, store_for

        n = len(store_for(s))
        if n == 0:
            raise RuntimeError(f"replay mode but the recording {cassette_path(s)} holds no exchanges")
        return f"replay: {n} recorded exchanges"
    import httpx

    url = s.ncbi.blast_url if name == "blast" else f"{s.ncbi.eutils_url.rstrip('/')}/einfo.fcgi"
    try:
        r = httpx.get(url, params={"retmode": "json"} if name != "blast" else None, timeout=5.0)
    except httpx.HTTPError as e:
        raise RuntimeError(f"{url} is not reachable: {type(e).__name__}") from None
    if r.status_code >= 500:
        raise RuntimeError(f"{url} answered HTTP {r.status_code}")
    return f"{s.tool_io.mode}: {url} answered HTTP {r.status_code}"


def _check_source(engine: Engine, name: str) -> str:
    r = engine.retriever(name)
    check = getattr(r, "check", None)
    if callable(check):
        return check() or "ok"
    if name == "pubmed":  # the vector store: a real one-hit search is the honest probe
        r.search(SearchRequest.of("health check", 1))
        return "search ok"
    if name in _NCBI_TOOLS and engine.settings.sources[name].backend != "local":
        return _check_ncbi(engine, name)
    return "built (no probe for this source)"


def readiness(engine: Engine, timeout_s: float = 10.0) -> dict:
    settings = engine.settings
    probes: dict[str, Callable[[], str | None]] = {"llm": lambda: _check_llm(engine)}
    for name in settings.enabled_sources():
        label = "vector_store" if name == "pubmed" else f"tool:{name}"
        probes[label] = lambda n=name: _check_source(engine, n)
    pool = ThreadPoolExecutor(max_workers=len(probes), thread_name_prefix="biorag-readyz")
    futures = {label: pool.submit(_probe, fn) for label, fn in probes.items()}
    deadline = time.monotonic() + timeout_s
    checks: dict[str, dict] = {}
    for label, fut in futures.items():
        try:
            checks[label] = fut.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            checks[label] = {"ok": False, "detail": f"no answer within {timeout_s:.0f}s", "ms": timeout_s * 1000}
    pool.shutdown(wait=False)
    return {"ready": all(c["ok"] for c in checks.values()), "checks": checks}
