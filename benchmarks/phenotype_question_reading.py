"""Which task the question reader picks for published patients asked in words.

    PYTHONPATH=. .venv/bin/python -m benchmarks.phenotype_question_reading \
        --cases ../shared/data/phenopackets/dev_cases.jsonl --data-dir DIR [--show 20]

DIR holds hpo_store.sqlite and gene_store.sqlite (`biorag data hpo-store build`, `data
gene-store build`). Every case is asked in both of the eval's templates (at most 8 observed
features, as the team's hidden cases are); a patient's features asked for a gene must read as
`phenotype_genes`. Prints the (template, task) counts, the misread share, and the first
`--show` misread questions with the entities found.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from application.engine import build_agent
from biorag.settings import load_settings
from biorag.understanding.analysis import analyse
from evaluation.prioritise import TEMPLATES, capped, question_for, read_cases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--max-features", type=int, default=8)
    ap.add_argument("--show", type=int, default=20)
    args = ap.parse_args()
    agent = build_agent(load_settings(sets=[f'data_dir="{args.data_dir}"']))
    cases = read_cases(args.cases)
    count: collections.Counter = collections.Counter()
    misread = []
    for c in cases:
        for t in range(len(TEMPLATES)):
            q = question_for(c, capped(c, args.max_features).observed, t)
            a = analyse(q, agent.retrievers, agent.lexicon)
            kind = a.intent.kind if a.intent else "none"
            count[(t, kind)] += 1
            if kind != "phenotype_genes":
                misread.append((t, kind, q, [(e.kind, e.text) for e in a.entities], c.id))
    for (t, kind), n in sorted(count.items(), key=lambda x: (x[0][0], -x[1])):
        print(f"template {t}  {kind:22s} {n}")
    total = len(cases) * len(TEMPLATES)
    print(f"read as phenotype_genes: {total - len(misread)} of {total} questions "
          f"({len(cases)} cases x {len(TEMPLATES)} templates); misread {len(misread)}")
    print(f"cases misread in either template: {len({m[4] for m in misread})} of {len(cases)}")
    for t, kind, q, ents, _id in misread[: args.show]:
        print(f"- [{t}] {kind}: {q}\n    entities: {ents}")


if __name__ == "__main__":
    main()
