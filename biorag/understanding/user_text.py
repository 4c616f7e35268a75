"""The one check of text a user sends (a question, a search query), shared by the agent,
the CLI (`biorag ask`, `search`, `tool`) and the API, against one limit: the
`max_question_chars` setting. The API states the same rule in its OpenAPI document
(`user_text_schema`), so generated clients and fuzzers know it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from biorag.contracts.errors import InputError

if TYPE_CHECKING:
    from biorag.settings import Settings

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_user_text(text: str, settings: Settings, what: str = "question") -> str:
    """`text` stripped, or an InputError naming what is wrong: empty, longer than the
    `max_question_chars` setting, or not valid Unicode (a lone surrogate, which no model,
    index or NCBI can take as text; it also comes from a command line that is not UTF-8)."""
    limit = settings.max_question_chars
    cleaned = (text or "").strip()
    if not cleaned:
        raise InputError(f"the {what} is empty: ask something, e.g. 'Which chromosome is TP53 on?'")
    if len(cleaned) > limit:
        raise InputError(f"the {what} has {len(cleaned)} characters; the limit is {limit} (max_question_chars)")
    bad = _SURROGATE.search(cleaned)
    if bad:
        raise InputError(
            f"the {what} holds U+{ord(bad[0]):04X} at character {bad.start()}, a lone surrogate that is "
            "not valid Unicode: send UTF-8 text"
        )
    return cleaned


#: the characters `str.strip` removes, for a JSON Schema character class: `\s` in a schema is
#: ECMAScript's, which leaves out the separators U+001C-U+001F and U+0085 that Python strips,
#: so a query of only those would be schema-valid and then empty
BLANKS = r"\s\x1c-\x1f\x85"


def user_text_schema(settings: Settings) -> dict[str, Any]:
    """What `check_user_text` accepts, as JSON Schema keywords for a string: not blank,
    at most `max_question_chars` characters (after stripping; the schema cannot say that)."""
    return {"minLength": 1, "maxLength": settings.max_question_chars, "pattern": f"[^{BLANKS}]"}
