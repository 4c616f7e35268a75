"""A patient's features listed in words ("A patient presents with A, B and C. Which gene is
most likely responsible?", "Candidate genes for a patient with: A; B; C").

Entity linking reads names one kind at a time, and a feature list trips it in three ways:

- a gene symbol written inside a feature's name ("Decreased circulating IgA concentration",
  "Elevated CSF lactate") is taken for a gene, and the feature is then not looked up;
- a feature that is also a disease's name ("Dilated cardiomyopathy", "Chronic kidney
  disease"), or a phrase a question form reads as a disease ("patient with: Coma"), becomes
  the question's disease, and the question asks for that disease's genes;
- the features' own words ("disease", "disorder", "syndrome", "chromosome") are read as the
  field asked, because a list of names is not blanked out as one name is.

`read_feature_list` re-reads a question that lists two or more phenotypes: the dictionary's
phenotype names win over the gene symbols written inside them (as a disease's name does),
a disease named inside the list is one of the features, and the features' names as written
are returned so that the intent is read from the words around them. A question naming one
phenotype, or none, is left as entity linking read it ("Which gene causes dilated
cardiomyopathy?" stays a disease question).
"""

from __future__ import annotations

import re
from dataclasses import replace

from biorag.contracts.sources import Lexicon
from biorag.understanding.entity_linking import _gene_list, _phenotypes
from biorag.understanding.entity_patterns import clean_question
from biorag.understanding.feature_qualifiers import QUALIFIER_WORDS, read_qualifiers
from biorag.understanding.question_model import Entity
from biorag.understanding.typed_entities import Member
from biorag.understanding.unmatched_features import unmatched_items

#: a word as the phenotype dictionary look-up splits the question (biorag.understanding.entity_linking)
_WORD = re.compile(r"[A-Za-z0-9][\w'\-]*")
#: kinds whose presence means the question is about an identifier or a sequence: entity
#: linking looks no phenotype up there, and neither does this
_ID_KINDS = {"sequence", "rsid", "ensembl", "entrez", "accession"}
#: words that make a list item a question rather than a feature
_QUESTION_WORDS = {"which", "what", "who", "how", "why", "when", "where", "does", "do", "is", "are", "can", "could"}


def read_feature_list(stem: str, entities: list[Entity],
                      lexicon: Lexicon | None) -> tuple[list[Entity], list[Entity]]:
    """(entities, the features' names as written) for a question listing two or more
    phenotypes; `entities` and no names otherwise. The names are entities to blank out
    before the answer field is read."""
    if lexicon is None or any(e.kind in _ID_KINDS for e in entities):
        return entities, []
    text = clean_question(stem)
    genes = [e for e in entities if e.kind == "gene"]
    features = _located(text, lexicon, {g.text.lower() for g in genes if g.confident})
    qualifiers = read_qualifiers(text, [(start, end) for start, end, _h, excluded in features if not excluded])
    if len(features) < 2:
        return _qualified(entities, *qualifiers) if features else entities, []
    ranges = [(start, end) for start, end, _h, _x in features]
    lists = _lists(text, ranges)
    # a symbol inside a feature's name ("Decreased circulating IgA concentration"), or among
    # other words of a later item of the list that holds no known feature (a feature the
    # dictionary does not hold: "Reduced MHC II cell surface expression") is a word of that
    # feature's name, unless the list holds genes ("... point to SCN1A or KCNQ2"); so is a
    # gene's alias beside a known feature ("Retinal thinning on OCT")
    later = [(s, e) for items in lists if not _names_a_gene(text, items, genes) for s, e in items[1:]]
    unknown = [(s, e) for s, e in later if not any(s <= a < e for a, _b in ranges)]
    inside = [g for g in genes if _only_inside(text, g.span or g.text, ranges, later if g.how == "alias" else unknown)]
    kept = [e for e in entities if e.kind not in ("gene", "gene_list", "phenotype", "disease") or
            (e.kind == "gene" and e not in inside)]
    listed = [e for e in kept if e.kind == "gene" and e.confident]
    if len(listed) >= 2:
        kept.append(_gene_list(listed))
    unmatched = unmatched_items(text, lists, ranges, {(g.span or g.text).lower() for g in genes})
    kept.append(_feature_entity(features, unmatched, *qualifiers))
    kept += [d for d in entities if d.kind == "disease" and not _listed_disease(text, d, lists)
             and not _made_of_features(text, d, ranges)]
    # in a list of features (two or more of its items hold one), a later item that holds none
    # and asks nothing is a feature no term matched: its words ask nothing ("antibody response
    # to tetanus vaccine" asks about no response or vaccine). Items holding a feature keep their
    # other words ("survival in D with F" asks about survival)
    names = [Entity("phenotype", text[start:end]) for start, end in ranges]
    names += [Entity("phenotype", text[s:e].strip()) for items in lists if _of_features(items, ranges)
              for s, e in items[1:] if _unread_feature(text[s:e], s, e, ranges)]
    return kept, names


def _of_features(items: list[tuple[int, int]], ranges: list[tuple[int, int]]) -> bool:
    """Whether two or more items of a list hold a matched feature."""
    return sum(any(s <= a < e for a, _b in ranges) for s, e in items) >= 2


def _unread_feature(item: str, start: int, end: int, ranges: list[tuple[int, int]]) -> bool:
    """An item of a feature list that holds no matched feature and no question word."""
    return (bool(item.strip()) and not any(start <= a < end for a, _b in ranges)
            and not set(_WORD.findall(item.lower())) & _QUESTION_WORDS)


def _located(text: str, lexicon: Lexicon, genes: set[str]) -> list[tuple[int, int, object, bool]]:
    """The phenotypes of `text` as (start, end, hit, excluded), gene symbols inside a
    longer name counted as the name's words. A one-word name that is also a gene a
    dictionary knows stays the gene, as entity linking reads it."""
    words = list(_WORD.finditer(text))
    lowered = [w.group(0).lower() for w in words]
    out = []
    at = 0
    # a name never runs across a semicolon ("Global developmental delay; Moderate ..." is
    # not "Global developmental delay, moderate"); a comma may stand inside one
    pieces = [m for m in re.finditer(r"[^;]+", text)]
    hits = [(m.start(), h, x) for m in pieces for h, x in _phenotypes(m.group(0), lexicon, set())]
    for offset, hit, excluded in hits:
        span = hit.span.split()
        i = next((i for i in range(at, len(words) - len(span) + 1)
                  if lowered[i:i + len(span)] == span and words[i].start() >= offset), None)
        if i is None:
            continue
        at = i + len(span)
        if len(span) == 1 and span[0] in genes:
            continue
        out.append((words[i].start(), words[i + len(span) - 1].end(), hit, excluded))
    return out


def _occurrences(text: str, name: str) -> list[tuple[int, int]]:
    """Where `name` stands in `text` as whole words (any case; "thyroid peroxidase" stands
    in "Anti-thyroid peroxidase antibody positivity")."""
    pattern = r"(?<![A-Za-z0-9])" + re.escape(name) + r"(?![A-Za-z0-9])"
    return [m.span() for m in re.finditer(pattern, text, re.I)]


def _only_inside(text: str, name: str, names: list[tuple[int, int]], items: list[tuple[int, int]]) -> bool:
    """Whether `name` stands in the text only inside the features' names, or among other
    words of the given list items (an item that is only a gene's name names the gene)."""
    def within(a: int, b: int) -> bool:
        return (any(s <= a and b <= e for s, e in names)
                or any(s <= a and b <= e and text[s:e].strip(" .") != text[a:b] for s, e in items))
    spots = _occurrences(text, name)
    return bool(spots) and all(within(a, b) for a, b in spots)


#: what joins the items of one list ("A, B and C", "A; B; C")
_ITEM_JOINT = re.compile(r"\s*[,;]\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+", re.I)
#: what ends a list: a sentence's end, a colon ("a patient with: A; B")
_LIST_END = re.compile(r"\s*(?:[.?!:]+(?=\s|$)|\n)\s*")


def _lists(text: str, ranges: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The lists of items the features stand in, each as its items' (start, end): runs of
    two or more pieces of text joined by commas, semicolons, "and" or "or" (not those inside
    a feature's name: "Delayed speech and language development"), with a feature among them.
    The first item may hold the words that lead into the list ("presents with A")."""
    def inside(a: int) -> bool:
        return any(s <= a < e for s, e in ranges)
    cuts = sorted([(m.start(), m.end(), True) for m in _ITEM_JOINT.finditer(text) if not inside(m.start())] +
                  [(m.start(), m.end(), False) for m in _LIST_END.finditer(text) if not inside(m.start())])
    runs, run, at = [], [], 0
    for a, b, joint in cuts + [(len(text), len(text), False)]:
        if a < at:
            continue
        if a > at:
            run.append((at, a))
        if not joint:
            runs.append(run)
            run = []
        at = b
    return [r for r in runs if len(r) >= 2 and any(s <= fs < e for s, e in r for fs, _fe in ranges)]


def _names_a_gene(text: str, items: list[tuple[int, int]], genes: list[Entity]) -> bool:
    """Whether an item of the list is a gene's name alone ("... point to SCN1A or KCNQ2"):
    the list holds genes, and the words of its items are not read as features' names."""
    names = {(g.span or g.text).lower() for g in genes}
    return any(text[s:e].strip(" .?!").lower() in names for s, e in items)


def _listed_disease(text: str, disease: Entity, lists: list[list[tuple[int, int]]]) -> bool:
    """Whether a disease is one of the listed features: a dictionary name that is an item of
    a feature list (the whole of a middle item, the end of the first one, the start of the
    last one, or inside a middle one: "antibody response to tetanus vaccine"), or a phrase
    read by pattern (no dictionary knows it as a disease) that runs into one item of a list
    ("patient with: Coma")."""
    spots = _occurrences(text, disease.span or disease.text)
    if disease.how == "pattern":
        # within one item; a phrase across items ("juvenile seizures and ataxia") is entity
        # linking's to read
        return not spots or any(sum(a < e and b > s for s, e in items) == 1 for a, b in spots for items in lists)
    for items in lists:
        for n, (s, e) in enumerate(items):
            for a, b in spots:
                if s <= a and b <= e and (n > 0 or b == e) and (n < len(items) - 1 or a == s):
                    return True
    return False


def _made_of_features(text: str, disease: Entity, ranges: list[tuple[int, int]]) -> bool:
    """Whether a disease read by pattern (no dictionary knows it) is a phrase that holds two
    or more of the matched features and is the presentation itself: joined by words that join
    no list ("genes for early-onset progressive ataxia with severe hearing loss"), or made of
    the features, list words and qualifiers alone ("congenital nyctalopia and optic disc
    pallor", "juvenile seizures and ataxia": the qualifier is read as the onset,
    biorag.understanding.feature_qualifiers). A phrase that holds other words beside a list
    ("juvenile onset Huntington seizures and ataxia") stays entity linking's reading."""
    if disease.how != "pattern":
        return False
    for a, b in _occurrences(text, disease.span or disease.text):
        inside = [(s, e) for s, e in ranges if a <= s and e <= b]
        joints = [m.start() for m in _ITEM_JOINT.finditer(text, a, b)
                  if not any(s <= m.start() < e for s, e in ranges)]
        rest = {w.group(0).lower() for w in _WORD.finditer(text, a, b)
                if not any(s <= w.start() < e for s, e in inside)}
        if len(inside) >= 2 and (not joints or all(w in QUALIFIER_WORDS or w in _LIST_WORDS for w in _hyphen_parts(rest))):
            return True
    return False


#: the words that join a list's items
_LIST_WORDS = {"and", "or"}


def _hyphen_parts(words: set[str]) -> set[str]:
    """Words split at hyphens ("early-onset": "early", "onset")."""
    return {p for w in words for p in w.split("-") if p}


def _feature_entity(features: list[tuple[int, int, object, bool]], unmatched: list[str] = (),
                    onset: Member | None = None, unused: list[str] = ()) -> Entity:
    """The symptom list as entity linking writes it: the observed names, the HPO terms
    with their polarity as members, the listed features no term matched (members with
    no HP id, `biorag.understanding.unmatched_features`), then the onset its words give
    and the qualifiers not used (`biorag.understanding.feature_qualifiers`)."""
    hits = [h for _s, _e, h, _x in features]
    observed = [h.span for _s, _e, h, excluded in features if not excluded]
    members = tuple(dict.fromkeys([*(Member(h.canonical, h.ident, x) for _s, _e, h, x in features),
                                   *(Member(name) for name in unmatched), *_qualifier_members(onset, unused)]))
    return Entity("phenotype", ", ".join(observed or [h.span for h in hits]), True,
                  tuple(dict.fromkeys(h.canonical for h in hits)), hits[0].how, members=members)


def _qualified(entities: list[Entity], onset: Member | None, unused: list[str]) -> list[Entity]:
    """Entity linking's reading of a question naming one phenotype, its onset and unused
    qualifiers added to the phenotype's members ("congenital hypotonia": Hypotonia with
    Congenital onset)."""
    extra = _qualifier_members(onset, unused)
    if not extra:
        return entities
    return [replace(e, members=tuple(dict.fromkeys((*e.members, *extra)))) if e.kind == "phenotype" and e.members
            else e for e in entities]


def _qualifier_members(onset: Member | None, unused: list[str]) -> list[Member]:
    """The members the qualifiers add: the onset (with its HPO id), then the unused ones (no id)."""
    return ([onset] if onset else []) + [Member(name) for name in unused]
