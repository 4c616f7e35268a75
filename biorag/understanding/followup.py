"""Follow-up questions in a conversation: "and where is it located?" after "What is the
official symbol of LMP10?" asks about LMP10.

Conservative by design: a reference ("it", "its", "this gene", ...) is replaced only when
the question names nothing itself and the latest earlier question that names anything
names exactly one entity (of the kind the reference asks for, "this disease" a disease).
Otherwise the question stays as asked, with the reason: a wrong subject is worse than a
question the agent cannot answer. Entities come from the question understanding
(`biorag.understanding.analysis.analyse`) with the server's lexicon, the same linking the agent uses;
only the user's own questions are read, never the assistant's answers (they name every
record they cite).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from biorag.contracts.sources import GENE_IDS, EntityKind, Lexicon
from biorag.understanding.analysis import Analysis, analyse

_ANY: tuple[EntityKind, ...] = ()
#: the nouns of "this gene", "that disease", ...: the kinds each may refer to
_NOUNS: dict[str, tuple[EntityKind, ...]] = {
    "gene": GENE_IDS, "protein": GENE_IDS,
    "disease": ("disease",), "syndrome": ("disease",), "disorder": ("disease",), "condition": ("disease",),
    "variant": ("rsid",), "snp": ("rsid",), "mutation": ("rsid",),
    "sequence": ("sequence",), "accession": ("accession",),
}
_REFERENCE = re.compile(
    r"\b(?:(?P<det>this|that)\s+(?P<noun>" + "|".join(_NOUNS) + r")\b|(?P<is>it['’]s)\b|(?P<poss>its)\b"
    r"|(?P<it>it)\b)",
    re.IGNORECASE)
#: kinds that are context of a question, never what "it" stands for
_NOT_A_SUBJECT = {"organism", "free_text", "gene_list"}


@dataclass(frozen=True)
class FollowUp:
    """The question to answer (`question`), the last message as the user wrote it (`asked`),
    the name that replaced the reference (`subject`, None when nothing was replaced) and why."""

    question: str
    asked: str
    subject: str | None
    reason: str

    @property
    def resolved(self) -> bool:
        return self.subject is not None


def _subjects(analysis: Analysis, kinds: tuple[EntityKind, ...]) -> list[str]:
    """The distinct names an analysed question offers as a subject of `kinds` (any kind
    when empty): the confident ones, or every one when none is confident."""
    named = [e for e in analysis.entities if e.kind not in _NOT_A_SUBJECT and (not kinds or e.kind in kinds)]
    sure = [e for e in named if e.confident] or named
    seen: dict[str, str] = {}
    for e in sure:
        seen.setdefault(e.text.casefold(), e.text)
    return list(seen.values())


def _replaced(question: str, refs: list[re.Match], subject: str) -> str:
    out, at = [], 0
    for m in refs:
        said = f"{subject}'s" if m["poss"] else f"{subject} is" if m["is"] else subject
        out += [question[at:m.start()], said]
        at = m.end()
    return "".join(out) + question[at:]


def _wanted(ref: re.Match) -> tuple[EntityKind, ...]:
    return _NOUNS[ref["noun"].lower()] if ref["noun"] else _ANY


def resolve(question: str, earlier: Sequence[str], lexicon: Lexicon | None = None) -> FollowUp:
    """`question` with its references to one subject resolved from the `earlier` user
    questions (oldest first), or as asked with the reason it was left alone."""
    def asked(reason: str) -> FollowUp:
        return FollowUp(question, question, None, reason)

    refs = list(_REFERENCE.finditer(question))
    if not refs:
        return asked("no reference to an earlier question")
    if len({_wanted(m) for m in refs}) > 1:
        return asked(f"references to different things ({', '.join(m[0] for m in refs)}): not one subject to fill in")
    if not earlier:
        return asked("no earlier question to refer to")
    without_refs = _replaced(question, refs, "")
    if _subjects(analyse(without_refs, None, lexicon), _ANY):
        return asked("the question names its own subject")
    kinds, shown = _wanted(refs[0]), refs[0][0]
    for before in reversed(earlier):
        analysis = analyse(before, None, lexicon)
        if not _subjects(analysis, _ANY):
            continue  # "thanks": look further back
        names = _subjects(analysis, kinds)
        if len(names) != 1:
            what = f"names {len(names)} possible subjects ({', '.join(names)})" if names else \
                "names no subject of that kind"
            return asked(f"the earlier question {what}: not guessing which one '{shown}' means")
        return FollowUp(_replaced(question, refs, names[0]), question, names[0],
                        f"'{shown}' is {names[0]}, from the earlier question")
    return asked("no earlier question names a subject")
