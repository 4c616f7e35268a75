"""Load benchmark for the HTTP API: throughput and latency percentiles on loopback.

    .venv/bin/python -m benchmarks.load_serving [--search-requests 300] [--answer-requests 100]
        [--concurrency 4] [--max-concurrent 4] [--duration 60] [--question "..."]... [--json]

What it does:
1. starts `biorag serve` (embedded preset, NCBI tools in replay mode from the bundled
   recording) on a free 127.0.0.1 port with a private data dir;
2. builds the PubMed index from the bundled sample through the server's own rebuild job
   (the server owns the Milvus Lite store), and reports how long that took;
3. from a second process, drives `GET /v1/search/pubmed` and then `POST /v1/answer` with
   `--concurrency` client threads, each phase bounded by a request count and `--duration`
   seconds;
4. prints, per phase: requests, successes, other statuses (503 = refused when every agent
   slot is busy), wall time, throughput (successful requests/s) and p50/p95/p99 latency.
Latencies are measured by the client (request sent -> full response read).
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"
#: generic literature queries over the sample's topic (Alzheimer's disease papers)
SEARCH_QUERIES = [
    "amyloid beta aggregation and neurotoxicity",
    "tau phosphorylation in neurodegeneration",
    "APOE genotype and risk of late-onset dementia",
    "microglia and neuroinflammation in Alzheimer disease",
    "cognitive decline biomarkers in cerebrospinal fluid",
    "acetylcholinesterase inhibitors treatment outcomes",
    "synaptic loss and memory impairment",
    "oxidative stress and mitochondrial dysfunction in neurons",
]
#: questions whose tool calls are all in the bundled recording (a replay miss would send the
#: small embedded model into slow LLM planning and measure that instead of the service)
DEFAULT_QUESTIONS = [
    "What is the official gene symbol of LMP10?",
    "What is the official gene symbol of SNAT6?",
    "Which chromosome does SNP rs1015227 locate on human genome?",
    "Which chromosome is the gene NODAL located on?",
]


# ---- client side (the second process) ------------------------------------------------------


def _drive(url: str, phase: str, n: int, concurrency: int, duration: float, questions: list[str]) -> dict:
    lock = threading.Lock()
    issued = 0
    latencies: list[float] = []
    statuses: Counter = Counter()
    stop_at = time.monotonic() + duration
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    with httpx.Client(base_url=url, timeout=max(duration, 30) + 30, limits=limits) as client:

        def worker() -> None:
            nonlocal issued
            while True:
                with lock:
                    if issued >= n or time.monotonic() >= stop_at:
                        return
                    i = issued
                    issued += 1
                t = time.perf_counter()
                try:
                    if phase == "search":
                        r = client.get("/v1/search/pubmed", params={"q": SEARCH_QUERIES[i % len(SEARCH_QUERIES)], "k": 4})
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

        t0 = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            for _ in range(concurrency):
                pool.submit(worker)
        wall = time.perf_counter() - t0
    return {"phase": phase, "wall_s": wall, "statuses": dict(statuses), "latencies_ms": latencies}


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


def _build_index(url: str, data_dir: Path) -> tuple[float, int]:
    target = data_dir / "pubmed"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(SAMPLE, target / SAMPLE.name)
    t = time.perf_counter()
    r = httpx.post(f"{url}/v1/jobs/index-rebuild", json={"inputs": [str(target)]}, timeout=30)
    if r.status_code != 202:
        raise SystemExit(f"error: rebuild job refused: {r.status_code} {r.text}")
    job_id = r.json()["id"]
    while True:
        job = httpx.get(f"{url}/v1/jobs/{job_id}", timeout=30).json()
        if job["state"] == "succeeded":
            return time.perf_counter() - t, job["result"]["rows"]
        if job["state"] == "failed":
            raise SystemExit(f"error: index build failed: {job['error']}")
        time.sleep(0.5)


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
    }


def _run_client(url: str, phase: str, n: int, args) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.load_serving", "--client", url, "--phase", phase, "--n", str(n),
           "--concurrency", str(args.concurrency), "--duration", str(args.duration)]
    for q in args.question or []:
        cmd += ["--question", q]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=args.duration + 120)
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
    ap.add_argument("--question", action="append", help="answer-phase question (repeatable; default: four recorded gene/SNP questions)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--keep", action="store_true", help="keep the temporary data dir and server log")
    # client mode (internal: the orchestrator runs itself in a second process)
    ap.add_argument("--client", help=argparse.SUPPRESS)
    ap.add_argument("--phase", choices=["search", "answer"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.client:
        res = _drive(args.client, args.phase, args.n, args.concurrency, args.duration,
                     args.question or DEFAULT_QUESTIONS)
        sys.stdout.write(json.dumps(res))
        return

    for name in ("search_requests", "answer_requests", "concurrency", "max_concurrent"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    tmp = Path(tempfile.mkdtemp(prefix="biorag-load-"))
    data_dir = tmp / "data"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp / "server.log"
    cmd = [sys.executable, "-m", "biorag.cli", "serve", "--port", str(port), "--preset", "embedded",
           "--set", f"data_dir={data_dir}", "--set", f"serve.max_concurrent={args.max_concurrent}",
           "--log-level", "warning"]
    print(f"starting the server on {url} (log: {log_path})", file=sys.stderr)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_healthy(url, proc)
        print("building the PubMed sample index through the server's rebuild job...", file=sys.stderr)
        build_s, rows = _build_index(url, data_dir)
        # warm-up: load the embedder and the model once, outside the measurements
        httpx.get(f"{url}/v1/search/pubmed", params={"q": SEARCH_QUERIES[0]}, timeout=120).raise_for_status()
        httpx.post(f"{url}/v1/answer", json={"question": (args.question or DEFAULT_QUESTIONS)[0]},
                   timeout=300).raise_for_status()
        results = []
        for phase, n in (("search", args.search_requests), ("answer", args.answer_requests)):
            print(f"phase {phase}: up to {n} requests, {args.concurrency} client threads, "
                  f"at most {args.duration:.0f}s...", file=sys.stderr)
            results.append(summarise(_run_client(url, phase, n, args)))
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    report = {"index": {"rows": rows, "build_s": round(build_s, 1)}, "concurrency": args.concurrency,
              "max_concurrent": args.max_concurrent, "phases": results}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"index: {rows} rows built through POST /v1/jobs/index-rebuild in {build_s:.1f}s")
    print(f"client threads {args.concurrency}, server agent slots {args.max_concurrent}")
    print(f"{'endpoint':<22}{'requests':>9}{'ok':>6}{'other':>14}{'wall s':>8}{'req/s':>8}"
          f"{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
    names = {"search": "GET /v1/search/pubmed", "answer": "POST /v1/answer"}
    for r in results:
        other = ",".join(f"{k}x{v}" for k, v in sorted(r["statuses"].items()) if k != "200") or "-"
        print(f"{names[r['phase']]:<22}{r['requests']:>9}{r['ok']:>6}{other:>14}{r['wall_s']:>8.1f}"
              f"{r['throughput_rps']:>8.1f}{r['p50_ms']:>9.1f}{r['p95_ms']:>9.1f}{r['p99_ms']:>9.1f}")


if __name__ == "__main__":
    main()
