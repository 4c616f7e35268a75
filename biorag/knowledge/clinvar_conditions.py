"""Condition names in ClinVar's tables that name no condition: placeholders ("not provided",
"see cases") and the count ClinVar's variant_summary writes where a list was cut ("6
conditions"). One list for the writer of the bundled releases (`indexing.clinvar_bundle`)
and the reader of a variant's conditions (`retrievers.dbsnp`)."""

from __future__ import annotations

import re

#: condition names that name no condition (compared in lower case)
NO_CONDITION = frozenset({"not provided", "not specified", "see cases", "-", "", "none provided"})
_COUNT = re.compile(r"\d+ conditions?")


def names_condition(name: str) -> bool:
    """Whether a condition entry names a condition: no placeholder, no count standing for a list."""
    name = name.strip().lower()
    return name not in NO_CONDITION and not _COUNT.fullmatch(name)
