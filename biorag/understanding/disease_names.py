"""The disease a question names: phrases where a disease goes ("genes related to X", "X:
which gene?", "how does X present?") looked up in the dictionary, a question form's phrase
when no dictionary is given, and a disease named by its eponym alone ("symptoms of
marfan"). A name no dictionary holds only as a near spelling is asked for by the
dictionary's name.
"""

from __future__ import annotations

import re

from biorag.contracts.sources import Lexicon, LexiconHit
from biorag.knowledge.names import disease_key
from biorag.understanding.entity_patterns import ENSEMBL, RSID
from biorag.understanding.lexicon_lookup import safe_lookup
from biorag.understanding.question_model import Entity
from biorag.understanding.question_words import (
    NOT_GENES,
    english_words,
    filler,
    word_list,
    word_map,
    words,
)

#: words that only join or frame the names of one list of phenotypes: never a person's name
_LIST_FRAME = words("list_frame")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_BEFORE_GENES = re.compile(r"((?:[\w'\-]+\s+){1,6})genes?\b", re.I)
_CLAUSE_END = re.compile(r"[?.!;()\[\]]")
_DISEASE_LEAD = re.compile(
    r"\b(?:(?:related|associated|linked|connected|relevant|attributed)\s+(?:to|with)|cause|causes|causing|caused"
    r"|underlie|underlies|underlying|responsible\s+for|implicated\s+in|involved\s+in|mutated\s+in"
    r"|basis\s+of|genes?\s+(?:of|for|in|behind)"
    r"|(?:features?|symptoms?|signs?|phenotypes?|manifestations?|characteristics?|presentation)\s+(?:of|in))\s+", re.I)
_DISEASE_FORMS = [
    re.compile(r"genes? (?:that are |which are |are )?(?:related|associated|linked|connected) (?:to|with) (.+)$", re.I),
    re.compile(r"genes? (?:that |which )?(?:(?:are|is|were|was|being|been) )?(?:cause|causes|underlie|underlying|responsible for|implicated in|involved in|mutated in|behind) (.+)$", re.I),
    re.compile(r"genes? (?:of|for) (.+)$", re.I),
]
_CLOZE_TAIL = re.compile(
    r"(?:\s+(?:is|are|was|were|would be|will be|equals?|include|includes|:|-|\?|\.|!))+\s*$", re.I)
_SPAN_END = re.compile(r"[?.!,;:()\[\]]|\s(?:and|or|in humans|in human|is|are|was|were|-|\u2013|\u2014)\s", re.I)
#: where a name ends when it may hold "and"/"or" ("Developmental and epileptic encephalopathy")
_NAME_END = re.compile(r"[?.!,;:()\[\]]|\s(?:in humans|in human|is|are|was|were|-|\u2013|\u2014)\s", re.I)
_NAME_WORDS = 12
#: where a name written with a catalogue's punctuation ends: a clause's end, never a comma, a
#: dash, a slash or brackets inside it ("Cardiomyopathy, dilated, 1P", "Heart defect - tongue
#: hamartoma - polysyndactyly syndrome", "Mitochondrial DNA depletion syndrome 4A (Alpers
#: type)", "Chromosome 19q13.11 deletion syndrome, distal"); the dictionary's key
#: (`biorag.knowledge.names.disease_key`) ignores that punctuation on both sides
_PUNCTUATED_END = re.compile(r"[?!;\[\]\n]|\.(?=\s|$)|:(?=\s|$)|\s(?:in humans|in human|is|are|was|were)\s", re.I)
_PUNCTUATED_WORDS = 16
#: punctuation that may end a phrase but is no part of a name ("Cardiomyopathy, dilated,")
_EDGE_PUNCTUATION = " ,/-\u2013\u2014('\""
_DICTIONARY_LEAD = re.compile(r"\b(?:with|for|of|in|on|has|have|had|about|from|by|to|behind|and)\s+", re.I)
#: a word that asks the literature ("treat", "drugs against", "risk of"): a name may follow it
#: ("Which drugs are used to treat Marfan syndrome?")
_ASK_LEAD = re.compile(r"\b(?:" + "|".join(sorted({re.escape(c) for cues in word_map("literature_asks").values()
                                                   for c in cues if " " not in c}, key=len, reverse=True))
                       + r")\s+", re.I)
#: where a clause starts: a name may open it ("Currarino syndrome: which gene?")
_CLAUSE_START = re.compile(r"^\s*|[:;?!]\s+|\s[-\u2013\u2014]\s+")
#: a clause's asking words, after which its subject starts: "How does Marfan syndrome
#: present?", "What does X look like?", "Is X inherited?", "Can X be treated?", "How common
#: is X?"
_QUESTION_OPENING = re.compile(
    r"(?:^|[:;?!]\s+)\s*(?:(?:how(?:\s+[a-z]+)?|what|which|when|why|where|who)\s+)?"
    r"(?:does|do|did|is|are|was|were|can|could|would|will|should|may|might)\s+", re.I)
#: a yes/no claim put as a clause ("Could you tell me whether Marfan syndrome is ..."): its
#: subject starts after the conjunction
_CLAIM_CLAUSE = re.compile(r"\b(?:whether|if)\s+", re.I)


def _disease_spans(text: str) -> list[str]:
    """Phrases that may be disease names (a dictionary decides): what follows 'related
    to', 'associated with', 'cause', 'with', 'of', ..., opens a clause, or follows a
    clause's asking words ("how does", "is") (every prefix up to 10 words), and what
    precedes 'gene(s)'."""
    spans: list[str] = []
    leads = sorted([*_DISEASE_LEAD.finditer(text), *_DICTIONARY_LEAD.finditer(text), *_CLAUSE_START.finditer(text),
                    *_QUESTION_OPENING.finditer(text), *_ASK_LEAD.finditer(text), *_CLAIM_CLAUSE.finditer(text)],
                   key=lambda m: m.start())
    for m in leads:
        tail = text[m.end():]
        spans += _punctuated(tail)
        # a name may hold "and"/"or" ("Developmental and epileptic encephalopathy 102"): the
        # phrase up to the clause's end is tried first, its longer prefixes only
        whole = _NAME_END.search(" " + tail + " ")
        whole_words = _ARTICLE.sub("", (tail[: max(0, whole.start() - 1)] if whole else tail).strip()).split()
        end = _SPAN_END.search(" " + tail + " ")
        tail = tail[: max(0, end.start() - 1)] if end else tail
        words = _ARTICLE.sub("", tail.strip()).split()[:10]
        spans += [" ".join(whole_words[:n]) for n in range(min(len(whole_words), _NAME_WORDS), len(words), -1)]
        spans += [" ".join(words[:n]) for n in range(len(words), 0, -1)]
        # a request opens the clause: its words are no part of the name ("explain cystic
        # fibrosis", "what's marfan syndrome", "could you describe Tay-Sachs disease")
        if asking := _asking_words(words):
            rest = _ARTICLE.sub("", " ".join(words[asking:])).split()
            spans += [" ".join(rest[:n]) for n in range(len(rest), 0, -1)]
    for m in _BEFORE_GENES.finditer(text):
        words = m.group(1).split()
        spans += [" ".join(words[i:]) for i in range(len(words))]
    return [s.strip(" '\"") for s in dict.fromkeys(spans) if len(s) >= 3]


def _punctuated(tail: str) -> list[str]:
    """The prefixes, longest first, of the phrase that `tail` opens when a name may hold
    punctuation (`_PUNCTUATED_END`), up to `_PUNCTUATED_WORDS` words, and again without the
    words of a request that opens it ("could you tell me")."""
    end = _PUNCTUATED_END.search(" " + tail + " ")
    words = _ARTICLE.sub("", (tail[: max(0, end.start() - 1)] if end else tail).strip()).split()
    asking = _asking_words(words)
    prefixes = [" ".join(ws[:n]).strip(_EDGE_PUNCTUATION) for ws in (words, words[asking:] if asking else [])
                for n in range(min(len(ws), _PUNCTUATED_WORDS), 0, -1)]
    return [p.rstrip(")") if p.count(")") > p.count("(") else p for p in prefixes]


def _asking_words(words: list[str]) -> int:
    """How many words of a request open a phrase ("could you tell me", "explain"): no part
    of a name. 0 when none, or when every word is one."""
    asking = next((i for i, w in enumerate(words) if not filler(w.lower().replace("'", ""))), len(words))
    return asking if asking < len(words) else 0


def _pattern_disease(text: str) -> str | None:
    for form in _DISEASE_FORMS:
        m = form.search(text)
        if m:
            span = _CLAUSE_END.split(m.group(1))[0]
            span = _CLOZE_TAIL.sub("", span).strip(" '\"")
            span = _ARTICLE.sub("", span)
            if len(span) >= 3 and not RSID.search(span) and not ENSEMBL.search(span):
                return span
    return None


def find_disease(text: str, lexicon: Lexicon | None, symbols: set[str] = frozenset()) -> Entity | None:
    """The disease a question names: what a question form ("genes related to X") puts
    where a disease goes, else the longest phrase the dictionary knows. The dictionary
    also names what a form's phrase means when it knows it."""
    span = _pattern_disease(text)
    if lexicon is None:
        return Entity("disease", span) if span else None
    spans = ([span] if span else []) + _disease_spans(text)
    found: dict[str, list[LexiconHit]] = {}
    for h in safe_lookup(lexicon, spans, ("disease", "phenotype")):
        found.setdefault(h.span.lower(), []).append(h)
    if span and any(_continued(span, c) for c in found):
        spans = spans[1:]  # a name goes on past the form's phrase: each lead's longest first
    for candidate in spans:  # the form's phrase, then the longest first within each lead
        hits = found.get(candidate.lower())
        if hits and (framing := _disease_framing(text, candidate, hits, lexicon)) is not None:
            return framing
        if hits:
            names = {h.canonical.lower(): h.canonical for h in hits}
            if len(names) == 1 and hits[0].how.endswith(_NEAR_NAMES):
                # not the dictionary's name: sources are asked for its name, not the question's words
                return Entity("disease", hits[0].canonical, True, tuple(names.values()), hits[0].how,
                              span=candidate, ident=hits[0].ident)
            return _disease_entity(candidate, hits)
        if candidate == span and span.lower() in symbols:
            continue  # "the target genes of TP53": the form's phrase is a gene's symbol, no disease
        if candidate == span and not any(_extends(span, c) or _continued(span, c) for c in found):
            return _eponym(text, [span], lexicon, symbols) or Entity("disease", span)
    return _eponym(text, spans, lexicon, symbols)


#: a feature set in a disease: "seizures in Dravet syndrome", "aortic aneurysm (occurs) in patients with
#: Marfan syndrome", "seizures are a feature of ..."
_IN_DISEASE = re.compile(r"^(?:\s+[a-z]+){0,3}?\s+(?:in|of)\s+(?:(?:patients|people|children|adults|individuals)\s+with\s+)?(.+)$",
                         re.I)


def _disease_framing(text: str, candidate: str, hits: list[LexiconHit], lexicon: Lexicon) -> Entity | None:
    """The disease a feature is set in ("What causes seizures in Dravet syndrome?"): when the
    phrase found is a feature the dictionary knows and the question goes on "in <disease>",
    the disease is that one, not the feature (which stays the question's feature)."""
    if not any(h.kind == "phenotype" for h in hits):
        return None
    at = text.lower().find(candidate.lower())
    m = _IN_DISEASE.match(text[at + len(candidate):]) if at >= 0 else None
    if m is None:
        return None
    words = re.split(r"[?.!,;:]", m.group(1))[0].split()[:10]
    tails = [" ".join(words[:n]) for n in range(len(words), 0, -1)]
    by_span: dict[str, list[LexiconHit]] = {}
    for h in safe_lookup(lexicon, tails, ("disease",)):
        if h.kind == "disease" and not h.how.endswith(_NEAR_NAMES):
            by_span.setdefault(h.span.lower(), []).append(h)
    return next((_disease_entity(tail, by_span[tail.lower()]) for tail in tails if tail.lower() in by_span), None)


def _disease_entity(span: str, hits: list[LexiconHit]) -> Entity:
    """The disease `span` names, with every current name its hits give (the record's id
    when they are one disease)."""
    names = {h.canonical.lower(): h.canonical for h in hits}
    return Entity("disease", span, True, tuple(names.values()), hits[0].how,
                  ident=hits[0].ident if len(names) == 1 else "")


#: how a dictionary says it matched a name the question did not write (retrievers/stores/lexicon.py)
_NEAR_NAMES = (" misspelt", " other head")
#: what a disease named after a person is called after the name ("Marfan syndrome")
_EPONYM_HEADS = word_list("eponym_heads")


def _eponym(text: str, spans: list[str], lexicon: Lexicon, symbols: set[str]) -> Entity | None:
    """A disease named by its eponym alone ("symptoms of marfan"): a one-word phrase that
    may be a person's name (no ordinary English word unless capitalised, no gene symbol,
    no asking word) names the disease when the dictionary holds exactly one family of
    "<name> syndrome" or "<name> disease" (its catalogue forms included: "Alport syndrome
    1"). When both exist the name is ambiguous: the entity is kept unsure (it routes
    nothing) with every name it may mean, and nothing is guessed."""
    lower_question = not any(c.isupper() for c in text)
    words = [w for w in dict.fromkeys(spans) if re.fullmatch(r"[A-Za-z][a-z]{2,}", w)
             and w.lower() not in NOT_GENES and w.lower() not in symbols and not filler(w.lower()) and w.lower() not in _LIST_FRAME
             and (w.lower() not in english_words() or (w.istitle() and not lower_question))]
    if not words:
        return None
    forms = {f"{w.lower()} {head}": w for w in words for head in _EPONYM_HEADS}
    found: dict[str, list[LexiconHit]] = {}
    for h in safe_lookup(lexicon, list(forms), ("disease",)):
        if h.kind == "disease" and not h.how.endswith(_NEAR_NAMES):  # an eponym's family, spelt as it is
            found.setdefault(h.span.lower(), []).append(h)
    for w in words:
        families = {f: found[f] for f in (f"{w.lower()} {head}" for head in _EPONYM_HEADS) if f in found}
        if not families:
            continue
        names = tuple({h.canonical.lower(): h.canonical for hits in families.values() for h in hits}.values())
        if len(families) == 1:
            [(form, hits)] = families.items()
            return Entity("disease", form, True, names, "eponym", span=w)
        return Entity("disease", w, False, names, "eponym")
    return None


#: words that start the next part of a sentence, not more of a name: a conjunction, an asking
#: word, a verb saying where the genes are ("... for Wilson disease lie, at band level?"), or
#: words around the question ("... for phenylketonuria, for my thesis")
_NEXT_PART = words("next_part")


def _extends(span: str, known: str) -> bool:
    """Whether a question form's phrase is a known name plus at most one more word (the
    form caught a word of the question: "Marfan syndrome map"), or plus the next part of
    the sentence ("Meesmann corneal dystrophy and where is it"); then the name wins."""
    s, k = span.lower(), known.lower()
    if not s.startswith(k) or (len(s) > len(k) and s[len(k)].isalnum()):
        return False
    rest = re.findall(r"[\w'-]+", s[len(k):])
    return len(rest) <= 1 or rest[0] in _NEXT_PART


def _continued(span: str, known: str) -> bool:
    """Whether a known name goes on past a question form's phrase, through the punctuation
    the form stopped at ("Mitochondrial DNA depletion syndrome 4A" of "... 4A (Alpers type)",
    "Inflammatory bowel disease" of "Inflammatory bowel disease (infantile ulcerative
    colitis) 31")."""
    s, k = disease_key(span), disease_key(known)
    return bool(s) and k.startswith(s + " ")
