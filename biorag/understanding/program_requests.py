"""A question wrapped in a request for a program ("Write a computer program that answers
the following question: Which organism does this DNA sequence come from? ACGT...") asks
for the question's answer: BioRAG answers it, it does not write the program. This module
finds the wrapper and returns the question inside it, so the wrapped and the plain
question are read, routed and answered alike.

The wrapper is recognised by what it asks for (a program, script, code or function, in
any language) and by a verb of answering, solving or computing after it; a question that
only mentions a program ("Which program aligns reads?") is left as it is.
"""

from __future__ import annotations

import re

_ASK = r"(?:please\s+|kindly\s+|can\s+you\s+|could\s+you\s+|would\s+you\s+|i\s+need\s+you\s+to\s+|help\s+me\s+)*"
_MAKE = r"(?:write|create|make|build|develop|give(?:\s+me)?|provide|generate|implement|code\s+up|design|show(?:\s+me)?)"
_LANGUAGE = r"(?:python|r|perl|bash|shell|java(?:script)?|c\+\+|c|rust|go|julia|matlab|computer|small|short|simple)"
_THING = rf"(?:an?\s+)?(?:(?:{_LANGUAGE})\s+)*(?:program|script|code|function|tool|pipeline|snippet|routine)"
_THAT = r"(?:that|which|to|for|so\s+that\s+it|able\s+to|capable\s+of)"
_VERB = (r"(?:can\s+|could\s+|will\s+|would\s+)?(?:answers?|answering|solves?|solving|computes?|computing|"
         r"calculates?|calculating|determines?|determining|finds?|finding|responds?\s+to|handles?|addresses)")
_OBJECT = r"(?:\s+(?:the\s+|this\s+|a\s+|my\s+)?(?:following\s+|below\s+|next\s+)?(?:question|query|task|problem)s?)?"
_WRAPPER = re.compile(
    rf"^\s*{_ASK}{_MAKE}\s+(?:me\s+)?{_THING}\s+{_THAT}\s+{_VERB}{_OBJECT}\s*(?:[:,.\-\u2013\u2014]+|\s)\s*",
    re.IGNORECASE)
#: "A computer program that answers: ..." (no verb of making)
_BARE = re.compile(rf"^\s*{_THING}\s+{_THAT}\s+{_VERB}{_OBJECT}\s*(?:[:,.\-\u2013\u2014]+|\s)\s*", re.IGNORECASE)
#: "..., using a computer program." / "Answer with a Python script." at the end
_TRAILING = re.compile(
    rf"[\s,;:.]*(?:\(?\s*(?:by\s+)?(?:using|with|via|through|in)\s+{_THING}\s*\)?|"
    rf"(?:please\s+)?{_MAKE}\s+{_THING}(?:\s+for\s+(?:it|this|that))?)\s*[.!]?\s*$",
    re.IGNORECASE)


def unwrap_program_request(question: str) -> str:
    """The question inside a request for a program that answers it; the question itself
    when it is not so wrapped. What is left must still ask something: a wrapper with
    nothing after it is kept as written."""
    text = question
    m = _WRAPPER.match(text) or _BARE.match(text)
    if m and text[m.end():].strip():
        text = text[m.end():]
        text = text[:1].upper() + text[1:] if text[:1].islower() and not _looks_like_sequence(text) else text
    t = _TRAILING.search(text)
    if t and t.start() > 0 and text[:t.start()].strip():
        text = text[:t.start()].rstrip() + ("?" if text[:t.start()].rstrip()[-1:] not in "?.!:" else "")
    return text if text.strip() else question


def _looks_like_sequence(text: str) -> bool:
    head = text.split()[0] if text.split() else ""
    return len(head) >= 20 and set(head.upper()) <= set("ACGTUN")
