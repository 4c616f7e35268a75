"""The part of a route's contract no JSON Schema can state: a request that fits the schema
and is still refused, for a reason only the server's data decides (a gene symbol the gene
store does not know, an HPO id the shipped release lacks, an answer not found in time).

Each such refusal is written in the route's OpenAPI description as one line under one
heading, so that a person reading /docs and a program reading /openapi.json find the same
list:

    **Refused although schema-valid:**

    - `422`: the names are not two distinct known human genes ...

`refused_although_valid` writes the block; `stated_refusals` reads it back from a document
(the fuzz test allows exactly those statuses and no others)."""

from __future__ import annotations

import re
from typing import Any

HEADING = "**Refused although schema-valid:**"
_LINE = re.compile(r"^- `(\d{3})`: (.+)$")
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def refused_although_valid(*rules: tuple[int, str], intro: str = "") -> str:
    """A route's description: `intro`, then the heading and one line per (status, why)."""
    if not rules:
        raise ValueError("state at least one refusal, or leave the description out")
    if len({status for status, _ in rules}) != len(rules):
        raise ValueError("one line per status: say every reason for it in that line")
    lines = [f"- `{status}`: {why}" for status, why in rules]
    for line in lines:
        if "\n" in line or not _LINE.match(line):
            raise ValueError(f"a refusal is one line with a 3-digit status: {line!r}")
    return "\n\n".join(part for part in (intro.strip(), HEADING, "\n".join(lines)) if part)


def body_limit(max_body_bytes: int) -> tuple[int, str]:
    """The refusal every route with a JSON body shares: the size limit, which counts bytes
    of the encoded text, where one character costs 1 to 12 bytes (`\\ud83d\\ude00`)."""
    return (413, f"the body is over serve.max_body_bytes ({max_body_bytes} bytes on this server): the limit counts "
                 "bytes of the JSON text, and a character takes 1 to 12 of them depending on how it is written "
                 "(UTF-8 or a \\u escape), so no length or item count in the schema can state it")


def refusals_in(description: str) -> dict[int, str]:
    """The (status -> why) lines of one description; {} when it states none."""
    head, sep, rest = (description or "").partition(HEADING)
    if not sep:
        return {}
    out: dict[int, str] = {}
    for line in rest.strip().splitlines():
        m = _LINE.match(line.strip())
        if not m:
            break  # the list ends at the first line that is not a refusal
        out[int(m[1])] = m[2]
    return out


def stated_refusals(document: dict[str, Any]) -> dict[tuple[str, str], dict[int, str]]:
    """(METHOD, path) -> the refusals its description states, for every operation of an
    OpenAPI document that states any."""
    out: dict[tuple[str, str], dict[int, str]] = {}
    for path, item in (document.get("paths") or {}).items():
        for method, op in item.items():
            if method in _METHODS and isinstance(op, dict):
                found = refusals_in(op.get("description", ""))
                if found:
                    out[(method.upper(), path)] = found
    return out
