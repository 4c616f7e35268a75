"""PubMedQA items (`ori_pqal.json`, `test_set.json`) as the abstracts a record holds.

An item gives its abstract as labelled paragraphs (CONTEXTS with LABELS: "RESULTS", ...)
and leaves out the conclusion. Every reader writes it the same way, one "LABEL: text" line
per paragraph, so the findings tier reads the labels (`biorag.loop.findings`) alike where
`biorag eval pubmedqa --with-context` indexes it and where `training.yes_no_verdict`
trains on it.
"""

from __future__ import annotations


def abstract_text(item: dict) -> str:
    """The item's context paragraphs, one line each, after its section label where it has one."""
    labels = item.get("LABELS") or [""] * len(item["CONTEXTS"])
    return "\n".join(f"{lab}: {c}" if lab else c for lab, c in zip(labels, item["CONTEXTS"], strict=False))
