"""Tables and the 22M projection from `benchmarks/index_scale.py`'s JSON figures.

    python -m benchmarks.index_scale_report benchmarks/results/2026-11-26

Projection (the arithmetic is printed): per index type, server RSS after load is fitted as
fixed + rows x bytes_per_row over the two largest sizes measured with text; the text's own
bytes per row come from the same index type measured with and without text at one size.
768 dimensions add the dimension-proportional part of a row once more: the index's bytes
per dimension (FLAT/HNSW float32: 4, plus the raw float32 copy a loaded segment keeps when
measured; IVF_SQ8: 1; IVF_PQ: m/dim) times 384.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from biorag.ml.pubmed_schema import filtered_nprobe

ROWS_22M = 22_000_000
GB = 1e9


def load(out: Path) -> list[dict]:
    figs = []
    for p in sorted(out.glob("index_scale_*_*.json")):
        if p.name.startswith(("index_scale_import_", "index_scale_base", "index_scale_client_")):
            continue
        figs.append(json.loads(p.read_text()))
    return figs


def table(figs: list[dict]) -> str:
    head = ("| index | rows | text | build s | load s | server RSS after load MB | peak during load MB | data on disk MB "
            "| search param | recall@10 unfiltered | recall@10 filtered | p50/p95 ms 1 client (unf.) "
            "| recall@10 filtered, production path | p50/p95 ms 1 client (filt.) | p50/p95 ms 4 clients (unf.) "
            "| p50/p95 ms 4 clients (filt.) "
            "| load avg (build; queries) | client peak RSS MB |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for f in sorted(figs, key=lambda f: (f["rows"], not f.get("text", True), f["index_type"])):
        if "error" in f:
            lines.append(f"| {f['index_type']} | {f['rows']:,} | {'yes' if f.get('text', True) else 'no'} | "
                         f"not built: see error | | | | | | | | | | | | | {f.get('client_peak_rss_mb')} |")
            continue
        c, c4 = f["chosen"], f["clients4"]
        key = next(k for k in c if k in ("ef", "nprobe", "search_list"))
        lines.append(
            f"| {f['index_type']} | {f['rows']:,} | {'yes' if f.get('text', True) else 'no'} | {f['build_s']} | "
            f"{f['load_s']} | {f['server_rss_after_load_mb']} | {f['server_peak_during_load_mb']} | "
            f"{f['disk_data_mb']} | {key}={c[key]} | {c['recall10_unfiltered']} | {c['recall10_filtered']} | "
            f"{c['p50_ms_1client_unfiltered']}/{c['p95_ms_1client_unfiltered']} | "
            f"{production_recall(f)} | {c['p50_ms_1client_filtered']}/{c['p95_ms_1client_filtered']} | "
            f"{c4['p50_ms_unfiltered']}/{c4['p95_ms_unfiltered']} | {c4['p50_ms_filtered']}/{c4['p95_ms_filtered']} | "
            f"{f['build_load_avg'][1][0]}; {c['load_avg'][1][0]} | {f['client_peak_rss_mb']} |")
    return "\n".join(lines)


def production_recall(f: dict, exact_rows: int = 1024) -> str:
    """Filtered recall@10 as the retriever serves it: a filter matching at most
    index.exact_filter_rows rows is scored exactly (recall 1), the rest by the index; an IVF
    sweep with per-query figures at every breadth is scored with the probe rule at the served
    nprobe (`_served_rule`)."""
    matches = f.get("expected_matches_per_query")
    rule = _served_rule(f, exact_rows)
    if rule:
        return rule
    per_q = f["chosen"].get("recall10_filtered_per_query")
    if not per_q or not matches:
        return "n/a"
    got = [1.0 if m <= exact_rows else r for r, m in zip(per_q, matches, strict=True)]
    exact = sum(m <= exact_rows for m in matches)
    return f"{sum(got) / len(got):.4f} ({exact} of {len(got)} exact)"


SERVED_NPROBE, SERVED_PROBE_ROWS = 256, 65_536  # the paper preset and index.filtered_probe_rows


def _served_rule(f: dict, exact_rows: int) -> str:
    sweep = {row["nprobe"]: row for row in f.get("sweep", []) if "ms_filtered_per_query" in row}
    matches, nlist = f.get("expected_matches_per_query"), f["build_params"].get("nlist")
    if SERVED_NPROBE not in sweep or not matches or not nlist:
        return ""
    widths = sorted(sweep)
    got = []
    for i, m in enumerate(matches):
        if m <= exact_rows:
            got.append(1.0)
            continue
        want = filtered_nprobe(SERVED_NPROBE, SERVED_PROBE_ROWS, nlist, m)
        got.append(sweep[next(w for w in widths if w >= want)]["recall10_filtered_per_query"][i])
    exact = sum(m <= exact_rows for m in matches)
    return (f"{sum(got) / len(got):.4f} ({exact} of {len(got)} exact; nprobe {SERVED_NPROBE}, "
            f"filtered_probe_rows {SERVED_PROBE_ROWS:,})")


def probe_rules(f: dict, exact_rows=(1024, 4096, 16000), probe_rows=(0, 4096, 16384, 65536)) -> str:
    """Filtered recall@10 and latency per query under a probe rule, from one IVF sweep's
    per-query figures: a filter matching at most `exact_rows` rows is scored exactly
    (recall 1; its latency is not measured here), the rest probe
    clamp(ceil(probe_rows x nlist / matches), base nprobe, nlist) lists, rounded up to a
    breadth the sweep measured (`index.filtered_probe_rows`; 0 = the base nprobe)."""
    sweep = {row["nprobe"]: row for row in f.get("sweep", []) if "ms_filtered_per_query" in row}
    matches = f.get("expected_matches_per_query")
    nlist = f["build_params"].get("nlist")
    if not sweep or not matches or not nlist:
        return ""
    widths = sorted(sweep)
    lines = [f"**{f['index_type']}, {f['rows']:,} rows, nlist {nlist}**: filtered recall@10 / mean ms / p95 ms "
             "of the index-path queries, by exact-path threshold (rows) and probe rule",
             "", "| base nprobe | probe rows | " + " | ".join(f"exact <= {t:,}" for t in exact_rows) + " |",
             "|---|---|" + "---|" * len(exact_rows)]
    for base in [w for w in widths if w >= 64]:
        for rows in probe_rows:
            cells = []
            for t in exact_rows:
                rec, ms = [], []
                for i, m in enumerate(matches):
                    if m <= t:
                        rec.append(1.0)
                        continue
                    want = filtered_nprobe(base, rows, nlist, m)
                    w = next((w for w in widths if w >= want), widths[-1])
                    rec.append(sweep[w]["recall10_filtered_per_query"][i])
                    ms.append(sweep[w]["ms_filtered_per_query"][i])
                p95 = sorted(ms)[int(0.95 * (len(ms) - 1))] if ms else 0.0
                cells.append(f"{sum(rec) / len(rec):.3f} / {sum(ms) / max(len(ms), 1):.0f} / {p95:.0f}")
            lines.append(f"| {base} | {rows:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def bytes_per_dim(f: dict) -> float:
    p = f["build_params"]
    return {"IVF_SQ8": 1.0, "IVF_PQ": p.get("m", 48) / f["dim"]}.get(f["index_type"], 4.0)


def projection(figs: list[dict]) -> str:
    ok = [f for f in figs if "error" not in f]
    out = []
    for itype in sorted({f["index_type"] for f in ok}):
        text = sorted((f for f in ok if f["index_type"] == itype and f.get("text", True)), key=lambda f: f["rows"])
        if len(text) < 2:
            continue
        a, b = text[-2], text[-1]
        per_row = (b["server_rss_after_load_mb"] - a["server_rss_after_load_mb"]) * 1e6 / (b["rows"] - a["rows"])
        fixed = b["server_rss_after_load_mb"] * 1e6 - per_row * b["rows"]
        line = [f"**{itype}**: ({b['server_rss_after_load_mb']} - {a['server_rss_after_load_mb']}) MB / "
                f"({b['rows']:,} - {a['rows']:,}) rows = {per_row:,.0f} B/row; fixed {fixed / 1e6:,.0f} MB."]
        p384 = fixed + per_row * ROWS_22M
        line.append(f"22M x 384 with text in RAM: {fixed / 1e6:,.0f} MB + 22M x {per_row:,.0f} B = {p384 / GB:.1f} GB.")
        notext = [f for f in ok if f["index_type"] == itype and not f.get("text", True)]
        if notext:
            n = notext[-1]
            same = next((f for f in text if f["rows"] == n["rows"]), None)
            if same:
                t = (same["server_rss_after_load_mb"] - n["server_rss_after_load_mb"]) * 1e6 / n["rows"]
                p_nt = p384 - t * ROWS_22M
                extra = bytes_per_dim(b) * 384
                line.append(f"Text in RAM: ({same['server_rss_after_load_mb']} - {n['server_rss_after_load_mb']}) MB / "
                            f"{n['rows']:,} rows = {t:,.0f} B/row, so 22M x 384 with text out of RAM: "
                            f"{p384 / GB:.1f} GB - 22M x {t:,.0f} B = {p_nt / GB:.1f} GB; at 768 dims add "
                            f"22M x {extra:,.0f} B ({bytes_per_dim(b):g} B/dim x 384 more dims) = "
                            f"{(p_nt + extra * ROWS_22M) / GB:.1f} GB (text out of RAM), "
                            f"{(p384 + extra * ROWS_22M) / GB:.1f} GB (text in RAM).")
        out.append(" ".join(line))
    return "\n\n".join(out)


def main(argv=None) -> None:
    out = Path((argv or sys.argv[1:])[0])
    figs = load(out)
    print(table(figs))
    print()
    print(projection(figs))
    for f in figs:
        rules = probe_rules(f) if "error" not in f else ""
        if rules:
            print()
            print(rules)


if __name__ == "__main__":
    main()
