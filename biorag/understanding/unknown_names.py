"""Names a question asks about that no dictionary holds ("where is FLURBLE1 located"): found
once by understanding, asked once of the sources that take genes (the local store, then
E-utilities where they are enabled), then refused at once, with the close official symbols
the dictionary knows ("did you mean ...?"), instead of rounds of searching for a name
nothing holds.

A name counts only when it is written like a gene symbol (letters and digits, one case or a
capital first: "SARS-CoV-2" is not), no dictionary holds it, no other entity stands beside
it (a disease, a known gene), and the question asks a gene's field of it and nothing else
(every other word is a field's cue word or an asking word: "What does H1N1 do to the lungs?"
is about lungs too).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from biorag.contracts.sources import held_genes

if TYPE_CHECKING:
    from biorag.contracts.models import Evidence
    from biorag.contracts.sources import Lexicon, Source

_SYMBOL_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$")
#: words a question may wrap a request in without asking about anything else
POLITE = frozenset("""
thanks thank hi hello hey kindly quick quickly question now currently again real actually exactly
precisely briefly just help know wondering wonder curious need would like any idea someone anyone
lot much advance cheers pls plz
""".split())


def symbol_like(text: str) -> bool:
    """Written as gene symbols are: letters and digits (hyphens between), in one case or
    with a capital first ("FLURBLE1", "flurble1", "Flurble1"; not "SARS-CoV-2")."""
    if not _SYMBOL_LIKE.match(text):
        return False
    letters = "".join(c for c in text if c.isalpha())
    return letters.isupper() or letters.islower() or letters[1:].islower()


def unknown_genes(names: Sequence[str], lexicon: Lexicon | None) -> dict[str, tuple[str, ...]]:
    """Each name with the close official symbols the lexicon suggests (none without a
    lexicon able to: `suggest` is optional)."""
    suggest: Callable[[str], list[str]] | None = getattr(lexicon, "suggest", None)
    return {n: tuple(suggest(n)) if suggest else () for n in dict.fromkeys(names)}


def refusal(unknown: dict[str, tuple[str, ...]]) -> str:
    """'X is not a known gene symbol, alias or id (did you mean A, B?)', one clause per name."""
    return "; ".join(f"{name} is not a known gene symbol, alias or id"
                     + (f" (did you mean {', '.join(close)}?)" if close else "")
                     for name, close in unknown.items())


def still_unknown(unknown: dict[str, tuple[str, ...]], evidence: list[Evidence],
                  sources: Mapping[str, Source] | None) -> dict[str, tuple[str, ...]]:
    """The names no gathered record carries (a source outside the dictionary may know one):
    no record has it as its id, and no record holds a gene by it (symbol, alias, previous
    symbol: `Source.genes`)."""
    held = {n.lower() for g in held_genes(evidence, sources) for n in g.names if n}
    held |= {ev.id.lower() for ev in evidence}
    return {n: c for n, c in unknown.items() if n.lower() not in held}
