"""Peak memory of `biorag index build` is flat in corpus size: the same records as 1 file
and as N files.

    python -m benchmarks.build_memory                       # the bundled MEDLINE update file, 1 vs 10 files
    python -m benchmarks.build_memory --source FILE.xml.gz --parts 10 --to-shards

Each configuration runs in a fresh process (a real build into its own Milvus Lite store, or
the bulk path's embed stage with --to-shards) and reports its own peak RSS and the largest
peak RSS among its reader processes (`ru_maxrss`), with the records and time. Prints
figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SOURCE = ROOT / "indexing" / "resources" / "pubmed_sample" / "medline16n0902.xml.gz"

CHILD = """
import json, resource, sys, time
from pathlib import Path
from biorag.settings import load_settings
data, mode, files = sys.argv[1], sys.argv[2], sys.argv[3:]
settings = load_settings(overrides={"data_dir": data, "index": {"raw_rate_sample": 0}})
t0 = time.perf_counter()
if mode == "shards":
    from indexing.shards import embed_to_shards
    r = embed_to_shards(settings, files, Path(data) / "shards", progress=False)
    kept, rows = r.kept, r.rows
else:
    from indexing.build import build_index
    r = build_index(settings, files, progress=False)
    kept, rows = r.kept, r.rows
print(json.dumps({"kept": kept, "rows": rows, "seconds": time.perf_counter() - t0,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "reader_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def measure(files: list[Path], mode: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="biorag-mem-") as data:
        env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
        out = subprocess.run([sys.executable, "-c", CHILD, data, mode, *map(str, files)], env=env,
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"build failed: {out.stderr[-2000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="a real PubMed XML file to split")
    p.add_argument("--parts", type=int, default=10)
    p.add_argument("--to-shards", action="store_true", help="measure the bulk path's embed stage instead of a build")
    a = p.parse_args()
    from indexing.split import split_pubmed_xml

    mode = "shards" if a.to_shards else "build"
    print(f"{mode}: {a.source.name} as 1 file and as {a.parts} files ({os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f})")
    with tempfile.TemporaryDirectory(prefix="biorag-parts-") as tmp:
        parts = split_pubmed_xml(a.source, Path(tmp), a.parts)
        for label, files in (("1 file", [a.source]), (f"{a.parts} files", parts)):
            t0 = time.perf_counter()
            r = measure(files, mode)
            print(f"  {label:>9}: {r['kept']} records kept, {r['rows']} rows, {r['seconds']:.0f}s build "
                  f"({time.perf_counter() - t0:.0f}s with start-up); peak RSS {r['peak_rss_mb']:.0f} MB "
                  f"(build process), {r['reader_peak_rss_mb']:.0f} MB (largest reader process)")


if __name__ == "__main__":
    main()
