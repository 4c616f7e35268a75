"""Normalised keys for matching names people type against names in reference files.

`disease_key` is shared by the writer of the disease dictionary (indexing/) and its reader
(the gene store in retrievers/), so a name and a question's span meet on the same key:
case, accents, punctuation, hyphens, possessives and Roman numerals after "type" do not
matter ("Alzheimer's disease" = "alzheimer disease"; "Charcot-Marie-Tooth disease, type IIA"
= "charcot marie tooth disease type 2a"). `name_keys` adds the uninverted form of a
catalogue name with one comma ("Diabetes mellitus, type 2" -> "type 2 diabetes mellitus").
"""

from __future__ import annotations

import re
import unicodedata

from biorag.knowledge.phenotype_names import singular

# "i" and "x" are Roman only after these words (elsewhere "x" is usually the X chromosome)
_ROMAN_AFTER = {"type", "class", "grade", "group", "stage", "factor", "subtype", "complex"}
_POSSESSIVE = re.compile(r"['\u2019`]s\b")
_APOSTROPHE = re.compile(r"['\u2019`]")
_NON_WORD = re.compile(r"[^a-z0-9]+")
# a Roman numeral up to 39, alone or glued to a letter suffix as catalogues write it ("IIA", "XIVb")
_ROMAN_NUMERAL = re.compile(r"^(x{0,3})(ix|iv|v?i{0,3})$")
_ROMAN_LETTER = re.compile(r"^(x{0,3}(?:ix|iv|v?i{0,3}))([a-z])$")
_ROMAN_DIGITS = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9}


def roman_value(token: str, suffix: bool = False) -> str | None:
    """The number a Roman numeral token stands for ("xiv" -> "14"; with `suffix`, a
    numeral glued to one letter too: "iia" -> "2a", the whole token read as a numeral
    first); None when it is no numeral."""
    m = _ROMAN_NUMERAL.match(token)
    if m and token:
        return str(10 * len(m.group(1)) + _ROMAN_DIGITS.get(m.group(2), 0))
    m = _ROMAN_LETTER.match(token) if suffix else None
    if m and m.group(1):
        return roman_value(m.group(1)) + m.group(2)  # type: ignore[operator]
    return None


def _roman(token: str, previous: str) -> str:
    if previous in _ROMAN_AFTER:
        return roman_value(token, suffix=True) or token
    if len(token) > 1 or token == "v":  # "i" and "x" alone: only after the words above
        return roman_value(token) or token
    return token


def disease_key(text: str) -> str:
    """The matching key of a disease or phenotype name ("" for text with no letters/digits)."""
    t = unicodedata.normalize("NFKD", text)
    t = "".join(c for c in t if not unicodedata.combining(c)).lower()
    t = _APOSTROPHE.sub("", _POSSESSIVE.sub("", t))
    tokens = _NON_WORD.sub(" ", t).split()
    out: list[str] = []
    for tok in tokens:
        out.append(_roman(tok, out[-1] if out else ""))
    return " ".join(out)


#: British spellings of medical words and their American forms, which the catalogues use
#: (ClinVar, HPO, MeSH, HGNC): "haemochromatosis", "anaemia", "oesophagus", "tumour"
_BRITISH = [(re.compile(p), a) for p, a in (
    (r"(?<=[a-z])aemi", "emi"),  # anaemia, leukaemia, ischaemia, hypoglycaemia
    (r"haem", "hem"),  # haemoglobin, haemochromatosis, haemophilia
    (r"anaesth", "anesth"), (r"aetiolog", "etiolog"), (r"faec", "fec"),
    (r"\boesoph", "esoph"), (r"\boedem", "edem"), (r"\boestr", "estr"), (r"\bfoet", "fet"),
    (r"coeliac", "celiac"), (r"rrhoea", "rrhea"), (r"\bpaed", "ped"), (r"orthopaed", "orthoped"),
    (r"\b(tum|col|behavi|hum|fav|lab)our", r"\1or"),  # tumour, behaviour
    (r"(?<=al|ar|er|an|on|un)is(ation|ed|ing)\b", r"iz\1"),  # generalised, characterised
    (r"(?<=l)yse(d|s)?\b", r"yze\1"),  # analysed, paralysed
    (r"\b(fib|cent|lit)re(s?)\b", r"\1er\2"), (r"sulph", "sulf"), (r"\bgrey\b", "gray"),
)]


#: substrings every British spelling above contains
_BRITISH_HINT = re.compile(r"ae|oe|our|is(?:ation|ed|ing)|yse|[bt]re|sulph|grey")


def american_spelling(text: str) -> str:
    """`text` (a key: lower case) with British spellings of medical words in their American
    form ("hereditary haemochromatosis" -> "hereditary hemochromatosis")."""
    if not _BRITISH_HINT.search(text):
        return text  # most names: no pattern to try
    for pattern, american in _BRITISH:
        text = pattern.sub(american, text)
    return text


def name_keys(name: str) -> set[str]:
    """Keys a catalogue name is found under: its own key, plus "B A" for a name written
    "A, B" (one comma: the catalogues' inverted order), and the American spelling of each
    ("Barrett oesophagus" is filed as "barrett esophagus")."""
    keys = {disease_key(name)}
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and all(parts):
        keys.add(disease_key(f"{parts[1]} {parts[0]}"))
    keys |= {american_spelling(k) for k in keys}
    keys.discard("")
    return keys


def catalogue_form(key: str, name: str) -> str | None:
    """How a catalogue `name` relates to a family name whose key is `key`: "head" when
    the name is the family name qualified after a comma ("Bile acid malabsorption,
    primary, 1"), "subtype" when it numbers a subtype of it ("Distal renal tubular acidosis
    3, with or without sensorineural hearing loss"), None otherwise (another disease that
    merely starts with the same words)."""
    if not key:
        return None
    parts = [p.strip() for p in name.split(",")]
    if len(parts) > 1 and disease_key(parts[0]) == key:
        return "head"
    return "subtype" if subtype_token(key, name) else None


def subtype_token(key: str, name: str) -> str | None:
    """The number after the family name with key `key` in a catalogue `name` ("3" of
    "Distal renal tubular acidosis 3, with or without ..."), read in the catalogues'
    inverted order too ("Renal tubular acidosis, distal, 4, ..."); None when none follows."""
    parts = [p.strip() for p in name.split(",")]
    readings = [name] + ([", ".join([f"{parts[1]} {parts[0]}", *parts[2:]])] if len(parts) > 2 else [])
    for reading in map(disease_key, readings):
        rest = reading[len(key):].split() if key and reading.startswith(key + " ") else []
        if rest and rest[0][0].isdigit():
            return rest[0]
    return None


def inverted_keys(key: str) -> list[str]:
    """The keys under which a catalogue files the name `key` in inverted order, with its
    first one or two words moved behind ("distal renal tubular acidosis" -> "renal tubular
    acidosis distal"), where its numbered subtypes are found."""
    words = key.split()
    return [" ".join(words[n:] + words[:n]) for n in (1, 2) if len(words) > n + 1]


# ---- looser keys: the same disease as another catalogue words it ------------------------

#: words that carry no identity in a disease name's word set
_FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "and", "with", "in", "to", "or", "for", "by", "type", "form"})
#: one wording for what catalogues say in several (OMIM renamed "mental retardation" to
#: "intellectual disability"; ClinVar says "hearing loss" where OMIM says "deafness")
_PHRASES = (
    (re.compile(r"\bmental retardation\b"), "intellectual disability"),
    (re.compile(r"\bintellectual developmental disorder\b"), "intellectual disability"),
    (re.compile(r"\bhearing (loss|impairment)\b"), "deafness"),
    (re.compile(r"\bcyclical\b"), "cyclic"),
    (re.compile(r"\bdefect\b"), "deficiency"),
    (re.compile(r"\baciduria\b"), "acidemia"),  # "methylmalonic aciduria" = "... acidemia"
    # OMIM's 2020 renaming of the "early infantile epileptic encephalopathy" series
    (re.compile(r"\b(early infantile epileptic encephalopathy|epileptic encephalopathy early infantile)\b"),
     "developmental and epileptic encephalopathy"),
)
#: qualifiers a catalogue adds or leaves out for the same disease (inheritance, origin,
#: "syndrome"/"disease"); left out of the core key
#: (not onset words: "benign familial neonatal seizures 2" and "... infantile ... 2" are two
#: diseases; not "syndromic": "isolated microphthalmia 3" is not "microphthalmia, syndromic
#: 3"; inheritance words are compared apart, see `same_inheritance`)
QUALIFIERS = frozenset({
    "autosomal", "dominant", "recessive", "x", "linked", "familial", "hereditary", "inherited",
    "idiopathic", "isolated", "nonsyndromic", "sensorineural", "neurosensory", "congenital", "primary", "somatic", "sporadic",
    "disease", "syndrome", "disorder", "susceptibility",
})
#: inheritance words two names must not contradict ("deafness, autosomal dominant 27" is
#: not "deafness, autosomal recessive 27")
INHERITANCE = ("dominant", "recessive", "x", "y", "mitochondrial", "somatic")
def _subtype_roman(token: str) -> str:
    """A Roman subtype numeral in the last position of a name (part): "Ic" -> "1c"
    (a bare "x" stays: the X chromosome)."""
    return token if token == "x" else roman_value(token, suffix=True) or token


def word_keys(name: str) -> tuple[str, str]:
    """(words key, core key) of a disease name: its words in any order, so that catalogue
    orders meet ("Cardiomyopathy, dilated, 1AA" = "Dilated cardiomyopathy 1AA",
    "Myasthenic syndrome, congenital, 14" = "Congenital myasthenic syndrome 14"), with "type"
    and function words left out ("Short QT syndrome type 1" = "Short QT syndrome 1"), a
    final Roman subtype as a number ("Pseudohypoparathyroidism Ic" = "... type 1C") and one
    wording for renamed words (`_PHRASES`). The core key also drops `QUALIFIERS`
    ("Autosomal dominant Parkinson disease 4" = "Parkinson disease 4"). Words are singular
    ("malformations" = "malformation"). Keys are the sorted words joined by spaces, numbers
    last in their order; "" when nothing is left."""
    parts = [disease_key(p) for p in name.split(",")]
    tokens: list[str] = []
    for part in parts:
        words = part.split()
        if words:
            words[-1] = _subtype_roman(words[-1])
        tokens += words
    text = american_spelling(" ".join(tokens))  # "tumour", "anaemia", "oesophagus"
    for pattern, repl in _PHRASES:
        text = pattern.sub(repl, text)
    words = [w for w in map(singular, text.split()) if w not in _FUNCTION_WORDS]  # "malformations", "types"
    core = [w for w in words if w not in QUALIFIERS]
    return order_free(words), order_free(core)


def order_free(words: list[str]) -> str:
    """Words sorted, numbers kept in their order after them ("complex II deficiency,
    nuclear type 1" is not "complex I deficiency, nuclear type 2")."""
    return " ".join(sorted(w for w in words if not w[0].isdigit()) + [w for w in words if w[0].isdigit()])


def inheritance_words(name: str) -> set[str]:
    """The inheritance words of a name (`INHERITANCE`; "x" only as in "X-linked")."""
    words = disease_key(name).split()
    out = {w for w in words if w in INHERITANCE and w != "x"}  # "x" alone is often a subtype letter
    if any(a == "x" and b == "linked" for a, b in zip(words, words[1:], strict=False)):
        out.add("x")
    return out


def same_inheritance(a: str, b: str) -> bool:
    """Whether two names of a disease state the same inheritance. "Dominant" counts as
    unstated: a catalogue's unmarked numbered series is the dominant one ("Spinocerebellar
    ataxia 15" is not "autosomal recessive spinocerebellar ataxia 15", but "autosomal
    dominant Parkinson disease 4" is "Parkinson disease 4")."""
    return inheritance_words(a) - {"dominant"} == inheritance_words(b) - {"dominant"}


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def deletions(word: str) -> set[str]:
    """Every string one letter shorter than `word` (a letter left out)."""
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def transpositions(word: str) -> set[str]:
    """Every string with two neighbouring letters of `word` swapped ("hnad" -> "hand", ...)."""
    return {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)}


def one_edit(word: str) -> set[str]:
    """Every string one deletion, swap, substitution or insertion away from `word`."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (deletions(word) | transpositions(word)
            | {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
            | {a + c + b for a, b in splits for c in _LETTERS})
