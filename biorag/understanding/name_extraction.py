"""Gene and protein names in a given sentence, as written: the answer to "the gene and
protein names in the sentence '...'", or none ("No gene").

Names are found in the gene dictionaries the lexicon holds (official symbols, previous
symbols, aliases; full names and designations written out), then kept or dropped by the
rules question understanding uses for names, applied to running text:

- an official or previous symbol counts unless it reads as something else: an ordinary
  English word written in lower case ("was", "can"), a word of the question-word lists that
  are never genes (units, techniques, cell types: `not_genes`), a number or Roman numeral;
- an alias (a name another gene does not hold as its symbol) counts only when written as a
  symbol is (upper case with a letter and a digit or hyphen, "PS1", "GSK-3beta"), or when it
  is written beside a word that says it is a gene or protein ("the tau protein", "tlr4
  gene", "Ki67-positive");
- a short all-capital name without a digit (2-3 letters: "AD", "CSF", "HR") is mostly an
  abbreviation of something else in running text: it counts only beside such a word, or
  when the sentence also spells the gene's name out;
- a name the disease dictionary holds ("AD", "ALS") is a disease, not a gene;
- full names count as written ("amyloid precursor protein", "apolipoprotein E").

Greek letters are read as their names (Aβ = Abeta, TNF-α = TNF-alpha), and a trailing
residue or isoform number after a Greek letter or a name is kept with the name as written
("Aβ42").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from biorag.contracts.sources import Lexicon
from biorag.knowledge.initialisms import GREEK_LETTERS
from biorag.understanding.question_words import NOT_GENES, english_words

_TOKEN = re.compile(r"[\w\u0370-\u03ff][\w\u0370-\u03ff\-/.'()]*[\w\u0370-\u03ff)]|[\w\u0370-\u03ff]")
_EDGE = ".,;:!?'\"[]{}"
#: words beside a name that say it names a gene or its product
_GENE_WORDS = frozenset({
    "gene", "genes", "protein", "proteins", "mrna", "mrnas", "transcript", "transcripts", "expression",
    "expressed", "expressing", "knockout", "knockdown", "null", "deficient", "deficiency", "mutation", "mutations",
    "mutant", "mutants", "allele", "alleles", "locus", "isoform", "isoforms", "promoter", "immunoreactivity",
    "immunoreactive", "ir", "transgene", "peptide", "peptides", "cleavage", "phosphorylation", "phosphorylated",
    "polymorphism", "polymorphisms", "encoding", "encodes", "encoded", "homolog", "ortholog", "subunit",
    "positive", "carriers", "haplotype", "haplotypes", "genotype", "kinase", "kinases", "receptor",
})
_ROMAN = re.compile(r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.I)
_SYMBOLISH = re.compile(r"^(?=.*[A-Z])(?=.*[\d\-])[A-Za-z0-9\-]+$")
_MAX_NAME_WORDS = 6


def _plain(text: str) -> str:
    """Greek letters as their names: how the dictionaries spell them."""
    return "".join(GREEK_LETTERS.get(c, c) for c in text)


def _tokens(sentence: str) -> list[tuple[str, int]]:
    out = []
    for m in _TOKEN.finditer(sentence):
        tok, start = m.group(0), m.start()
        while tok and tok[0] in _EDGE + "(":
            tok, start = tok[1:], start + 1
        while tok and (tok[-1] in _EDGE or (tok[-1] == ")" and tok.count("(") < tok.count(")"))):
            tok = tok[:-1]
        tok = re.sub(r"'s$", "", tok)
        if tok:
            out.append((tok, start))
    return out


def _forms(tok: str) -> list[str]:
    """Spellings of a token to look up: as written, Greek spelt out, without a
    parenthesised or trailing residue number ("Abeta(42)", "Abeta42", "tau199")."""
    plain = _plain(tok)
    forms = [tok, plain, re.sub(r"\(\d+\)$", "", plain)]
    m = re.match(r"^(.*?[a-z])\d{2,3}$", forms[-1])
    if m and len(m.group(1)) >= 3:
        forms.append(m.group(1))
    if re.fullmatch(r"[A-Za-z]{2,}-\d{1,3}[A-Za-z]?", tok):
        forms.append(tok.replace("-", ""))  # "MAP-1B" is MAP1B
    return list(dict.fromkeys(f for f in forms if f))


def _pieces(tok: str, start: int) -> list[tuple[str, int]]:
    """The token, or its parts where it joins names: "BRI2/ITM2b" -> BRI2, ITM2b;
    "Abeta-induced" -> Abeta, induced; "phospho-tau199" -> phospho, tau199. A lower-case
    word is split only at "/" ("follow-up" stays whole); "PAR-1", "IL-6" stay whole."""
    out: list[tuple[str, int]] = []
    offset = 0
    for part in tok.split("/"):
        at = start + offset
        offset += len(part) + 1
        if not part:
            continue
        bits = part.split("-")
        if len(bits) == 1 or not re.search(r"[A-Z\d\u0370-\u03ff]", part) or (
                len(bits) == 2 and re.fullmatch(r"[A-Za-z]{1,6}", bits[1]) and bits[1][:1].isupper()
                or len(bits) == 2 and re.fullmatch(r"\d{1,3}[A-Za-z]?", bits[1])):
            out.append((part, at))  # "PAR-1", "IL-6", "MAP-1B", "GSK-3beta"-like joins stay one name
            continue
        pos = 0
        for bit in bits:
            if bit:
                out.append((bit, at + pos))
            pos += len(bit) + 1
    return out


def _near_gene_word(words: list[str], i: int) -> bool:
    around = [w.lower() for w in words[max(0, i - 2):i] + words[i + 1:i + 3]]
    own = words[i].lower()
    return bool(_GENE_WORDS.intersection(around)) or any(own.endswith("-" + w) for w in _GENE_WORDS)


def gene_mentions(sentence: str, lexicon: Lexicon | None) -> list[str]:
    """The gene and protein names in `sentence`, as written, in order, each once
    (case-insensitively); [] when it names none (see the module docstring)."""
    return [text for text, _symbols in named_genes(sentence, lexicon)]


def named_genes(sentence: str, lexicon: Lexicon | None) -> list[tuple[str, tuple[str, ...]]]:
    """`gene_mentions` with what each name may mean: (the name as written, the official
    symbols of the genes it names, a symbol it is written as first)."""
    if lexicon is None or not sentence.strip():
        return []
    toks = _tokens(sentence)
    words = [t for t, _ in toks]
    spans = list(dict.fromkeys(f for t, at in toks for piece, _a in [(t, at), *_pieces(t, at)] for f in _forms(piece)))
    hits = lexicon.lookup_spans(spans, ("gene",))
    by_span: dict[str, list] = {}
    for h in hits:
        by_span.setdefault(h.span.lower(), []).append(h)
    diseases = {h.span.lower() for h in lexicon.lookup_spans(words, ("disease",))}
    full = _full_names(toks, sentence, lexicon)
    spelled = {c.lower() for _s, _e, _t, canon in full for c in canon}
    found: list[tuple[int, str, tuple[str, ...]]] = [(s, text, canon) for s, _e, text, canon in full]
    covered = [(s, e) for s, e, _t, _c in full]
    for i, (tok, start) in enumerate(toks):
        if any(s <= start < e for s, e in covered):
            continue
        # a hyphenated token the dictionary holds whole is one name ("MFG-E8"), else its parts
        parts = _pieces(tok, start)
        for pieces in ([(tok, start)], parts) if len(parts) > 1 else (parts,):
            kept = [(at, piece, _symbols(matched)) for piece, at in pieces
                    if (matched := _matched(piece, by_span)) is not None
                    and _keep(piece, matched[0], matched[1], words, i, diseases, spelled)]
            if kept or len(pieces) > 1:
                found += kept
                break
    # an abbreviation in brackets right after a name found: the same gene ("vitamin D receptor (VDR)")
    for _s, text, canon in list(found):
        for m in re.finditer(re.escape(text) + r"\s*\(([^()\s,;]{2,15})\)", sentence):
            if not any(t == m.group(1) for _p, t, _c in found):
                found.append((m.start(1), m.group(1), canon))
    found.sort()
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for _s, text, canon in found:
        out.setdefault(text.lower(), (text, canon))
    return list(out.values())


def _matched(piece: str, by_span: dict[str, list]) -> tuple[str, list] | None:
    """(the spelling found, its dictionary entries) of a token, or None."""
    return next(((f, by_span[f.lower()]) for f in _forms(piece) if f.lower() in by_span), None)


def _symbols(matched: tuple[str, list]) -> tuple[str, ...]:
    """The official symbols a name may mean, the one it is written as first."""
    form, entry = matched
    own = [h.canonical for h in entry if h.how == "symbol" and h.canonical.lower() == form.lower()]
    return tuple(dict.fromkeys(own + [h.canonical for h in entry]))


def _keep(tok: str, form: str, entry: Sequence, words: list[str], i: int, diseases: set[str],
          spelled: set[str]) -> bool:
    low = form.lower()
    if not re.search(r"[A-Za-z\u0370-\u03ff]", tok) or tok.lower() in diseases or low in diseases:
        return False
    if low.isdigit() or _ROMAN.match(low) or len(low) < 2 or low in NOT_GENES:
        return False
    # the dictionary writes the name exactly so ("tau", "PrP", "apoE")
    exact = any(h.name in (form, _plain(tok)) for h in entry)
    beside = _near_gene_word(words, i)
    if tok.islower():
        # lower case: a name the dictionary writes in lower case, a symbol with a digit ("tlr4"),
        # an official symbol, or a word said to be a gene; never an English word the
        # dictionary writes otherwise
        if low in english_words() and not exact:
            return False
        # labs write some symbols in lower case ("furin", "cdk5"): an official symbol that is
        # no English word counts too
        return exact or bool(re.search(r"\d", tok)) or beside or any(h.how == "symbol" for h in entry)
    if not exact and tok not in (tok.upper(), tok.title()) and not re.match(r"^[a-z]{2,}[A-Z]|^[A-Z][A-Z0-9]*\d[a-z]$", tok):
        return False  # mixed case the dictionary does not write ("mAD", "PrD", "PTMs")
    if re.fullmatch(r"[A-Z]{2,3}", tok) and not (len(tok) == 3 and any(h.how == "symbol" for h in entry)):
        # short capitals that are no three-letter official symbol are mostly abbreviations
        # of other things ("CSF", "ER"): a gene only when said to be one, or when the
        # sentence spells its name out
        return beside or bool(spelled.intersection(h.canonical.lower() for h in entry))
    if any(h.how in ("symbol", "previous") for h in entry):
        return True
    # an alias: written as symbols are (a capital and a digit or hyphen), or as no English word
    return bool(_SYMBOLISH.match(_plain(tok))) or beside or (low not in english_words() and len(low) >= 4)


def _name_word(tok: str) -> bool:
    """A single word that may be a protein's name written out ("huntingtin", "ataxin-2"):
    five letters or more, no English word, no symbol-like capitals."""
    word = _plain(tok)
    return (len(re.sub(r"[^a-z]", "", word.lower())) >= 5 and word[:1].isalpha() and word[1:].lower() == word[1:]
            and word.lower() not in english_words())


def _full_names(toks: list[tuple[str, int]], sentence: str, lexicon: Lexicon) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """(start, end, text as written, canonical symbols) of genes named in full, longest first,
    not overlapping."""
    spans: dict[str, tuple[int, int]] = {}
    for i in range(len(toks)):
        for n in range(1, _MAX_NAME_WORDS + 1):
            if i + n > len(toks):
                break
            if n == 1 and not _name_word(toks[i][0]):
                continue
            start = toks[i][1]
            end = toks[i + n - 1][1] + len(toks[i + n - 1][0])
            text = sentence[start:end]
            spans.setdefault(" ".join(re.sub(r"[^a-z0-9]+", " ", _plain(text).lower()).split()), (start, end))
    if not spans:
        return []
    hits = [h for h in lexicon.lookup_spans(list(spans), ("gene_name",)) if h.how == "full_name"
            or h.how == "designation"]
    chosen: list[tuple[int, int, str, tuple[str, ...]]] = []
    for h in sorted((h for h in hits if h.span.lower() in spans),
                    key=lambda h: spans[h.span.lower()][0] - spans[h.span.lower()][1]):
        s, e = spans[h.span.lower()]
        if any(not (e <= cs or s >= ce) for cs, ce, _t, _c in chosen):
            continue
        chosen.append((s, e, sentence[s:e], (h.canonical,)))
    return chosen
