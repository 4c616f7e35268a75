"""`biorag eval bioasq --corpus PATH`: build the index the agent searches from BioASQ's gold
snippets (plus any PubMed records given), in the eval output folder.

Each PATH is either BioASQ golden JSON (a file or a folder of them: every question's
snippets, joined per PMID, become that PMID's document, as `evaluation.retrieval.load_bioasq`
builds them) or PubMed records the index build reads (XML, MEDLINE, JSONL), added as they
are. The index is a Milvus Lite file under `<out>/corpus_index/`, built by the normal
`biorag index build` path (so it gets its lexical side index too), with the abstract-length
filter off (a snippet is often one sentence). The same inputs reuse the index; other inputs
rebuild it.

`build_context_index` does the same for PubMedQA's own contexts (`--with-context`).

This is NOT the official BioASQ setting: there, systems search all of PubMed, and the gold
documents are not handed to them. The report says so beside the figures.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from biorag.contracts.errors import InputError

COLLECTION = "bioasq_snippets"


def _is_bioasq(path: Path) -> bool:
    files = sorted(path.rglob("*.json")) if path.is_dir() else [path]
    if not files or path.suffix in (".gz", ".xml", ".txt", ".jsonl"):
        return False
    try:
        head = json.loads(files[0].read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(head, dict) and "questions" in head


def _fingerprint(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        for f in sorted(p.rglob("*")) if p.is_dir() else [p]:
            if f.is_file():
                st = f.stat()
                h.update(f"{f.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def build_snippet_index(settings, paths: list[Path], out_dir: Path, progress: bool = True) -> dict[str, Any]:
    """Build (or reuse) the BioASQ corpus index; returns the `--set` overrides that point a
    configuration at it (`sets`) and what it holds."""
    from evaluation.retrieval import load_bioasq

    if not paths:
        raise InputError("--corpus needs at least one path")
    for p in paths:
        if not p.exists():
            raise InputError(f"--corpus {p} does not exist")
    bioasq = [p for p in paths if _is_bioasq(p)]
    records = [p for p in paths if p not in bioasq]
    return _build(settings, lambda: load_bioasq(bioasq)[1] if bioasq else [], records, out_dir, COLLECTION,
                  _fingerprint(paths), "gold snippets as documents: not the official BioASQ setting (all of PubMed)",
                  progress)


def build_context_index(settings, questions: Path, out_dir: Path, progress: bool = True) -> dict[str, Any]:
    """`biorag eval pubmedqa --with-context`: every question's own abstract (its labelled
    context paragraphs, without the conclusion, as PubMedQA gives them) indexed as that PMID's
    document, so the agent can find and read it; the question is not used as a title."""
    from evaluation.retrieval import load_pubmedqa

    return _build(settings, lambda: load_pubmedqa(questions)[1], [], out_dir, "pubmedqa_contexts",
                  _fingerprint([questions]), "PubMedQA contexts (abstracts without their conclusion) as the corpus",
                  progress)


def _build(settings, documents, records: list[Path], out_dir: Path, collection: str, fp: str, note: str,
           progress: bool) -> dict[str, Any]:
    from indexing.build import build_index

    root = Path(out_dir) / "corpus_index"
    root.mkdir(parents=True, exist_ok=True)
    info_file = root / "corpus.json"
    db = root / "pubmed.db"
    sets = [f"index.uri={db}", f"index.collection={collection}", "index.min_abstract_words=0"]
    if info_file.exists() and (info := json.loads(info_file.read_text())).get("fingerprint") == fp:
        return {"sets": sets, **info}
    docs = documents()
    docs_file = root / "corpus_documents.jsonl"
    with open(docs_file, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d) + "\n")
    s = settings.model_copy(deep=True)
    s.index.uri = str(db)
    s.index.collection = collection
    s.index.min_abstract_words = 0
    report = build_index(s, [docs_file, *records], rebuild=db.exists(), progress=progress, allow_shrink=True)
    if not report.ok:
        raise InputError(f"the corpus index was not built: {'; '.join(report.switch_blockers())}")
    info = {"fingerprint": fp, "documents": len(docs), "record_files": [str(p) for p in records],
            "rows": report.rows, "collection": report.collection, "note": note}
    info_file.write_text(json.dumps(info, indent=2))
    return {"sets": sets, **info}
