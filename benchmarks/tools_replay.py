"""Replay hit rate and latency of the NCBI tools over the GeneTuring/GeneHop dev questions.

    .venv/bin/python -m benchmarks.tools_replay \
        --geneturing ../shared/data/geneturing/geneturing_dev.json \
        --genehop ../shared/data/geneturing/genehop_dev.json [--cassette FILE] [--json]

Each question is routed by its shape (the same generic patterns a rules planner uses: an
rsID -> dbsnp, a DNA sequence -> blast, "genes related to <disease>" -> omim, otherwise the
gene identifier -> gene), the tool is called in replay mode, and two-hop tasks follow the
evidence (SNP -> its Gene ID -> gene). Prints, per tool: calls, replay hits, misses, other
tool errors, mean/median latency; per task: how often the gold answer string appears in
the evidence returned (an upper bound for answer extraction, not an accuracy).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections import defaultdict
from pathlib import Path

from application.catalog import retriever_class
from biorag.contracts.errors import NotRecorded, ToolError
from biorag.settings import load_settings
from biorag.understanding.search_request import SearchRequest
from retrievers.dbsnp.record import VariantRecord
from retrievers.gene.record import GeneRecord

SEQ = re.compile(r"[ACGTN]{20,}")
RS = re.compile(r"\brs\d+\b")
#: GeneTuring's common names -> the binomials BLAST descriptions carry
SPECIES = {"human": "Homo sapiens", "mouse": "Mus musculus", "rat": "Rattus norvegicus",
           "chicken": "Gallus gallus", "zebrafish": "Danio rerio", "worm": "Caenorhabditis elegans",
           "yeast": "Saccharomyces cerevisiae"}


def route(question: str) -> tuple[str, str] | None:
    if m := RS.search(question):
        return "dbsnp", m.group(0)
    if m := SEQ.search(question):
        return "blast", m.group(0)
    if m := re.search(r"related to (.+?)(?:\?|\.|$)", question):
        return "omim", m.group(1).strip()
    for pat in (r"gene symbol of (\S+?)\?", r"chromosome is (\S+) gene", r"Convert (\S+) to",
                r"^Is (\S+) a protein-coding"):
        if m := re.search(pat, question):
            return "gene", m.group(1)
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--geneturing", type=Path, required=True)
    ap.add_argument("--genehop", type=Path)
    ap.add_argument("--cassette", help="recording to replay (default: the bundled dev cassette)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--verbose", "-v", action="store_true", help="show questions whose gold is not in the evidence")
    args = ap.parse_args()

    tool_io = {"mode": "replay"}
    if args.cassette:
        tool_io["cassette"] = args.cassette
    settings = load_settings("embedded", overrides={"tool_io": tool_io})
    tools = {name: retriever_class(name, "eutils" if name == "gene" else None).from_settings(settings)
             for name in ("gene", "dbsnp", "omim", "blast")}

    questions: list[tuple[str, str, str, object]] = []
    for bench, path in (("geneturing", args.geneturing), ("genehop", args.genehop)):
        if path:
            for task, qs in json.loads(path.read_text()).items():
                questions.extend((bench, task, q, gold) for q, gold in qs.items())

    stats = {t: {"calls": 0, "hits": 0, "not_recorded": 0, "errors": 0, "ms": []} for t in tools}
    misses: list[str] = []
    gold_found: dict[str, list[int]] = defaultdict(list)

    def call(tool: str, query: str, k: int = 10):
        s = stats[tool]
        s["calls"] += 1
        t0 = time.perf_counter()
        try:
            hits = tools[tool].search(SearchRequest.of(query, k))
            s["hits"] += 1
            return hits
        except NotRecorded as e:
            s["not_recorded"] += 1
            misses.append(str(e))
        except ToolError as e:
            s["errors"] += 1
            misses.append(f"(tool error) {e}")
        finally:
            s["ms"].append((time.perf_counter() - t0) * 1000)
        return []

    for bench, task, q, gold in questions:
        r = route(q)
        if r is None:
            continue
        tool, query = r
        evidence = call(tool, query)
        if tool == "dbsnp" and "function" in q:  # two hops: the SNP's gene, by Gene ID
            for _, variant in VariantRecord.all_of(evidence[:1]):
                for gid in variant.gene_ids[:1]:
                    evidence = evidence + call("gene", gid, 1)
        blob = " ".join(e.text + " " + json.dumps(e.metadata) for e in evidence)
        golds = gold if isinstance(gold, list) else [g.strip() for g in str(gold).split(",")]
        golds = [SPECIES.get(g, g.removeprefix("chr").split(":")[0]) for g in golds]
        if task == "Protein-coding genes":  # TRUE/NA: does the first hit say protein-coding?
            gene = GeneRecord.of(evidence[0]) if evidence else None
            first = gene.gene_type if gene is not None else None
            found = (first == "protein-coding") == (gold == "TRUE") and first is not None
        else:
            found = all(g in blob for g in golds)
        gold_found[f"{bench}/{task}"].append(int(found))
        if args.verbose and not found:
            print(f"[gold not in evidence] {task}: {query[:50]!r} gold={gold!r} "
                  f"top={[e.title[:40] for e in evidence[:3]]}")

    total_calls = sum(s["calls"] for s in stats.values())
    total_hits = sum(s["hits"] + s["errors"] for s in stats.values())  # answered from the recording
    report = {
        "replay_hit_rate": round(total_hits / total_calls, 3) if total_calls else None,
        "calls": total_calls,
        "tools": {
            t: {
                "calls": s["calls"], "ok": s["hits"], "not_recorded": s["not_recorded"],
                "tool_errors": s["errors"],
                "mean_ms": round(statistics.mean(s["ms"]), 2) if s["ms"] else None,
                "median_ms": round(statistics.median(s["ms"]), 2) if s["ms"] else None,
            }
            for t, s in stats.items()
        },
        "gold_in_evidence": {k: f"{sum(v)}/{len(v)}" for k, v in gold_found.items()},
        "misses": misses,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"replay hit rate: {report['replay_hit_rate']} over {total_calls} tool calls "
          "(hit = answered from the recording, incl. recorded NCBI errors)")
    print(f"{'tool':8s} {'calls':>5s} {'ok':>4s} {'miss':>5s} {'err':>4s} {'mean ms':>8s} {'median ms':>9s}")
    for t, s in report["tools"].items():
        print(f"{t:8s} {s['calls']:5d} {s['ok']:4d} {s['not_recorded']:5d} {s['tool_errors']:4d} "
              f"{s['mean_ms'] or 0:8.2f} {s['median_ms'] or 0:9.2f}")
    print("gold answer present in the returned evidence:")
    for k, v in report["gold_in_evidence"].items():
        print(f"  {k:45s} {v}")
    if misses:
        print("misses / tool errors:")
        for m in misses:
            print("  " + m[:160])


if __name__ == "__main__":
    main()
