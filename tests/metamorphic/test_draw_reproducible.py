"""The cases a relation draws depend on its seed alone: not on which modules the tests
that ran before it imported (Hypothesis reads literals of imported project modules into
its draws unless the runner stops it)."""

from __future__ import annotations

import importlib
import sys

import pytest

from tests.metamorphic.relations import RELATIONS
from tests.metamorphic.runner import draw_cases


@pytest.mark.parametrize("rel", [r for r in RELATIONS if r.name in ("gene_field_case", "gene_ids", "disease_typo")],
                         ids=lambda r: r.name)
def test_draw_is_the_same_after_other_imports(rel, tmp_path, monkeypatch):
    before = draw_cases(rel)
    # a project module the earlier tests might have imported: integer literals of the
    # sizes the draws use (indexes into the records, template numbers)
    (tmp_path / "earlier_module.py").write_text(
        "LIMITS = [" + ", ".join(str(i) for i in range(1, 400)) + "]\nNAMES = ['mcc', 'TP53', 'chromosome']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("earlier_module")
    try:
        after = draw_cases(rel)
    finally:
        sys.modules.pop("earlier_module", None)
    assert after == before, f"{rel.name}: {sum(a != b for a, b in zip(before, after, strict=False))} of {len(before)} cases differ"
