"""The one check of text a user sends (a question, a search query), shared by the agent,
`biorag search` and the API, with one limit: the `max_question_chars` setting."""

from __future__ import annotations

import re

from biorag.errors import InputError

_SURROGATE = re.compile("[\ud800-\udfff]")


def check_user_text(text: str, limit: int, what: str = "question") -> str:
    """`text` stripped, or an InputError naming what is wrong: empty, longer than `limit`
    characters, or not valid Unicode (a lone surrogate, which no model, index or NCBI
    can take as text; it also comes from a command line that is not UTF-8)."""
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
