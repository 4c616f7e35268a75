"""Intent: the answer field a question asks for, and the chain of sources (hops) that
answers it, read after its entities.

The answer field comes from the cue words the *sources* declare (biorag.contracts.sources,
`AnswerField`): the question is normalised (lower case, hyphens as spaces, entity names
blanked out) and the earliest cue wins, so a question, a cloze sentence ("The official
symbol of gene CARD15 is"), an imperative ("Tell me ...") and a fragment ("chromosome of
TP53?") read the same. A misspelt cue word ("chromsome") is read as the one cue word it is
an edit away from. Two questions in one sentence get the first one's field. A field that no
source answers for the question's entities is reached through a field that yields them (the
genes of a SNP, then the gene's function). A gene list that says nothing else asks what its
genes share.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from biorag.contracts.sources import AnswerField, Source, declared_fields
from biorag.knowledge.names import deletions
from biorag.understanding.question_model import Entity, Hop, Intent
from biorag.understanding.question_words import english_words, filler, word_map, words
from biorag.understanding.typed_entities import leftover_words

#: what an entity's name is blanked to before cues are read: its letters are no cue
PLACEHOLDER = " \u220e "
_JOINERS = re.compile(r"[-_/]")
_NOT_CUE_CHARS = re.compile(r"[^\w'\u220e ]")


@dataclass
class _CueIndex:
    pattern: re.Pattern
    by_cue: dict[str, list[tuple[str, AnswerField, bool]]]  # cue -> (source, field, weak)
    decls: list[tuple[str, AnswerField]]
    #: a cue word (5 letters or more) and its one-letter deletions -> the cue words: how a
    #: misspelt word of the question ("chromsome", "ensmbl", "protien") finds its cue word
    near: dict[str, set[str]] = field(default_factory=dict)
    #: the words of every cue (see `field_vocabulary`), made at first use
    vocabulary: frozenset[str] | None = None


_INDEX_CACHE: dict[tuple, _CueIndex] = {}


def _cue_index(decls: list[tuple[str, AnswerField]]) -> _CueIndex:
    cache_key = tuple((s, id(f)) for s, f in decls)
    idx = _INDEX_CACHE.get(cache_key)
    if idx is None:
        by_cue: dict[str, list[tuple[str, AnswerField, bool]]] = {}
        for s, f in decls:
            for cue, weak in [(c, False) for c in f.cues] + [(c, True) for c in f.weak_cues]:
                body = normalise(cue.removesuffix(" $")).strip()
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
        vocabulary = {w for _s, f in decls for c in (*f.cues, *f.weak_cues) for w in normalise(c).split()}
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


def normalise(text: str) -> str:
    """The text as cues are matched in it: lower case, hyphens and slashes as spaces, other
    punctuation dropped, a word read as the cue word it stands for (`same_word`), padded
    with a space at each end."""
    t = text.lower().replace("\u2019", "'")
    t = _NOT_CUE_CHARS.sub(" ", _JOINERS.sub(" ", t))
    return " " + " ".join(_SAME_WORD.get(w, w) for w in t.split()) + " "


def blank_entities(text: str, entities: list[Entity]) -> str:
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
                out += [text[i:j], PLACEHOLDER]
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
NEXT_QUESTION = re.compile(
    r"[?!;]+\s*|,?\s+(?:and|or|also|plus)\s+(?=(?:(?:on|in|at|to|for|from|of|with|by|into)\s+)?"
    r"(?:what|whats|what's|which|where|how|is|are|does|do|its|it's)\b)", re.I)
LEADS_QUESTION = re.compile(r"^\W*(?:(?:and|or|also|plus|so|but)\W+)*(?:(?:on|in|at|to|for|from|of|with|by|into)\W+)?"
                             r"(?:" + "|".join(sorted(_ASKING)) + r")\b", re.I)


def detect_intent(text: str, kinds: set[str], sources: Mapping[str, Source] | None,
                  strong_only: bool = False) -> Intent | None:
    """The field the question asks for (see `_detect_intent`). Two questions in one sentence
    ("Where is FTO, and is it protein coding?"): the first one's field, read from its own
    words, so the answer is never the second question's value standing alone."""
    parts = [p for p in NEXT_QUESTION.split(text) if p.strip()]
    if len(parts) > 1:
        ends = [m.group(0) for m in NEXT_QUESTION.finditer(text)]
        asked = []
        for i, part in enumerate(parts):
            is_question = LEADS_QUESTION.match(part) or (i < len(ends) and "?" in ends[i])
            intent = _detect_intent(part, kinds, sources, strong_only) if is_question else None
            if intent is not None:
                asked.append(intent)
        if len({i.kind for i in asked}) > 1:
            return asked[0]
        if len(asked) == 1 and not any(
                _detect_intent(p, kinds, sources, True) for p in parts if not LEADS_QUESTION.match(p)):
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
    norm = _spelt_as_cues(normalise(text), idx.near)
    matches = _ordered_matches(norm, idx)
    cued = {f.name for cue in matches for _, f, _ in idx.by_cue[cue]}
    # "the <field> of the gene of <SNP>": a strong cue for a field about what a cued link
    # yields is what is asked, wherever it stands; the link is the way there
    # (a link cued only weakly, "What disease is rs334 associated with?", is no way there: the
    # variant's own conditions answer)
    yielded = {f.yields for cue in matches for _, f, weak in idx.by_cue[cue]
               if f.yields and not weak and kinds.intersection(f.about)}
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
            for _s, f, weak in _direct_first(idx.by_cue[cue], kinds, decls):
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


def _direct_first(entries: list[tuple[str, AnswerField, bool]], kinds: set[str],
                  decls: list[tuple[str, AnswerField]]) -> list[tuple[str, AnswerField, bool]]:
    """A cue's fields, those a source answers directly for the question's entities first:
    "what could explain <symptoms>?" asks for the symptoms' genes, not for a gene's card
    reached through them."""
    return sorted(entries, key=lambda e: not any(f.name == e[1].name and kinds.intersection(f.about)
                                                 for _s, f in decls))


def own_record(kinds: set[str], decls: list[tuple[str, AnswerField]]) -> Intent | None:
    """The field answered by default for a question that only names an entity of `kinds`
    ("What is TP53?": the gene's summary; "Marfan syndrome?": the disease's features)."""
    return next((plan(f.name, kinds, [(s, f)]) for s, f in decls if kinds.intersection(f.default_for)), None)


def field_vocabulary(sources: Mapping[str, Source]) -> frozenset[str]:
    """The words by which questions ask the sources for fields (their cue words) and name
    them ("HPO", "OMIM")."""
    decls = [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about]
    idx = _cue_index(decls)
    if idx.vocabulary is None:
        idx.vocabulary = frozenset(w for _s, f in decls for c in (*f.cues, *f.weak_cues)
                                   for w in normalise(c.removesuffix(" $")).split())
    return idx.vocabulary | {w for name in sources for w in normalise(name).split()}


def _most_specific_set_field(blanked: str, kinds: set[str], sources: Mapping[str, Source]) -> Intent | None:
    """Of the fields about a gene list that the question cues, a named one before the one
    answered by default (what the set shares), then the one with the longest cue: "the
    enriched gene ontology term" asks for the GO term, not any enriched term; "what
    pathway do A, B and C have in common" for a pathway."""
    decls = [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about]
    idx = _cue_index(decls)
    cued = [("gene_list" not in f.default_for, len(cue.split()), f)
            for cue in _ordered_matches(_spelt_as_cues(normalise(blanked), idx.near), idx)
            for _s, f, weak in idx.by_cue[cue] if not weak and "gene_list" in f.about]
    if not cued:
        return None
    best = max(rank[:2] for rank in cued)
    return plan(next(f for *rank, f in cued if tuple(rank) == best).name, kinds, decls)


def gene_list_task(blanked: str, kinds: set[str], sources: Mapping[str, Source],
                    intent: Intent | None) -> tuple[Intent | None, bool]:
    """(intent, free text) of a question naming several genes: what they share when it says
    nothing else ("PMS2, MLH1, MSH2, MSH6", "genes: A B C"); the most specific gene-list
    field it cues, also beside a field of a single gene; a field it asks of each gene as
    cued; the literature when it says more and cues nothing ("Does TP53 bind MDM2?")."""
    rest = [w for w in leftover_words(normalise(blanked), PLACEHOLDER.strip()) if not filler(w.replace("'", ""))]
    decls = [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about]
    if not rest:
        return own_record({"gene_list"}, decls), False
    if intent is None:
        return None, True
    # a field of each gene only when no set field is cued ("A, B and C are together involved
    # in": "together" asks for the set, "involved in" is its verb)
    return _most_specific_set_field(blanked, kinds, sources) or intent, False
