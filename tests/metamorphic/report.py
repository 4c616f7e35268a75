"""Every relation and family at once, as a table (for re-checking after a merge):

    python -m tests.metamorphic.report --data-dir DIR [--only NAME ...] [--show 2]

DIR holds gene_store.sqlite and hpo_store.sqlite (`biorag data gene-store build`,
`biorag data hpo-store build`). It prints each relation's cases and broken cases, each
family's right share, and whether the table's xfail marks still match.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tests.agents import newcomer_agent
from tests.metamorphic.conftest import Asker
from tests.metamorphic.relations import FAMILIES, RELATIONS
from tests.metamorphic.runner import allowed_wrong, run_family, run_relation


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", type=Path, required=True)
    p.add_argument("--only", nargs="*", default=None, help="relation/family names")
    p.add_argument("--show", type=int, default=2, help="broken/wrong cases printed per row")
    a = p.parse_args()
    t0 = time.perf_counter()
    with newcomer_agent(a.data_dir) as agent:
        ask = Asker(agent)
        total = 0
        for rel in RELATIONS:
            if a.only and rel.name not in a.only:
                continue
            t = time.perf_counter()
            cases, broken = run_relation(rel, ask)
            total += len(cases)
            holds = not broken
            mark = "ok" if holds == (rel.xfail is None) else "MARK STALE"
            print(f"relation {rel.name:22} {len(cases):4} cases {len(broken):4} broken  "
                  f"{'xfail' if rel.xfail else '     '}  {mark}  {time.perf_counter() - t:5.1f}s")
            for case, x, y in broken[: a.show]:
                print(f"    {case.base!r} -> {x.splitlines()[0][:90]!r}\n    {case.variant!r} -> {y.splitlines()[0][:90]!r}")
        for fam in FAMILIES:
            if a.only and fam.name not in a.only:
                continue
            questions, wrong = run_family(fam, ask)
            rate = 1 - len(wrong) / len(questions)
            ok = len(wrong) <= allowed_wrong(len(questions), 0.9)
            mark = "ok" if ok == (fam.xfail is None) else "MARK STALE"
            print(f"family   {fam.name:22} {len(questions):4} base  {rate:5.2f} right "
                  f"{'xfail' if fam.xfail else '     '}  {mark}")
            for q, x in wrong[: a.show]:
                print(f"    {q!r} -> {x.splitlines()[0][:100]!r}")
    print(f"{total} relation cases, {ask.asked} distinct questions, {time.perf_counter() - t0:.0f}s")


if __name__ == "__main__":
    main()
