"""Load benchmark: the PubMed retriever in process against the same searches over HTTP.

    .venv/bin/python -m benchmarks.load_serving [--search-requests 300] [--answer-requests 100]
        [--concurrency 4] [--max-concurrent 4] [--duration 60] [--question "..."]... [--json]

What it does, in one run on one index:
1. builds the PubMed index from the bundled sample (`biorag index build`, a subprocess, into
   a private data dir) and reports how long that took;
2. raw: in a second process, opens the retriever once (as the CLI and the agent do) and runs
   the search queries one at a time (single thread), then with `--concurrency` threads;
3. API: starts `biorag serve` (embedded preset, NCBI tools in replay mode from the bundled
   recording) on that data dir and a free 127.0.0.1 port; from a third process drives
   `GET /v1/search/pubmed`, then `POST /v1/answer`, with `--concurrency` client threads,
   each phase bounded by a request count and `--duration` seconds;
4. prints, per phase: requests, successes, other statuses (503 = refused when every agent
   slot is busy), wall time, throughput (successful requests/s) and p50/p95/p99 latency,
   for the HTTP phases the server's and the load client's CPU per request (both run on the
   cores the phase measures; the raw phases pay for neither), then the concurrency ratios: API search throughput / raw single-thread throughput (target
   >= 1.5) and API p99 / raw p99 at the same concurrency (target <= 2).
Search queries are titles and abstract sentences of the bundled sample records, distinct
within and across phases, so the query-embedding cache flatters no phase (an earlier version
cycled through 140 titles, and the raw phases hit the cache). Latencies are measured by the
caller (request sent -> full response read; for raw, call -> hits returned).
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from biorag.understanding.search_request import SearchRequest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"
TITLES = ROOT / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"


def search_queries(part: int, parts: int = 3) -> list[str]:
    """Distinct literature queries on the sample's topic: the sample records' titles and
    abstract sentences, dealt into `parts` disjoint sets (raw 1 thread, raw N threads, API),
    so no phase meets a query another phase, or itself, already put in the embedding cache."""
    import gzip
    import re

    texts: list[str] = []
    with gzip.open(TITLES, "rt") as f:
        for line in f:
            rec = json.loads(line)
            texts.append(rec.get("title", ""))
            texts += re.split(r"(?<=[.!?])\s+", rec.get("abstract", ""))
    distinct = list(dict.fromkeys(t.strip() for t in texts if len(t.split()) >= 5))
    return distinct[part::parts]


#: questions whose tool calls are all in the bundled recording (a replay miss would send the
#: small embedded model into slow LLM planning and measure that instead of the service)
DEFAULT_QUESTIONS = [
    "What is the official gene symbol of LMP10?",
    "What is the official gene symbol of SNAT6?",
    "Which chromosome does SNP rs1015227 locate on human genome?",
    "Which chromosome is the gene NODAL located on?",
]


# ---- client side (the second process) ------------------------------------------------------


def _closed_loop(n: int, threads: int, duration: float, call: Callable[[int], None]) -> float:
    """Closed-loop load: `threads` workers each take the next index i and run `call(i)`,
    until n calls were issued or `duration` seconds passed. Returns the wall time."""
    lock = threading.Lock()
    issued = itertools.count()
    stop_at = time.monotonic() + duration

    def worker() -> None:
        while True:
            with lock:
                i = next(issued)
            if i >= n or time.monotonic() >= stop_at:
                return
            call(i)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(threads):
            pool.submit(worker)
    return time.perf_counter() - t0


def _drive(url: str, phase: str, n: int, concurrency: int, duration: float, questions: list[str]) -> dict:
    queries = search_queries(2)
    lock = threading.Lock()
    latencies: list[float] = []
    inside: list[float] = []
    statuses: Counter = Counter()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    with httpx.Client(base_url=url, timeout=max(duration, 30) + 30, limits=limits) as client:

        def call(i: int) -> None:
            t = time.perf_counter()
            try:
                if phase == "search":
                    r = client.get("/v1/search/pubmed", params={"q": queries[i % len(queries)], "k": 4})
                else:
                    r = client.post("/v1/answer", json={"question": questions[i % len(questions)]})
                status = str(r.status_code)
            except httpx.HTTPError as e:
                status = type(e).__name__
            ms = (time.perf_counter() - t) * 1000
            with lock:
                statuses[status] += 1
                if status == "200":
                    latencies.append(ms)
                    if phase == "search":  # the route's own time: the rest is HTTP and scheduling
                        inside.append(r.json()["ms"])

        cpu0 = time.process_time()
        wall = _closed_loop(n, concurrency, duration, call)
        client_cpu_s = time.process_time() - cpu0
    return {"phase": phase, "wall_s": wall, "statuses": dict(statuses), "latencies_ms": latencies,
            "route_ms": inside, "client_cpu_s": client_cpu_s}


def _raw(data_dir: str, n: int, concurrency: int, duration: float) -> dict:
    """The retriever in this process, opened once: n searches one at a time, then n with
    `concurrency` threads, each phase on its own distinct queries."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from biorag.settings import load_settings
    from retrievers.pubmed.retriever import PubMedRetriever

    settings = load_settings("embedded", sets=[f"data_dir={data_dir}"])
    retriever = PubMedRetriever.from_settings(settings)
    retriever.search(SearchRequest.of("warm-up: amyloid", 4))  # open the store and load the model outside the timings
    out = []
    for label, threads, qs in (("raw 1 thread", 1, search_queries(0)), (f"raw {concurrency} threads", concurrency, search_queries(1))):
        lat: list[float] = []

        def call(i: int, qs=qs, lat=lat) -> None:
            t = time.perf_counter()
            retriever.search(SearchRequest.of(qs[i % len(qs)], 4))
            lat.append((time.perf_counter() - t) * 1000)  # list.append is atomic

        wall = _closed_loop(n, threads, duration, call)
        out.append({"phase": label, "wall_s": wall, "statuses": {"200": len(lat)}, "latencies_ms": lat})
    stats = retriever.batcher.stats
    retriever.close()
    import torch

    return {"phases": out, "batches": stats.batches, "batched_items": stats.items, "largest_batch": stats.largest,
            "torch_threads": torch.get_num_threads()}


# ---- orchestration --------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"error: the server exited with code {proc.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit(f"error: the server did not answer /healthz within {timeout:.0f}s")


def _build_index(data_dir: Path) -> tuple[float, int]:
    """`biorag index build` over the sample, in its own process (the Lite file is free after)."""
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "cli.main", "index", "build", "--input", str(SAMPLE),
                          "--set", f"data_dir={data_dir}", "--json"], cwd=ROOT, capture_output=True, text=True,
                         timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"error: index build failed:\n{out.stderr[-2000:]}")
    return time.perf_counter() - t, int(json.loads(out.stdout)["rows"])


def _percentile(sorted_ms: list[float], p: float) -> float:
    if not sorted_ms:
        return float("nan")
    k = max(0, min(len(sorted_ms) - 1, int(round(p / 100 * len(sorted_ms) + 0.5)) - 1))
    return sorted_ms[k]


def summarise(res: dict) -> dict:
    lat = sorted(res["latencies_ms"])
    ok = len(lat)
    return {
        "phase": res["phase"], "requests": sum(res["statuses"].values()), "ok": ok,
        "statuses": res["statuses"], "wall_s": round(res["wall_s"], 2),
        "throughput_rps": round(ok / res["wall_s"], 1) if res["wall_s"] else 0.0,
        "p50_ms": round(_percentile(lat, 50), 1), "p95_ms": round(_percentile(lat, 95), 1),
        "p99_ms": round(_percentile(lat, 99), 1),
        **({"route_p50_ms": round(_percentile(sorted(res["route_ms"]), 50), 1),
            "route_p99_ms": round(_percentile(sorted(res["route_ms"]), 99), 1)} if res.get("route_ms") else {}),
    }


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a running process (Linux /proc; None elsewhere)."""
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _run_client(url: str, phase: str, n: int, args) -> dict:
    """Run this module in another process as an HTTP client (`url`) or the raw retriever
    (phase "raw", `url` = the data dir); its JSON result."""
    flag = "--raw" if phase == "raw" else "--client"
    cmd = [sys.executable, "-m", "benchmarks.load_serving", flag, url, "--phase", phase, "--n", str(n),
           "--concurrency", str(args.concurrency), "--duration", str(args.duration)]
    for q in args.question or []:
        cmd += ["--question", q]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=3 * args.duration + 300)
    if out.returncode != 0:
        raise SystemExit(f"error: the load client failed:\n{out.stderr}")
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--search-requests", type=int, default=300, help="requests in the search phase (default 300)")
    ap.add_argument("--answer-requests", type=int, default=100, help="requests in the answer phase (default 100)")
    ap.add_argument("--concurrency", type=int, default=4, help="client threads (default 4)")
    ap.add_argument("--max-concurrent", type=int, default=4, help="server agent slots, serve.max_concurrent (default 4)")
    ap.add_argument("--duration", type=float, default=60, help="time cap per phase, seconds (default 60)")
    ap.add_argument("--server-torch-threads", type=int, default=0,
                    help="the server's serve.torch_threads (default 0: auto, half the cores); the raw phases keep "
                    "torch's own default (every core), as the CLI and the agent do")
    ap.add_argument("--question", action="append", help="answer-phase question (repeatable; default: four recorded gene/SNP questions)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--keep", action="store_true", help="keep the temporary data dir and server log")
    # client mode (internal: the orchestrator runs itself in a second process)
    ap.add_argument("--client", help=argparse.SUPPRESS)
    ap.add_argument("--raw", help=argparse.SUPPRESS)
    ap.add_argument("--phase", choices=["search", "answer", "raw"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.raw:
        sys.stdout.write(json.dumps(_raw(args.raw, args.n, args.concurrency, args.duration)))
        return
    if args.client:
        res = _drive(args.client, args.phase, args.n, args.concurrency, args.duration,
                     args.question or DEFAULT_QUESTIONS)
        sys.stdout.write(json.dumps(res))
        return

    for name in ("search_requests", "concurrency", "max_concurrent"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    tmp = Path(tempfile.mkdtemp(prefix="biorag-load-"))
    data_dir = tmp / "data"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp / "server.log"
    cmd = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--preset", "embedded",
           "--set", f"data_dir={data_dir}", "--set", f"serve.max_concurrent={args.max_concurrent}",
           "--set", f"serve.torch_threads={args.server_torch_threads}", "--log-level", "warning"]
    results = []
    proc = None
    server_threads = None
    try:
        print("building the PubMed sample index (biorag index build)...", file=sys.stderr)
        build_s, rows = _build_index(data_dir)
        print(f"raw: the retriever in process, 1 then {args.concurrency} threads...", file=sys.stderr)
        raw = _run_client(str(data_dir), "raw", args.search_requests, args)
        results += [summarise(r) for r in raw["phases"]]
        print(f"starting the server on {url} (log: {log_path})", file=sys.stderr)
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        _wait_healthy(url, proc)
        server_threads = _server_threads(log_path)  # the log goes with the temporary dir
        # warm-up: open the store, load the embedder (and the model) once, outside the measurements
        httpx.get(f"{url}/v1/search/pubmed", params={"q": "warm-up: amyloid"}, timeout=300).raise_for_status()
        phases = [("search", args.search_requests)]
        if args.answer_requests:
            httpx.post(f"{url}/v1/answer", json={"question": (args.question or DEFAULT_QUESTIONS)[0]},
                       timeout=300).raise_for_status()
            phases.append(("answer", args.answer_requests))
        for phase, n in phases:
            print(f"phase {phase}: up to {n} requests, {args.concurrency} client threads, "
                  f"at most {args.duration:.0f}s...", file=sys.stderr)
            # the server's and the load client's CPU per request: both share the machine's cores
            # with the phase they measure (the raw phases have no client and no HTTP)
            cpu0 = _cpu_seconds(proc.pid)
            res = _run_client(url, phase, n, args)
            cpu1 = _cpu_seconds(proc.pid)
            row = summarise(res)
            if row["ok"]:
                if cpu0 is not None and cpu1 is not None:
                    row["server_cpu_ms_per_request"] = round((cpu1 - cpu0) * 1000 / row["ok"], 2)
                row["client_cpu_ms_per_request"] = round(res["client_cpu_s"] * 1000 / row["ok"], 2)
            results.append(row)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    by = {r["phase"]: r for r in results}
    single, api, raw_c = by["raw 1 thread"], by["search"], by[f"raw {args.concurrency} threads"]
    ratios = {
        "api_throughput_over_raw_single_thread": _ratio(api["throughput_rps"], single["throughput_rps"]),
        f"api_p99_over_raw_p99_at_{args.concurrency}": _ratio(api["p99_ms"], raw_c["p99_ms"]),
    }
    threads = {"raw": raw.get("torch_threads"), "server": server_threads}
    report = {"index": {"rows": rows, "build_s": round(build_s, 1)}, "concurrency": args.concurrency,
              "torch_threads": threads,
              "max_concurrent": args.max_concurrent, "phases": results, "ratios": ratios,
              "raw_batches": {k: raw[k] for k in ("batches", "batched_items", "largest_batch")}}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"index: {rows} rows built by `biorag index build` in {build_s:.1f}s")
    print(f"client threads {args.concurrency}, server agent slots {args.max_concurrent}, "
          f"torch threads: raw {threads['raw']}, server {threads['server']}")
    print(f"{'path':<22}{'requests':>9}{'ok':>6}{'other':>14}{'wall s':>8}{'req/s':>8}"
          f"{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    names = {"search": "GET /v1/search/pubmed", "answer": "POST /v1/answer"}
    for r in results:
        other = ",".join(f"{k}x{v}" for k, v in sorted(r["statuses"].items()) if k != "200") or "-"
        print(f"{names.get(r['phase'], r['phase']):<22}{r['requests']:>9}{r['ok']:>6}{other:>14}{r['wall_s']:>8.1f}"
              f"{r['throughput_rps']:>8.1f}{r['p50_ms']:>9.1f}{r['p95_ms']:>9.1f}{r['p99_ms']:>9.1f}")
    for r in results:
        if "client_cpu_ms_per_request" in r:
            print(f"{names.get(r['phase'], r['phase'])}: CPU per request, server "
                  f"{r.get('server_cpu_ms_per_request', '?')} ms, load client {r['client_cpu_ms_per_request']} ms")
    for k, v in ratios.items():
        print(f"{k}: {v}")


def _server_threads(log_path: Path) -> int | None:
    """torch's thread count in the server, from its startup line ("torch threads N of M cores")."""
    import re

    m = re.search(r"torch threads (\d+) of", log_path.read_text(errors="replace")) if log_path.exists() else None
    return int(m.group(1)) if m else None


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 2) if b else None


if __name__ == "__main__":
    main()
