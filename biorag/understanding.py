"""Question understanding: which entities a question names, which answer field it asks
for, and the chain of sources (hops) that answers it.

Nothing here is keyed to a phrasing or to a source:

- Entities are found by pattern (rsIDs, Ensembl/Entrez IDs, accessions, sequences) and
  by dictionary: candidate spans of the question (tokens, their hyphen/case variants,
  phrases after "related to", "associated with", ...) are looked up in a `Lexicon` built
  from real data (the local gene store: symbols, aliases, previous symbols, IDs, clone
  names; disease names). Without a lexicon, gene and disease names fall back to patterns.
  A name that several genes share is kept with all its candidates (`Entity.canonical`):
  the answer lists them, nothing picks one. A gene may also be named by its name written
  out (HGNC name, gene_info designations: "the myoglobin gene", "tumour protein p53").
  Typographic quotes are read as plain ones.
- The answer field comes from the cue words the *sources* declare (biorag.sources): the
  question is normalised (lower case, hyphens as spaces, entity names blanked out) and
  the earliest cue wins, so a question, a cloze sentence ("The official symbol of gene
  CARD15 is"), an imperative ("Tell me ...") and a fragment ("chromosome of TP53?") read
  the same. A misspelt cue word ("chromsome") is read as the one cue word it is an edit
  away from. Two questions in one sentence get the first one's field. A field that no source
  answers for the question's entities is reached through a field that yields them (the
  genes of a SNP, then the gene's function).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from biorag.disease_context import context_checks, with_subject
from biorag.disease_names import find_disease
from biorag.entity_patterns import (
    ACCESSION,
    DNA,
    ENSEMBL,
    ENTREZ,
    EXPLICIT_GENE,
    RSID,
    clean_question,
    gene_like,
    name_tokens,
    spelling_variants,
)
from biorag.lexicon_lookup import gene_entity, safe_lookup
from biorag.names import deletions
from biorag.options import split_options
from biorag.organisms import organism_named_in
from biorag.question_model import Analysis, Entity, Hop, Intent
from biorag.question_words import FILLER, NOT_GENES, english_words, word_map, words
from biorag.question_words import filler as filler
from biorag.sources import (
    GENE_IDS,
    NAME_STRENGTH,
    AnswerField,
    Lexicon,
    LexiconHit,
    Source,
    declared_fields,
)
from biorag.typed_entities import Member, excluded_at, gene_members, leftover_words, patient_framed
from biorag.unknown_names import POLITE, symbol_like, unknown_genes

# ---- entity patterns ----------------------------------------------------------------
_JOINERS = re.compile(r"[-_/]")
_NOT_CUE_CHARS = re.compile(r"[^\w'\u220e ]")

#: words that are never gene names in a question (checked case-insensitively)
NOT_GENES = NOT_GENES
#: words that leave a question "bare" (asking about the entity itself: "What is TP53?")
FILLER = FILLER


def find_entities(question: str, lexicon: Lexicon | None = None) -> list[Entity]:
    text = clean_question(question)
    found: list[Entity] = []
    seen: set[tuple[str, str]] = set()

    def add(e: Entity) -> None:
        key = (e.kind, e.text.lower())
        if key not in seen:
            seen.add(key)
            found.append(e)

    for m in DNA.finditer(text):
        add(Entity("sequence", m.group(0).upper()))
    rest = DNA.sub(" ", text)
    for m in RSID.finditer(rest):
        add(Entity("rsid", m.group(0).lower()))
    for m in ENSEMBL.finditer(rest):
        add(Entity("ensembl", m.group(0).upper()))
    for m in ENTREZ.finditer(rest):
        add(Entity("entrez", m.group(1)))
    for m in ACCESSION.finditer(rest):
        add(Entity("accession", m.group(0)))
    if organism := organism_named_in(rest):
        # context, not the subject: it never routes a question on its own; fields about
        # an organism (biorag.sources.AnswerField.about) are read for it
        add(Entity("organism", organism, confident=False))
    rest = ACCESSION.sub(" ", ENTREZ.sub(" ", ENSEMBL.sub(" ", RSID.sub(" ", rest))))
    has_id = any(e.kind in ("rsid", "ensembl", "entrez", "sequence", "accession") for e in found)

    letters = [c for c in rest if c.isalpha()]
    upper_share = sum(c.isupper() for c in letters) / max(1, len(letters))
    lower_question = upper_share > 0.7 or not any(c.isupper() for c in rest[1:])
    scan = rest.lower() if upper_share > 0.7 else rest

    # -- genes: dictionary first, patterns for what the dictionary does not know
    toks = [(t, pos, kind) for t, pos in name_tokens(scan) if (kind := gene_like(t, lower_question))]
    if upper_share > 0.7:
        # read lower-cased, a symbol that is also a word ("APP", "INS") is no gene, unless it
        # stands in a list with genes ("APP, NR3C1, TLR2": `_listed_with_genes`)
        toks = sorted(toks + [(t, pos, "listed") for t, pos in name_tokens(scan)
                              if gene_like(t, lower_question) is None and gene_like(t.upper(), False)],
                      key=lambda t: t[1])
    hits: dict[str, list[LexiconHit]] = {}
    if lexicon is not None and toks:
        spans = [v for t, _, _ in toks for v in spelling_variants(t)]
        for h in safe_lookup(lexicon, spans, ("gene",)):
            hits.setdefault(h.span.lower(), []).append(h)
    explicit = {m.group(1).strip(".-").lower() for f in EXPLICIT_GENE for m in f.finditer(scan)}
    symbols = {span for span, hs in hits.items() if any(h.how in ("symbol", "previous") for h in hs)}
    disease = None if has_id else find_disease(scan, lexicon, symbols)
    in_disease = disease.text.lower() if disease else ""
    token_genes: list[tuple[int, Entity]] = []
    for tok, pos, kind in toks:
        if tok.lower() in in_disease.split():
            continue
        matched = [h for v in spelling_variants(tok) for h in hits.get(v.lower(), [])]
        if kind in ("symbol", "listed"):
            matched = [h for h in matched if h.how == "symbol"]
        if matched and kind == "listed":
            token_genes.append((pos, replace(gene_entity(tok, matched), confident=False, how="pattern")))
        elif matched:
            token_genes.append((pos, gene_entity(tok, matched)))
        elif kind == "any":
            token_genes.append((pos, Entity("gene", tok, confident=tok.lower() in explicit and lexicon is None)))
    # a gene written out by name ("the myoglobin gene") is the question's gene when
    # no gene is named outside it; the symbols inside its words ("p53" in "tumor protein
    # p53") are part of the name. A question naming a gene by its official symbol needs no
    # look-up (nor the loading of the names at the first one)
    by_symbol = any(e.confident and e.how in ("symbol", "gene_id", "ensembl", "hgnc") for _, e in token_genes)
    named = _named_in_full(scan, lexicon) if lexicon is not None and not has_id and not by_symbol else []
    if disease:  # a disease the dictionary knows is that disease, not a gene's old name for it
        named = [n for n in named if n[2].span.lower() not in in_disease]
    inside = {i for start, end, _ in named for i, (pos, _) in enumerate(token_genes) if start <= pos < end}
    if named and not any(e.confident for i, (_, e) in enumerate(token_genes) if i not in inside):
        token_genes = [(start, e) for start, _, e in named] + [g for i, g in enumerate(token_genes) if i not in inside]
        token_genes.sort(key=lambda g: g[0])
        if disease and any(disease.text.lower() in e.span.lower() for _, _, e in named):
            disease = None  # a disease name inside a gene's name is part of that name
    if disease and lexicon is not None:
        token_genes = with_subject(scan, disease, token_genes, lexicon)
    for _, e in _listed_with_genes(scan, token_genes):
        add(e)
    genes = [e for e in found if e.kind == "gene" and e.confident]
    loose = [e for e in found if e.kind == "gene"] if lexicon is None else []
    if len(genes) >= 2 or len(loose) >= 3:  # several genes: the question may be about them as a set
        add(_gene_list(genes if len(genes) >= 2 else loose))
    polar = [] if lexicon is None or has_id else _phenotypes(scan, lexicon, {e.text.lower() for e in found})
    phenotypes = [h for h, _ in polar]
    if disease and phenotypes and disease.text.lower() in {h.span for h in phenotypes} and patient_framed(scan):
        disease = None  # "child with aniridia": a person's feature, not the disease's record
    if phenotypes:
        observed = [h.span for h, excluded in polar if not excluded]
        spans = [h.span for h in phenotypes]
        covered = set(" ".join(spans).split()) | {"and", "or", "with", "plus"}
        if disease and (len(phenotypes) >= 2 or disease.how == "pattern") and set(disease.text.lower().split()) <= covered:
            disease = None  # the "disease" is the phenotypes read as one name
        elif disease and disease.how == "pattern" and len(phenotypes) >= 2 and _phenotype_list(disease.text, covered):
            disease = None  # a list of phenotypes in words around it ("both seizures and ataxia")
        members = tuple(dict.fromkeys(Member(h.canonical, h.ident, excluded) for h, excluded in polar))
        add(Entity("phenotype", ", ".join(observed or spans), True, tuple(dict.fromkeys(h.canonical for h in phenotypes)),
                   phenotypes[0].how, members=members))
    if disease:
        add(disease)
    return found


#: words that only join or frame names of one list of phenotypes ("both A and B", "A together
#: with B", "a phenotype of A as well as B"): no phenotype or disease is named by them
_LIST_FRAME = words("list_frame")


def _phenotype_list(span: str, covered: set[str]) -> bool:
    """Whether a phrase no dictionary knows (a question form's "disease") is a list of the
    phenotypes the dictionary found, framed by words that name nothing: every word is a
    phenotype's, a function word, or a word that joins or frames a list (`_LIST_FRAME`).
    A word that may be part of a name ("absence", "juvenile") keeps the phrase a name."""
    return all(w in covered or w in _LIST_FRAME or w in NOT_GENES or w in FILLER
               for w in re.findall(r"[a-z0-9']+", span.lower().replace("-", " ")))


#: what stands between two names of one list: "KRAS and NRAS", "A, B or C", "A & B", "A/B",
#: "A; B", a line break or a space
_LIST_JOINT = re.compile(r"\s*(?:[,;]\s*(?:and\s+|or\s+)?|[&/]\s*|(?:and|or)\s+)|\s+", re.I)


def _listed_with_genes(scan: str, token_genes: list[tuple[int, Entity]]) -> list[tuple[int, Entity]]:
    """Gene-like names no dictionary knows, listed with a gene it does know ("Where are
    BRCA1 and ZQX99?"), are genes the question asks about too: confident, so that the
    answer reads a value for each of them or says which one has none, and never answers
    for the known gene alone."""
    out = list(token_genes)
    changed = True
    while changed:
        changed = False
        for i, (pos, e) in enumerate(out):
            if e.confident or e.how != "pattern":
                continue
            for j in (i - 1, i + 1):
                if not 0 <= j < len(out) or not out[j][1].confident:
                    continue
                (p1, e1), (p2, _) = sorted([(pos, e), out[j]], key=lambda g: g[0])
                if _LIST_JOINT.fullmatch(scan[p1 + len(e1.span or e1.text):p2]):
                    out[i] = (pos, replace(e, confident=True, how="listed") if e.canonical
                              else Entity("gene", e.text, True, how="unlisted"))
                    changed = True
                    break
    return out


_NAME_WORD = re.compile(r"[A-Za-z0-9]+")
#: words a gene's written-out name never starts or ends with
_NOT_NAME_EDGE = words("not_name_edge")


def _named_in_full(text: str, lexicon: Lexicon) -> list[tuple[int, int, Entity]]:
    """Genes the question names by their name written out ("the myoglobin gene", "fat mass
    and obesity associated", "tumour protein p53"), as (start, end, entity): the longest phrases
    of up to 10 words the gene-name dictionary knows, left to right, not overlapping. A one-
    word name ("leptin") counts only as a current full name next to the word "gene". A name
    several genes share is listed with all of them when it is their current full name, and
    left out when it is only an old name or designation."""
    words = list(_NAME_WORD.finditer(text))
    spans: dict[str, tuple[int, int]] = {}
    for i, first in enumerate(words):
        if first.group(0).lower() in _NOT_NAME_EDGE:
            continue
        for n in range(1, min(10, len(words) - i) + 1):
            last = words[i + n - 1]
            if last.group(0).lower() not in _NOT_NAME_EDGE:
                spans.setdefault(text[first.start():last.end()].lower(), (i, n))
    found: dict[str, list[LexiconHit]] = {}
    for h in safe_lookup(lexicon, list(spans), ("gene_name",)):  # type: ignore[arg-type]
        found.setdefault(h.span, []).append(h)
    taken: set[int] = set()
    out = []
    for span, (i, n) in sorted(spans.items(), key=lambda kv: (-kv[1][1], kv[1][0])):
        hits = found.get(span)
        if not hits or taken.intersection(range(i, i + n)):
            continue
        best = min(NAME_STRENGTH.get(h.how, 3) for h in hits)
        top = [h for h in hits if NAME_STRENGTH.get(h.how, 3) == best]
        symbols = tuple(dict.fromkeys(h.canonical for h in top))
        if n == 1:
            near = {w.group(0).lower() for w in words[max(0, i - 1):i + 2]}
            if best > 0 or not near & {"gene", "genes"} or span in NOT_GENES:
                continue
        if len(symbols) > 1 and best > 0:
            continue
        if top[0].how == "designation head" and not any(c.isdigit() for c in words[i + n - 1].group(0)):
            continue  # a head names one gene by its number ("breast cancer 2"), else it is a phrase
        taken.update(range(i, i + n))
        start, end = words[i].start(), words[i + n - 1].end()
        out.append((start, end, Entity("gene", symbols[0] if len(symbols) == 1 else text[start:end], True,
                                       symbols, top[0].how, span=text[start:end])))
    return sorted(out, key=lambda t: t[0])


def _gene_list(genes: list[Entity]) -> Entity:
    """Several genes as one set: its members are the resolved genes, and its text lists them
    in symbol order, so that no order the question wrote them in matters."""
    members = gene_members(genes)
    resolved = {m.name for m in members}
    unresolved = sorted({e.text for e in genes if len(e.canonical) != 1 and e.text not in resolved})
    return Entity("gene_list", " ".join([m.name for m in members] + unresolved), members=members)


def _phenotypes(text: str, lexicon: Lexicon, skip: set[str]) -> list[tuple[LexiconHit, bool]]:
    """Phenotype names (HPO terms) in the question: the longest phrases of up to six words
    the dictionary knows, left to right, not overlapping, gene names left out; each with
    whether the question says it is absent ("no seizures")."""
    found = list(re.finditer(r"[A-Za-z0-9][\w'\-]*", text))
    words = [m.group(0) for m in found]
    spans = {" ".join(words[i:i + n]).lower(): (i, n) for n in range(6, 0, -1) for i in range(len(words) - n + 1)
             if not any(w.lower() in skip for w in words[i:i + n])}
    hits = {h.span: h for h in safe_lookup(lexicon, list(spans), ("phenotype",)) if h.kind == "phenotype"}
    taken: set[int] = set()
    out = []
    for span, (i, n) in sorted(spans.items(), key=lambda kv: (-kv[1][1], kv[1][0])):
        if span in hits and not taken.intersection(range(i, i + n)):
            taken.update(range(i, i + n))
            out.append((i, hits[span]))
    ordered = sorted(out, key=lambda t: t[0])
    ends = [0] + [found[i + len(h.span.split()) - 1].end() for i, h in ordered]
    return [(h, excluded_at(text, found[i].start(), ends[n])) for n, (i, h) in enumerate(ordered)]


# ---- answer fields ------------------------------------------------------------------
_PLACEHOLDER = " \u220e "


@dataclass
class _CueIndex:
    pattern: re.Pattern
    by_cue: dict[str, list[tuple[str, AnswerField, bool]]]  # cue -> (source, field, weak)
    decls: list[tuple[str, AnswerField]]
    #: a cue word (5 letters or more) and its one-letter deletions -> the cue words: how a
    #: misspelt word of the question ("chromsome", "ensmbl", "protien") finds its cue word
    near: dict[str, set[str]] = field(default_factory=dict)
    #: the words of every cue (see `_field_vocabulary`), made at first use
    vocabulary: frozenset[str] | None = None


_INDEX_CACHE: dict[tuple, _CueIndex] = {}


def _cue_index(decls: list[tuple[str, AnswerField]]) -> _CueIndex:
    cache_key = tuple((s, id(f)) for s, f in decls)
    idx = _INDEX_CACHE.get(cache_key)
    if idx is None:
        by_cue: dict[str, list[tuple[str, AnswerField, bool]]] = {}
        for s, f in decls:
            for cue, weak in [(c, False) for c in f.cues] + [(c, True) for c in f.weak_cues]:
                body = _normalise(cue.removesuffix(" $")).strip()
                # a cue matches its plural too; " $": only at the question's end
                keys = [body + " $"] if cue.endswith(" $") else [body, body + "s", body + "es"]
                for key in keys:
                    if (s, f, weak) not in by_cue.setdefault(key, []):
                        by_cue[key].append((s, f, weak))
        for key in [k for k in by_cue if k.endswith(" $")]:  # at the end, a word is both cues
            by_cue[key] += [e for e in by_cue.get(key[:-2], []) if e not in by_cue[key]]
        cues = sorted((c for c in by_cue if c), key=len, reverse=True)
        alternatives = [re.escape(c[:-2]) + r"(?=\s*$)" if c.endswith(" $") else re.escape(c) for c in cues]
        pattern = re.compile(r"(?<![\w\u220e])(?:" + "|".join(alternatives) + r")(?![\w])") if cues else re.compile(r"(?!x)x")
        vocabulary = {w for _s, f in decls for c in (*f.cues, *f.weak_cues) for w in _normalise(c).split()}
        idx = _CueIndex(pattern, by_cue, decls, _near_words(vocabulary))
        if len(_INDEX_CACHE) > 64:
            _INDEX_CACHE.clear()
        _INDEX_CACHE[cache_key] = idx
    return idx


#: words a question may use for a shorter cue word ("Ensembl gene identifier" asks for the
#: "ensembl gene id"; "what sort of gene" for "what kind of gene"): both cues and questions
#: are read through it
_SAME_WORD = word_map("same_word")
_MIN_TYPO_WORD = 5


def _near_words(vocabulary: set[str]) -> dict[str, set[str]]:
    near: dict[str, set[str]] = {}
    for w in vocabulary:
        if len(w) >= _MIN_TYPO_WORD and w.isalpha():
            for v in {w} | deletions(w):
                near.setdefault(v, set()).add(w)
    return near


def _spelt_as_cues(norm: str, near: dict[str, set[str]]) -> str:
    """The normalised question with each misspelt word read as the one cue word it is one
    edit (a letter left out, added, changed, or two swapped) away from: only a word of 5
    letters or more that is no cue word and no English word, and only when one cue word is
    that near ("chromsome" -> "chromosome"; "genus" stays)."""
    words = norm.split()
    changed = False
    for i, w in enumerate(words):
        if len(w) < _MIN_TYPO_WORD or not w.isalpha() or w in near and w in near[w] or w in english_words():
            continue
        found = set().union(*(near.get(v, ()) for v in {w} | deletions(w)))
        if len(found) == 1:
            words[i] = found.pop()
            changed = True
    return " " + " ".join(words) + " " if changed else norm


def _normalise(text: str) -> str:
    t = text.lower().replace("\u2019", "'")
    t = _NOT_CUE_CHARS.sub(" ", _JOINERS.sub(" ", t))
    return " " + " ".join(_SAME_WORD.get(w, w) for w in t.split()) + " "


def _blank_entities(text: str, entities: list[Entity]) -> str:
    """The text with each whole occurrence of an entity's name (any case) replaced by a
    placeholder (no regular expression per name: compiling one per question costs more
    than understanding the question)."""
    names = {n for e in entities for n in (e.text, e.span) if n}
    for name in sorted(names, key=len, reverse=True):
        low, n, out, i = text.lower(), name.lower(), [], 0
        while (j := low.find(n, i)) >= 0:
            before = text[j - 1] if j else " "
            after = text[j + len(n)] if j + len(n) < len(text) else " "
            if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_-"):
                out += [text[i:j], _PLACEHOLDER]
            else:
                out.append(text[i:j + len(n)])
            i = j + len(n)
        text = "".join(out) + text[i:]
    return text


def plan(name: str, kinds: set[str], decls: list[tuple[str, AnswerField]],
         cued: set[str] | None = None) -> Intent | None:
    """Hops answering field `name` for a question naming entities of `kinds`: one source
    that answers it for those kinds, else a field yielding an entity the answer is about
    (cued fields preferred), then the field."""
    for s, f in decls:
        if f.name == name and kinds.intersection(f.about):
            takes = tuple(k for k in f.about if k in kinds)
            return Intent(name, (Hop(s, f, takes),), f.description)
    links = [(s, f) for s, f in decls if f.yields and kinds.intersection(f.about)]
    links.sort(key=lambda sf: 0 if cued and sf[1].name in cued else 1)
    for s2, f2 in decls:
        if f2.name != name or "free_text" in f2.about:
            continue
        for s1, f1 in links:
            if f1.yields in f2.about and s1 != s2:
                takes = tuple(k for k in f1.about if k in kinds)
                return Intent(name, (Hop(s1, f1, takes), Hop(s2, f2, (f1.yields,), from_previous=True)),
                              f"{f2.description} (via the {f1.description})")
    return None


#: words by which a question asks (a cue right after one of them is what is asked for)
_ASKING = words("asking")


def _ordered_matches(norm: str, idx: _CueIndex) -> list[str]:
    """Cue matches in the order they are tried: asked-for cues (a wh-word or imperative in
    the three words before, or in the cue) first; in a compound of two cues ("gene loci")
    the head, the last one, before its modifier; otherwise left to right."""
    found = []
    for m in idx.pattern.finditer(norm):
        at_end = m.group(0) + " $" in idx.by_cue and not norm[m.end():].strip()
        key = m.group(0) + " $" if at_end or m.group(0) not in idx.by_cue else m.group(0)
        before = norm[: m.start()].split()[-3:]
        asked = bool(_ASKING.intersection(before) or _ASKING.intersection(key.split()[:1]))
        found.append([m.start(), m.end(), key, asked])
    for a, b in zip(found, found[1:], strict=False):
        if norm[a[1]:b[0]].strip() == "":  # adjacent: a modifies b
            a[0], b[0] = b[0], a[0] - 0.5
            b[3] = b[3] or a[3]
    found.sort(key=lambda f: (not f[3], f[0]))
    return [f[2] for f in found]


def _direct_within(cue: str, kinds: set[str], idx: _CueIndex, cued: set[str]) -> Intent | None:
    """A one-hop answer through a cue written inside `cue` ("chromosome" or "location" in
    "chromosome location", a weak cue too), for a question whose own entity answers that
    field directly: asked about a SNP, "chromosome location" is the SNP's chromosome, not
    the band of its gene."""
    words = f" {cue.removesuffix(' $').strip()} "
    inside = [c for c in idx.by_cue if c != cue and c.removesuffix(" $").strip()
              and f" {c.removesuffix(' $').strip()} " in words]
    # the head of the compound first ("position" in "chromosomal position"), then the longer
    inside.sort(key=lambda c: (-words.rfind(f" {c.removesuffix(' $').strip()} "), -len(c)))
    for want_weak in (False, True):  # strong cues first
        for inner in inside:
            for _s, f, weak in idx.by_cue[inner]:
                intent = plan(f.name, kinds, idx.decls, cued) if weak == want_weak else None
                if intent is not None and len(intent.hops) == 1:
                    return intent
    return None


#: where a second question may start: "?", "!", ";", or "and"/"or"/"also" before an asking
#: word, itself perhaps after a preposition (", and on which chromosome?")
_NEXT_QUESTION = re.compile(
    r"[?!;]+\s*|,?\s+(?:and|or|also|plus)\s+(?=(?:(?:on|in|at|to|for|from|of|with|by|into)\s+)?"
    r"(?:what|whats|what's|which|where|how|is|are|does|do|its|it's)\b)", re.I)
_LEADS_QUESTION = re.compile(r"^\W*(?:(?:and|or|also|plus|so|but)\W+)*(?:(?:on|in|at|to|for|from|of|with|by|into)\W+)?"
                             r"(?:" + "|".join(sorted(_ASKING)) + r")\b", re.I)


def detect_intent(text: str, kinds: set[str], sources: Mapping[str, Source] | None,
                  strong_only: bool = False) -> Intent | None:
    """The field the question asks for (see `_detect_intent`). Two questions in one sentence
    ("Where is FTO, and is it protein coding?"): the first one's field, read from its own
    words, so the answer is never the second question's value standing alone."""
    parts = [p for p in _NEXT_QUESTION.split(text) if p.strip()]
    if len(parts) > 1:
        ends = [m.group(0) for m in _NEXT_QUESTION.finditer(text)]
        asked = []
        for i, part in enumerate(parts):
            is_question = _LEADS_QUESTION.match(part) or (i < len(ends) and "?" in ends[i])
            intent = _detect_intent(part, kinds, sources, strong_only) if is_question else None
            if intent is not None:
                asked.append(intent)
        if len({i.kind for i in asked}) > 1:
            return asked[0]
        if len(asked) == 1 and not any(
                _detect_intent(p, kinds, sources, True) for p in parts if not _LEADS_QUESTION.match(p)):
            # one question and words around it that ask nothing ("... map? for my thesis")
            return asked[0]
    return _detect_intent(text, kinds, sources, strong_only)


def _detect_intent(text: str, kinds: set[str], sources: Mapping[str, Source] | None,
                   strong_only: bool = False) -> Intent | None:
    """The field the question asks for: the first strong cue (see `_ordered_matches`) whose
    field can be answered for the question's entities, else the first weak cue, else a
    field answered by default for a question that only names an entity."""
    if not sources or not kinds:
        return None
    decls = [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about]
    idx = _cue_index(decls)
    norm = _spelt_as_cues(_normalise(text), idx.near)
    matches = _ordered_matches(norm, idx)
    cued = {f.name for cue in matches for _, f, _ in idx.by_cue[cue]}
    # "the <field> of the gene of <SNP>": a strong cue for a field about what a cued link
    # yields is what is asked, wherever it stands; the link is the way there
    yielded = {f.yields for cue in matches for _, f, _ in idx.by_cue[cue] if f.yields and kinds.intersection(f.about)}
    # a weak cue counts there when it is the question's first word: "Where is the gene for X?",
    # after every strong cue: "Where do the genes for X map?" asks for their bands
    opening = norm.split()[:1]
    for want_weak in (False, True):
        for cue in matches:
            for _s, f, weak in idx.by_cue[cue]:
                if weak != want_weak or (weak and cue.split() != opening):
                    continue
                if not f.yields and yielded.intersection(f.about):
                    intent = plan(f.name, kinds, decls, cued)
                    if intent is not None:
                        return intent
    own = own_record(kinds, decls)
    for want_weak in (False,) if strong_only else (False, True):
        for cue in matches:
            for _s, f, weak in idx.by_cue[cue]:
                if weak == want_weak:
                    intent = plan(f.name, kinds, decls, cued)
                    if intent is not None and len(intent.hops) > 1:
                        intent = _direct_within(cue, kinds, idx, cued) or intent
                    if intent is not None and weak and own is not None and len(intent.hops) > 1 \
                            and intent.hops[0].field.name not in cued:
                        # a weak cue ("tell me about", "describe") about the entity itself:
                        # its own record, not a field of things the question never named
                        return own
                    if intent is not None:
                        return intent
    # a contraction is read as its letters ("what's" as "whats")
    words = [w for w in (w.replace("'", "") for w in norm.split()) if w and not filler(w) and w != "\u220e"]
    return own if not words and not strong_only else None


def own_record(kinds: set[str], decls: list[tuple[str, AnswerField]]) -> Intent | None:
    """The field answered by default for a question that only names an entity of `kinds`
    ("What is TP53?": the gene's summary; "Marfan syndrome?": the disease's features)."""
    return next((plan(f.name, kinds, [(s, f)]) for s, f in decls if kinds.intersection(f.default_for)), None)


def _field_vocabulary(sources: Mapping[str, Source]) -> frozenset[str]:
    """The words by which questions ask the sources for fields (their cue words) and name
    them ("HPO", "OMIM")."""
    decls = [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about]
    idx = _cue_index(decls)
    if idx.vocabulary is None:
        idx.vocabulary = frozenset(w for _s, f in decls for c in (*f.cues, *f.weak_cues)
                                   for w in _normalise(c.removesuffix(" $")).split())
    return idx.vocabulary | {w for name in sources for w in _normalise(name).split()}


def _field_words_not_genes(core: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> list[Entity]:
    """Entities without the genes named only by an alias that is also a word of the
    sources' field vocabulary ("HPO", an alias of GFER, in "Marfan syndrome HPO terms"),
    when the question without them reads clearly: another entity (a disease, phenotypes)
    and a field about it. Otherwise the alias stays a gene ("Where is HPO?")."""
    if not sources:
        return entities
    vocabulary = _field_vocabulary(sources)
    words = [e for e in entities if e.kind == "gene" and e.how == "alias" and e.text.lower() in vocabulary]
    if not words:
        return entities
    rest = [e for e in entities if e not in words]
    genes = [e for e in rest if e.kind == "gene" and e.confident]
    if len(genes) < 2:
        rest = [e for e in rest if e.kind != "gene_list"]
    kinds = {e.kind for e in rest if e.confident}
    if not kinds - {"organism"}:
        return entities
    blanked = _blank_entities(DNA.sub(_PLACEHOLDER, core), [e for e in rest if e.confident])
    intent = detect_intent(blanked, kinds, sources, strong_only=True)
    if intent is None or "gene" in intent.hops[0].takes:
        return entities
    return rest


def _subject_not_field_words(entities: list[Entity], sources: Mapping[str, Source] | None) -> list[Entity]:
    """Entities without an unsure subject that asks for a field ("What genetic changes
    contribute to Marfan syndrome?": "genetic" asks for the disease's genes)."""
    if not sources:
        return entities
    vocabulary = _field_vocabulary(sources)
    return [e for e in entities if not (e.role == "subject" and not e.confident
                                        and vocabulary.intersection(_normalise(e.text).split()))]


def analyse(question: str, sources: Mapping[str, Source] | None = None, lexicon: Lexicon | None = None) -> Analysis:
    """Entities, answer field and hops of a question, for the given sources' declarations
    (the enabled retrievers; without sources only entities are found). Multiple-choice
    options are split off first: the stem is what is understood."""
    stem, options = split_options(clean_question(question))
    if options:
        options = [replace(o, names=tuple(n for e in find_entities(o.text, lexicon) if e.confident
                                          for n in e.canonical)) for o in options]
    analysis = _analyse(question, stem, sources, lexicon)
    analysis.options = options
    return analysis


def _analyse(question: str, stem: str, sources: Mapping[str, Source] | None, lexicon: Lexicon | None) -> Analysis:
    core = stem
    entities = _field_words_not_genes(core, find_entities(stem, lexicon), sources)
    entities = _subject_not_field_words(entities, sources)
    # names a dictionary or pattern is sure of are blanked out: their letters are no cue
    blanked = _blank_entities(DNA.sub(_PLACEHOLDER, core), [e for e in entities if e.confident or e.role])
    kinds = {e.kind for e in entities if e.confident}
    if any(e.role == "subject" for e in entities):
        # asked about a gene (or an unknown subject) in the context of a disease: the
        # disease frames the question, it is not what the answer is about
        kinds -= {"disease", "phenotype"}
    intent = detect_intent(blanked, kinds, sources)
    if intent is None and sources and any(e.role == "subject" and e.confident for e in entities):
        # "is tau involved in Alzheimer disease?", "FBN1 and Marfan syndrome": the gene's record
        intent = own_record(kinds, [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about])
    unsure = [e for e in entities if not e.confident and e.kind == "gene" and not e.role]
    if intent is None and unsure and len(unsure) <= 2 and not kinds.intersection(GENE_IDS):
        # a gene-like name without dictionary support, in a question that asks for a gene
        # field: take it as the gene
        intent = detect_intent(blanked, kinds | {"gene"}, sources, strong_only=True)
        if intent is not None and "gene" in intent.hops[0].takes:
            entities = [Entity(e.kind, e.text, True, e.canonical, e.how, e.span) if e in unsure else e
                        for e in entities]
        else:
            intent = None
    free_text = False
    if sources and "gene_list" in kinds:
        intent, free_text = _gene_list_task(blanked, kinds, sources, intent)
    if intent is None and sources and kinds - {"organism"} == {"phenotype"}:
        # symptoms and nothing else ("child with aniridia"): the phenotypes' default field
        intent = own_record({"phenotype"}, [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about])
    if intent is not None and sources:
        intent = replace(intent, checks=context_checks(entities, intent, sources))
    unknown = unknown_genes(_unknown_names(core, entities, sources), lexicon) if lexicon is not None else {}
    return Analysis(question=question, core=core, entities=entities, intent=intent, free_text=free_text,
                    unknown=unknown)


def _most_specific_set_field(blanked: str, kinds: set[str], sources: Mapping[str, Source]) -> Intent | None:
    """Of the fields about a gene list that the question cues, the one with the longest cue:
    "the enriched gene ontology term" asks for the GO term, not any enriched term."""
    decls = [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about]
    idx = _cue_index(decls)
    cued = [(len(cue.split()), f) for cue in _ordered_matches(_spelt_as_cues(_normalise(blanked), idx.near), idx)
            for _s, f, weak in idx.by_cue[cue] if not weak and "gene_list" in f.about]
    if not cued:
        return None
    longest = max(n for n, _ in cued)
    return plan(next(f for n, f in cued if n == longest).name, kinds, decls)


def _gene_list_task(blanked: str, kinds: set[str], sources: Mapping[str, Source],
                    intent: Intent | None) -> tuple[Intent | None, bool]:
    """(intent, free text) of a question naming several genes: what they share when it says
    nothing else ("PMS2, MLH1, MSH2, MSH6", "genes: A B C"); the most specific gene-list
    field it cues; a field it asks of each gene as cued; the literature when it says more
    and cues nothing ("Does TP53 bind MDM2?")."""
    rest = [w for w in leftover_words(_normalise(blanked), _PLACEHOLDER.strip()) if not filler(w.replace("'", ""))]
    decls = [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about]
    if not rest:
        return own_record({"gene_list"}, decls), False
    if intent is None:
        return None, True
    if "gene_list" in intent.hops[0].takes:
        return _most_specific_set_field(blanked, kinds, sources) or intent, False
    return intent, False


def _unknown_names(core: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> list[str]:
    """The question's gene-like names no dictionary holds, when it asks a gene's field of them
    and nothing else (see biorag.unknown_names)."""
    if not sources or any(e.confident and e.kind not in ("gene", "organism") for e in entities):
        return []
    genes = [e for e in entities if e.kind == "gene"]
    if not genes or any(e.how != "pattern" or not symbol_like(e.text) for e in genes):
        return []
    blanked = _blank_entities(core, genes)
    # "..., thanks" / "hi, ..." wrap a question without asking anything: read it without them
    bare = " ".join(w for w in blanked.split() if re.sub(r"\W", "", w.lower()) not in POLITE)
    asked = detect_intent(bare, {"gene"}, sources)
    if asked is None or "gene" not in asked.hops[0].takes:
        return []
    if any(asked.kind == f.name for _s, f in declared_fields(sources) if f.default_for) and not (
            any(e.confident for e in genes) or re.search(r"\bgenes?\b", core, re.I)):
        return []  # "What is COVID-19?" names no gene; "What is the FLURBLE1 gene?" does
    allowed = _field_vocabulary(sources) | NOT_GENES | FILLER | POLITE
    words = [w for w in _normalise(blanked).split() if w != "\u220e" and not w.isdigit()]
    return [e.text for e in genes] if all(w in allowed or filler(w) for w in words) else []


