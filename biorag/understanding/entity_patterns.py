"""What a question's names look like without a dictionary: identifiers (rsIDs, Ensembl and
Entrez IDs, RefSeq accessions), DNA sequences, the tokens a gene name may be and whether a
token may be one, and the question cleaned of quotes, boilerplate and a sign-off.
"""

from __future__ import annotations

import re

from biorag.understanding.question_words import NOT_GENES, english_words, words

RSID = re.compile(r"\brs\d{1,12}\b", re.IGNORECASE)
ENSEMBL = re.compile(r"\bENS[A-Z]*G\d{11}(?:\.\d+)?\b", re.IGNORECASE)
ENTREZ = re.compile(
    r"\b(?:ncbi\s+gene\s*id|gene\s*id|entrez(?:\s*gene)?(?:\s*id)?|ncbi\s+gene)\s*(?:number\s*)?[:#]?\s*(\d{1,9})\b",
    re.IGNORECASE)
ACCESSION = re.compile(r"\b(?:[ANXWY][MRPCGTWZ]_\d{5,9}(?:\.\d+)?)\b")
#: a genomic interval: "chr7:5,530,601-5,530,700", "chromosome 7: 5530601 to 5530700"
REGION = re.compile(r"\b(?:chr|chromosome\s*)(\d{1,2}|X|Y|MT?)\s*:\s*(\d[\d,]*)\s*(?:-|\u2013|\u2014|\.\.|to)\s*(\d[\d,]*)\b",
                    re.IGNORECASE)
#: a sentence quoted to be read: in double quotes, or in single quotes up to the last quote
#: that ends it (apostrophes inside: "Alzheimer's"), three words or more
PASSAGE = re.compile(r'"(?P<d>[^"]*?\s[^"]*?\s[^"]+?)"|(?<![\w])\'(?P<s>[^\']*?\s.+\s.+)\'(?=[\s?.!,:;)]|$)')
#: a DNA/RNA sequence: 20 bases or more, or 12 to 19 standing alone (a primer; no word or
#: symbol is 12 nucleotide letters, but a protein sequence may hold such a run), and the
#: blocks of 10 or more that continue it after spaces or line breaks (a sequence pasted
#: wrapped, or in blocks of ten), with a shorter last line of a wrapped one
DNA = re.compile(r"(?:[ACGTUN]{20,}|(?<![A-Za-z])[ACGTUN]{12,19}(?![A-Za-z]))"
                 r"(?:[ \t]*\r?\n?[ \t]*[ACGTUN]{10,}(?![A-Za-z]))*"
                 r"(?:[ \t]*\r?\n[ \t]*[ACGTUN]{1,9}(?=[ \t]*(?:\r?\n|$)))?", re.IGNORECASE)
#: a chromosome or band ("17", "chr17", "17p13.1", "chrX_...", "chrUn"), never a symbol that starts
#: with "chr" (CHRNA2, CHRM1)
_BAND = re.compile(r"^(?:chr)?(?:\d{1,2}|x|y|mt?)(?:[pq]\d*(?:\.\d+)?)?$|^chr(?:\d{1,2}|x|y|mt?|un)(?:[_:].*)?$", re.I)
_TOKEN = re.compile(r"[^\s/,;()\[\]{}\"<>]+")
POSSESSIVE = re.compile(r"['\u2019]s$")
_NUMBER = re.compile(r"\d+(?:\.\d+)?%?")
_VERSION = re.compile(r"\.\d+$")
_BOILERPLATE = re.compile(r"\s*let'?s decompose the question.*$", re.I | re.S)
EXPLICIT_GENE = [  # forms that name a gene without a dictionary
    re.compile(r"\bgenes?\s+(?:symbol\s+|named\s+|called\s+)?([A-Za-z0-9][\w@.\-]*)", re.I),
    re.compile(r"([A-Za-z0-9][\w@.\-]*)\s+genes?\b", re.I),
    re.compile(r"\b(?:symbol|aliases|alias|synonyms|name|chromosome|location|function|type) (?:of|for) (?:the )?([A-Za-z0-9][\w@.\-]*)", re.I),
    re.compile(r"\b(?:is|convert) ([A-Za-z0-9][\w@.\-]*) (?:a|an|to|into)\b", re.I),
]
#: typographic quotes as the plain ones tokens are split at ("\u201cTP53\u201d", "\u00abTP53\u00bb")
_QUOTES = str.maketrans({c: '"' for c in "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2039\u203a\u2033"} | {"\u2018": "'", "\u201a": "'"})
#: a sign-off after the question ("... does thanks!", "..., thank you so much"): no part of what
#: is asked, and it would hide a cue that closes the question ("what X does" asks its function)
_SIGN_OFF = re.compile(r"[\s,;.!\-]*\b(?:thanks|thank you|thx|ty|cheers|please|pls|plz)"
                       r"(?:\s+(?:a lot|so much|very much|in advance))?[\s.!]*$", re.I)


#: a closing sentence that only says how to format the answer ("Answer yes or no.", "List every
#: answer, separated by commas.", "Give up to 5 candidate answers, most likely first."): it
#: asks nothing, and its words would only blur what is searched
_FORMAT_REQUEST = re.compile(
    r"(?:(?<=[?.!:])|(?<=\n))\s*(?:please\s+)?(?:answer|reply|respond|give|list|provide|return|write)\b"
    r"[^?\n]*?\b(?:yes,? or no|yes, no,? or maybe|separated by|comma-separated|commas?|in one word|one word|"
    r"candidate answers?|the letter|most likely first|bullet(?:ed)? list)\b[^?\n]*$", re.I)


#: words by which a question asks for something other than yes or no
_OTHER_ASKS = frozenset({"what", "whats", "which", "where", "when", "who", "whom", "whose", "why", "how", "list",
                         "name", "give", "tell", "show", "find"})


def requests_yes_no(question: str) -> bool:
    """A closing format request asks for yes or no ("Answer yes, no or maybe.") of a question
    put as a claim ("Chronic functional somatic symptoms: a single syndrome?"): it ends in a
    question mark and asks nothing else ("which", "what", "list"...). A format request never
    turns a record question ("Which genes are linked to X?", a bare name) into a claim."""
    m = _FORMAT_REQUEST.search(question)
    if m is None or re.search(r"\byes\b", m.group(0), re.I) is None:
        return False
    asked = _SIGN_OFF.sub("", question[:m.start()].strip()).strip()
    words = set(re.findall(r"[a-z]+", asked.lower().replace("'", "")))
    return asked.endswith("?") and not words & _OTHER_ASKS


def offers_maybe(question: str) -> bool:
    """The closing format request lets "maybe" answer ("Answer yes, no or maybe."): a yes/no
    reading that decides nothing is then that answer, not none."""
    m = _FORMAT_REQUEST.search(question)
    return m is not None and re.search(r"\bmaybe\b", m.group(0), re.I) is not None


#: an opening clause ended by punctuation ("Quick question. ", "please, ", "Could you tell me: ")
_LEAD = re.compile(r"^\s*([A-Za-z' ]+?)\s*(?:[.,:;!]+|\s[-\u2013\u2014])\s+(?=\S)")
_POLITE_LEADS = words("polite_leads")


def clean_question(question: str) -> str:
    """The question with typographic quotes read as plain ones, without the "Let's
    decompose the question" boilerplate, without an opening clause that asks nothing
    ("Quick question.", "please,": `polite_leads`), without a sign-off ("thanks!") and
    without a closing request on the answer's format ("Answer yes or no.")."""
    text = _BOILERPLATE.sub("", question.translate(_QUOTES)).strip()
    if (lead := _LEAD.match(text)) and all(w in _POLITE_LEADS for w in lead.group(1).lower().replace("'", " ").split()):
        text = text[lead.end():]
    text = _SIGN_OFF.sub("", text).strip() or text
    return _FORMAT_REQUEST.sub("", text).strip() or text


def name_tokens(text: str) -> list[tuple[str, int]]:
    """Candidate name tokens with their offsets: whitespace/slash separated, outer
    punctuation and a possessive 's removed."""
    out = []
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        tok = POSSESSIVE.sub("", tok).strip(".:?!'`\u2019\u2018*")
        if tok:
            out.append((tok, m.start() + m.group(0).find(tok[0])))
    return out


def gene_like(tok: str, lower_question: bool) -> str | None:
    """'any': may be any kind of gene name; 'symbol': only an official symbol (a lower-case
    word in a lower-case question, or a title-case word, that is no ordinary English
    word); None: not a gene name."""
    low = tok.lower()
    if len(tok) < 2 or low in NOT_GENES or RSID.fullmatch(tok) or ENSEMBL.fullmatch(tok) or _BAND.match(tok):
        return None
    if tok.isdigit() or _NUMBER.fullmatch(tok) or not tok[0].isalnum():
        return None
    if "-" in tok and all(p.isalpha() and (p.istitle() or p.islower()) for p in tok.split("-")):
        # hyphenated words (Swiss-Prot, Charcot-Marie-Tooth); in a lower-case question an
        # official symbol may be written so ("hla-doa"): only a symbol then
        return "symbol" if lower_question and tok.islower() and len(tok) >= 4 else None
    if any(c.isdigit() for c in tok) or tok.isupper() or any(c.isupper() for c in tok[1:]):
        return "any"
    if (lower_question or tok.istitle()) and len(tok) >= 3 and tok.isalpha() and low not in english_words():
        return "symbol"  # "fto" in a lower-case question, "Fto" (a mouse-style spelling) anywhere
    return None


def spelling_variants(tok: str) -> list[str]:
    """The token, and the token without its hyphens or its dots (a version suffix keeps its
    dot): "CARD-15" is looked up as "CARD15" too."""
    out = [tok]
    if "-" in tok:
        out.append(tok.replace("-", ""))
    if "." in tok and not _VERSION.search(tok):
        out.append(tok.replace(".", ""))
    return out
