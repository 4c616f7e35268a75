"""`biorag train prepare`: records (+ PubMedQA) -> a training-data directory.

Layout of the directory (all JSONL, one object per line):
- `pairs_train.jsonl`, `pairs_heldout.jsonl` - contrastive pairs (see training.pairs);
- `mesh_train.jsonl`, `mesh_heldout.jsonl` - MeSH tagger examples (see training.mesh_data);
- `pubmedqa.jsonl` - PubMedQA questions with gold context and MeSH, for retrieval recall@k;
  with `bioasq`, the pairs also hold BioASQ 7B-11B questions -> gold documents (kind
  "bioasq", `training.bioasq_pairs`; 12B never enters), split by PMID like the others;
- `biorag_manifest.json` - kind "training-data", counts, inputs, seed and a fingerprint.

PubMedQA PMIDs never appear in the contrastive pairs, so the PubMedQA retrieval benchmark
stays unseen by the embedder.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from biorag.contracts.errors import InputError
from biorag.knowledge.mesh import vocabulary
from biorag.storage.artifacts import ArtifactManifest, Fingerprinter, read_manifest, write_manifest
from training.bioasq_pairs import bioasq_pairs
from training.mesh_data import (
    LabelStats,
    MeshExample,
    pubmedqa_example,
    read_examples,
    record_example,
)
from training.pairs import Pair, build_pairs, is_heldout, pair_key
from training.records import QAItem, read_pubmedqa, read_records

FILES = ("pairs_train.jsonl", "pairs_heldout.jsonl", "mesh_train.jsonl", "mesh_heldout.jsonl")


def _write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def prepare(
    inputs: list[str | Path],
    out_dir: str | Path,
    pubmedqa: str | Path | None = None,
    bioasq: str | Path | None = None,
    bioasq_per_question: int = 0,
    heldout: float = 0.1,
    seed: int = 0,
    limit: int | None = None,
    min_abstract_words: int = 40,
    vocab=None,
    progress: bool = True,
) -> ArtifactManifest:
    """Read inputs (and BioASQ's training batches), build pairs and MeSH examples, split by
    PMID, write the directory."""
    from tqdm import tqdm

    if not 0.0 <= heldout < 1.0:
        raise InputError(f"--heldout must be a fraction in [0, 1), got {heldout}")
    if not inputs and bioasq is None:
        raise InputError("nothing to prepare: give PubMed records (--input) and/or BioASQ golden files (--bioasq)")
    vocab = vocab or vocabulary()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    qa: list[QAItem] = read_pubmedqa(pubmedqa) if pubmedqa else []
    qa_pmids = {q.pmid for q in qa}

    # Streamed straight to disk: at PubMed scale the pairs do not fit in memory.
    names = {("pairs", False): "pairs_train", ("pairs", True): "pairs_heldout",
             ("mesh", False): "mesh_train", ("mesh", True): "mesh_heldout"}
    files = {key: (out / f"{name}.jsonl").open("w", encoding="utf-8") for key, name in names.items()}
    written: Counter = Counter()
    fingerprint = Fingerprinter()
    kinds: Counter = Counter()
    mesh_sources: Counter = Counter()
    labels_seen: set[str] = set()

    def emit(what: str, held: bool, row: dict, key: str) -> None:
        files[(what, held)].write(json.dumps(row, ensure_ascii=False) + "\n")
        written[(what, held)] += 1
        fingerprint.update(key)

    def emit_mesh(ex: MeshExample, held: bool) -> None:
        emit("mesh", held, ex.to_json(), f"{ex.id}\t{ex.source}\t{ex.text}\t{'|'.join(ex.labels)}")
        labels_seen.update(ex.labels)
        if not held:
            mesh_sources[ex.source] += 1

    stats = LabelStats()
    counts: Counter = Counter()
    drops: Counter = Counter()
    bar = tqdm(desc="records", unit="rec", disable=not progress)
    try:
        for rec in read_records(inputs, min_abstract_words=min_abstract_words):
            if limit is not None and counts["records"] >= limit:
                break
            counts["records"] += 1
            bar.update(1)
            if rec.drop_reason:
                drops[rec.drop_reason] += 1
            if rec.pmid in qa_pmids:
                counts["skipped_in_pubmedqa"] += 1
                continue
            held = is_heldout(rec.pmid, heldout, seed)
            rec_pairs = build_pairs(rec)
            if not rec_pairs:
                counts["no_pairs"] += 1
            for pair in rec_pairs:
                emit("pairs", held, pair.to_json(), pair_key(pair))
                if not held:
                    kinds[pair.kind] += 1
            ex = record_example(rec, vocab, stats)
            if ex is not None:
                emit_mesh(ex, held)
        bar.close()
        if inputs and counts["records"] == 0:
            raise InputError(f"no PubMed records with a PMID in {', '.join(map(str, inputs))}")
        bioasq_counts: dict = {}
        if bioasq is not None:
            pairs, bioasq_counts = bioasq_pairs(Path(bioasq), bioasq_per_question)
            for pair in pairs:
                held = is_heldout(pair.pmid, heldout, seed)
                emit("pairs", held, pair.to_json(), pair_key(pair))
                if not held:
                    kinds[pair.kind] += 1
        for item in qa:
            ex = pubmedqa_example(item, vocab, stats)
            if ex is not None:
                emit_mesh(ex, is_heldout(item.pmid, heldout, seed))
    finally:
        for f in files.values():
            f.close()
    n_qa = _write_jsonl(
        out / "pubmedqa.jsonl",
        ({"pmid": q.pmid, "question": q.question, "context": q.context, "mesh": q.mesh_names} for q in qa),
    )

    manifest = ArtifactManifest(
        kind="training-data",
        base_model="",
        data_fingerprint=fingerprint.value,
        config={"heldout": heldout, "seed": seed, "limit": limit, "min_abstract_words": min_abstract_words,
                "bioasq_per_question": bioasq_per_question},
        extra={
            "inputs": [str(p) for p in inputs],
            "pubmedqa": str(pubmedqa) if pubmedqa else None,
            "bioasq": str(bioasq) if bioasq else None,
            **bioasq_counts,
            "records": counts["records"],
            "records_skipped_in_pubmedqa": counts["skipped_in_pubmedqa"],
            "records_without_pairs": counts["no_pairs"],
            "abstracts_dropped_by_cleaner": dict(sorted(drops.items())),
            "pairs_train": written[("pairs", False)],
            "pairs_heldout": written[("pairs", True)],
            "pairs_train_by_kind": dict(sorted(kinds.items())),
            "mesh_train": written[("mesh", False)],
            "mesh_heldout": written[("mesh", True)],
            "mesh_sources_train": dict(sorted(mesh_sources.items())),
            "mesh_distinct_labels": len(labels_seen),
            "pubmedqa_items": n_qa,
            **stats.as_dict(),
        },
    )
    write_manifest(out, manifest)
    return manifest


@dataclass
class Prepared:
    """A directory written by prepare(), with typed accessors."""

    path: Path
    manifest: ArtifactManifest

    @classmethod
    def open(cls, path: str | Path) -> Prepared:
        p = Path(path)
        missing = [f for f in FILES if not (p / f).is_file()]
        if not p.is_dir() or missing:
            raise InputError(
                f"{p} is not a prepared training-data directory (missing {', '.join(missing) or 'the folder'}): "
                f"run `biorag train prepare --input ... --out {p}` first"
            )
        manifest = read_manifest(p)
        if manifest.kind != "training-data":
            raise InputError(f"{p} holds a '{manifest.kind}' artifact, not prepared training data")
        return cls(p, manifest)

    def pairs(self, split: str, kinds: tuple[str, ...] | None = None, limit: int | None = None,
              seed: int = 0) -> list[Pair]:
        """The split's pairs (optionally only some kinds); with `limit`, a uniform random
        sample of that many, drawn in one streaming pass (reservoir) so a PubMed-scale
        file never has to fit in memory. File order is kept."""
        rng = random.Random(seed)
        keep: list[tuple[int, Pair]] = []
        seen = 0
        with (self.path / f"pairs_{split}.jsonl").open(encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                pair = Pair(**json.loads(line))
                if kinds is not None and pair.kind not in kinds:
                    continue
                if limit is None or len(keep) < limit:
                    keep.append((seen, pair))
                else:
                    j = rng.randrange(seen + 1)
                    if j < limit:
                        keep[j] = (seen, pair)
                seen += 1
        return [p for _, p in sorted(keep, key=lambda t: t[0])]

    def mesh(self, split: str) -> list[MeshExample]:
        return read_examples(self.path / f"mesh_{split}.jsonl")

    def pubmedqa(self) -> list[QAItem]:
        path = self.path / "pubmedqa.jsonl"
        if not path.is_file():
            return []
        with path.open(encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        return [QAItem(r["pmid"], r["question"], r["context"], r.get("mesh", [])) for r in rows]
