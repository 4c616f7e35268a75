"""Gene classes ("a kinase", "a tumour suppressor", "an ion channel") read from a gene's names.

No bundled source lists genes by class, but a gene's names state it: HGNC's full name and
NCBI's other designations name what the product is ("B-Raf proto-oncogene, serine/threonine
kinase"; TP53: "tumor supressor p53"), and HGNC gene groups name families ("Mitogen-activated
protein kinases"). A name states a class only in its *head*, the words it ends with once
identifiers (numbers, single letters, Greek letters, symbols such as "B-raf") are set aside:
CDKN2A's "cyclin dependent kinase inhibitor 2A" names an inhibitor, not a kinase, and
PRKAR1A's "... regulatory subunit alpha" a regulatory subunit. A comma-inverted name
("protein phosphatase 1, regulatory subunit 46") is headed by its inverted head only when
no later part says it is something else beside it (an inhibitor, a regulatory subunit).

What is not in a name is not known: RB1's and PTEN's names call neither a tumour
suppressor, so "Which of these is a tumour suppressor? A) KRAS B) RB1" is not answered.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from biorag.knowledge.gene_sets import HGNC_GROUPS_GMT


@dataclass(frozen=True)
class GeneClass:
    """A class as questions ask it (`asked`, lower case, hyphens as spaces) and the name heads
    that state it (`heads`, same form; "*kinase" is any head word ending so: "hexokinase")."""

    name: str
    asked: tuple[str, ...]
    heads: tuple[str, ...]
    #: whether a name of one of its subunits states it (`head`)
    of_subunits: bool = False


#: the classes read, most specific first (a question's longest asked phrase is the class)
CLASSES = (
    GeneClass("tyrosine kinase", ("tyrosine kinase", "tyrosine protein kinase"),
              ("tyrosine kinase", "tyrosine protein kinase")),
    GeneClass("serine/threonine kinase", ("serine/threonine kinase", "serine threonine kinase",
                                          "serine/threonine protein kinase"),
              ("serine/threonine kinase", "serine/threonine protein kinase")),
    GeneClass("kinase", ("kinase", "protein kinase"), ("*kinase",)),
    GeneClass("phosphatase", ("phosphatase",), ("*phosphatase",)),
    GeneClass("transcription factor", ("transcription factor",), ("transcription factor",), True),
    GeneClass("ion channel", ("ion channel", "channel"), ("channel",), True),
    GeneClass("receptor", ("receptor",), ("receptor",), True),
    GeneClass("tumor suppressor", ("tumor suppressor", "tumour suppressor"),
              ("tumor suppressor", "tumour suppressor", "tumor supressor")),
    GeneClass("proto-oncogene", ("proto oncogene", "oncogene"), ("proto oncogene", "oncogene")),
    GeneClass("ubiquitin ligase", ("ubiquitin ligase", "e3 ligase", "e3 ubiquitin ligase"),
              ("ubiquitin ligase", "ubiquitin protein ligase")),
    GeneClass("GTPase", ("gtpase",), ("gtpase",)),
    GeneClass("transporter", ("transporter",), ("transporter",)),
    GeneClass("protease", ("protease", "peptidase", "proteinase"), ("*protease", "*peptidase", "*proteinase")),
    GeneClass("helicase", ("helicase",), ("helicase",)),
    GeneClass("polymerase", ("polymerase",), ("polymerase",)),
    GeneClass("enzyme", ("enzyme",), ("enzyme", "*ase")),
)
#: words ending in "ase" that name no enzyme
_NOT_ENZYMES = frozenset({"base", "case", "phase", "release", "increase", "decrease", "disease", "lease", "chase"})
_ARTICLES = frozenset({"a", "an", "the"})
_NEGATIONS = frozenset({"not", "non", "isn", "isnt", "doesn", "doesnt"})
#: "ion channel": any channel but one for water (aquaporins)
_NOT_ION = frozenset({"water"})
_PUNCT = ".,;:!?()[]'\""
_GREEK = frozenset("""alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho
sigma tau upsilon phi chi psi omega""".split())
_ROMAN = re.compile(r"^(?:i{1,3}|iv|v|vi{1,3}|ix|x|xi{1,3})$")
#: words after a head that leave it the head ("... channel subfamily A member 1")
_TAILS = frozenset({"subfamily", "family", "member", "type", "class", "group", "isoform", "homolog",
                    "catalytic", "domain", "containing", "protein", "polypeptide", "chain"})
#: a later part of a comma-inverted name that says the whole names something beside its head
_BESIDE = frozenset({"regulatory", "inhibitor", "regulator", "activator", "interacting", "binding",
                     "associated", "substrate", "anchor", "adaptor", "adapter", "like", "pseudogene",
                     "antisense", "readthrough", "divergent", "modulator", "cofactor", "non catalytic",
                     "accessory", "auxiliary", "inhibitory", "anchoring"})


def class_words(text: str) -> list[str]:
    """Lower-case words, hyphens as spaces, "/" kept ("serine/threonine"), plurals folded."""
    out = []
    for raw in re.sub(r"[-_]", " ", text.lower()).split():
        w = raw.strip(_PUNCT)
        if len(w) > 4 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        if w:
            out.append(w)
    return out


def _is_identifier(token: str) -> bool:
    """A token that tells members of a class apart: a number, a letter, a Greek letter, a
    Roman numeral, a symbol ("B-raf", "SOX-9", "p53", "NMDA")."""
    bare = token.strip(_PUNCT)
    low = bare.lower()
    if not bare or any(c.isdigit() for c in bare) or len(bare) == 1 or low in _GREEK or _ROMAN.match(low):
        return True
    parts = bare.split("-")
    if low.endswith("ase"):
        return False  # "GTPase", "ATPase": an enzyme's name, however cased
    return any(len(p) == 1 for p in parts if p) or (bare.isupper() and len(bare) <= 6) or \
        any(c.isupper() for c in bare[1:])


def head(segment: str, through_subunit: bool = False) -> list[str]:
    """A name part's words up to its head: identifiers and tail words ("subfamily A member 1")
    taken off its end. A catalytic subunit is the enzyme; any other subunit is the class only
    `through_subunit` (a channel's or a receptor's subunits form it, a kinase's regulatory
    subunit is no kinase). A "non-" word says what it is not: PTPN11's "protein tyrosine
    phosphatase non-receptor type 11" is a phosphatase, no receptor."""
    tokens = [t for t in segment.split() if t.strip(_PUNCT)]
    while tokens:
        last = tokens[-1]
        low = class_words(last)
        before = class_words(tokens[-2])[-1:] if len(tokens) > 1 else []
        if _is_identifier(last) or (low and low[-1] in _TAILS) or last.lower().startswith("non-"):
            tokens.pop()
        elif low and low[-1] == "subunit" and (through_subunit or before == ["catalytic"]):
            tokens.pop()
        else:
            break
    return class_words(" ".join(tokens))


def _parts(name: str) -> list[str]:
    """The parts of a name that may each be its head: parentheses dropped; split at " and "
    and at commas, the inverted head kept only when no later part names something beside it."""
    text = re.sub(r"\([^()]*\)|\[[^\[\]]*\]", " ", name)
    text = re.sub(r"(?<=ase)/(?=[\w-]+ase\b)", " and ", text)  # "protein kinase/endoribonuclease"
    parts = []
    for piece in re.split(r"\s+and\s+", text):
        pieces = [p.strip() for p in piece.split(",") if p.strip()]
        if not pieces:
            continue
        rest = " ".join(class_words(" ".join(pieces[1:])))
        beside = any(re.search(rf"\b{b}\b", rest) for b in _BESIDE)
        parts += pieces[1:] if beside else pieces
    return parts


def _ends_with(words: list[str], phrase: str) -> bool:
    if phrase.startswith("*"):
        return bool(words) and words[-1].endswith(phrase[1:]) and len(words[-1]) > 4 and words[-1] not in _NOT_ENZYMES
    p = phrase.split()
    return words[-len(p):] == p


def stating(gene_class: GeneClass, name: str, modifiers: Iterable[str] = ()) -> bool:
    """Whether one name states the class: a part of it is headed by one of the class's heads
    and holds every one of `modifiers` ("receptor" of "receptor tyrosine kinase")."""
    wanted = set(modifiers)
    for part in _parts(name):
        words = head(part, gene_class.of_subunits)
        if not words or not any(_ends_with(words, h) for h in gene_class.heads):
            continue
        if gene_class.name == "ion channel" and _NOT_ION.intersection(words):
            continue
        said = class_words(part)  # a word after "non" is what it is not ("non-receptor tyrosine kinase")
        if wanted <= {w for i, w in enumerate(said) if i == 0 or said[i - 1] != "non"}:
            return True
    return False


@dataclass(frozen=True)
class AskedClass:
    """A class a question asks for: the class, the words the question adds to it
    ("receptor" of "a receptor tyrosine kinase") and whether it asks for the one that is not."""

    gene_class: GeneClass
    modifiers: tuple[str, ...] = ()
    negated: bool = False

    @property
    def text(self) -> str:
        return " ".join([*(["not"] if self.negated else []), *self.modifiers, self.gene_class.name])


def class_phrase(text: str) -> tuple[GeneClass, int, int] | None:
    """The class a text names (its longest asked phrase) and the phrase's word span."""
    words = class_words(text)
    best = None
    for cls in CLASSES:
        for phrase in cls.asked:
            p = phrase.split()
            for i in range(len(words) - len(p) + 1):
                if words[i:i + len(p)] == p and (best is None or len(p) > best[2] - best[1]):
                    best = (cls, i, i + len(p))
    return best


def asked_class(wanted: str) -> AskedClass | None:
    """The class a question's wanted words ask for ("not a tumour suppressor", "receptor
    tyrosine kinase"): the class phrase, the words before it and a negation; None when
    words follow the class phrase (they ask something of it)."""
    found = class_phrase(wanted)
    if found is None:
        return None
    cls, start, end = found
    words = class_words(wanted)
    if [w for w in words[end:] if w not in _ARTICLES | _NEGATIONS]:
        return None  # "kinase inhibitor", "kinase that phosphorylates tau": more than a class
    before = [w for w in words[:start] if w not in _ARTICLES]
    return AskedClass(cls, tuple(w for w in before if w not in _NEGATIONS), bool(_NEGATIONS.intersection(before)))


@lru_cache(maxsize=1)
def _hgnc_groups() -> dict[str, tuple[str, ...]]:
    """Symbol -> the HGNC gene groups it belongs to (the bundled gene-group library)."""
    groups: dict[str, list[str]] = {}
    with gzip.open(HGNC_GROUPS_GMT, "rt", encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            for symbol in cols[2:]:
                groups.setdefault(symbol, []).append(cols[1])
    return {s: tuple(g) for s, g in groups.items()}


def hgnc_groups(symbol: str) -> tuple[str, ...]:
    return _hgnc_groups().get(symbol, ())


def class_names(name: str | None, designations: Iterable[str], symbol: str | None) -> list[tuple[str, str]]:
    """(name, where it is from) of a gene's names that state some class: its full name, its
    other designations, its HGNC gene groups; each name once."""
    named = [(name, "full name")] if name else []
    named += [(d, "other designation") for d in designations]
    named += [(g, "HGNC gene group") for g in (hgnc_groups(symbol) if symbol else ())]
    seen, out = set(), []
    for text, where in named:
        if text.lower() not in seen and any(stating(c, text) for c in CLASSES):
            seen.add(text.lower())
            out.append((text, where))
    return out


#: the value of a gene whose names state no class
NO_CLASS = "no class is stated in its full name, other designations or HGNC gene groups"


#: a class stated alongside a narrower one it holds is not listed ("kinase" beside
#: "serine/threonine kinase", "enzyme" beside "kinase")
_WITHIN = {"tyrosine kinase": "kinase", "serine/threonine kinase": "kinase", "kinase": "enzyme",
           "phosphatase": "enzyme", "ubiquitin ligase": "enzyme", "GTPase": "enzyme", "protease": "enzyme",
           "helicase": "enzyme", "polymerase": "enzyme"}
_SAYS = " \u2014 named so in: "


def class_value(named: list[tuple[str, str]]) -> str:
    """The gene-class field as answered: the classes its names state, narrowest first, then
    each stating name with where it is from ("serine/threonine kinase, proto-oncogene —
    named so in: B-Raf proto-oncogene, serine/threonine kinase (full name); ...")."""
    if not named:
        return NO_CLASS
    stated = [c.name for c in CLASSES if any(stating(c, text) for text, _ in named)]
    shown = [c for c in stated if not any(_WITHIN.get(o) == c for o in stated)]
    return ", ".join(shown) + _SAYS + "; ".join(f"{text} ({where})" for text, where in named)


#: the names an answer about a gene's class quotes (a gene may have a dozen saying it)
QUOTED_NAMES = 3


def shortened(value: str, limit: int = QUOTED_NAMES) -> str:
    """A gene-class value as shown: its classes and the first `limit` names that say them."""
    classes, _, named = value.partition(_SAYS)
    if not named:
        return value
    return classes + _SAYS + _quoted([m.group(1) for m in _NAMED.finditer(named)], limit)


_NAMED = re.compile(r"(?:^|; )((.+?) \((?:full name|other designation|HGNC gene group)\))")


def value_states(asked: AskedClass, value: str) -> bool:
    """Whether a gene-class value (`class_value`) states the asked class (or, negated, does not)."""
    return bool(stating_part(asked, value)) != asked.negated


def stating_part(asked: AskedClass, value: str, limit: int | None = None) -> str:
    """The names of a gene-class value that state the asked class, with where each is from
    ("" when none does): what an answer quotes (the first `limit`, and how many more)."""
    if value.endswith(NO_CLASS):
        return ""
    return _quoted([m.group(1) for m in _NAMED.finditer(value.split(_SAYS, 1)[-1])
                    if stating(asked.gene_class, m.group(2), asked.modifiers)], limit)


def _quoted(names: list[str], limit: int | None) -> str:
    """Names as quoted: the first `limit` (all when None), then how many more."""
    more = len(names) - limit if limit is not None and len(names) > limit else 0
    return "; ".join(names[:limit] if more else names) + (f"; and {more} more" if more else "")
