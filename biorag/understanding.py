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
from dataclasses import replace

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
from biorag.intent import (
    PLACEHOLDER,
    blank_entities,
    detect_intent,
    field_vocabulary,
    gene_list_task,
    normalise,
    own_record,
    plan,
)
from biorag.lexicon_lookup import gene_entity, safe_lookup
from biorag.options import split_options
from biorag.organisms import organism_named_in
from biorag.question_model import Analysis, Entity, Hop, Intent
from biorag.question_words import FILLER, NOT_GENES, english_words, filler, words
from biorag.sources import (
    GENE_IDS,
    NAME_STRENGTH,
    Lexicon,
    LexiconHit,
    Source,
    declared_fields,
)
from biorag.typed_entities import Member, excluded_at, gene_members, patient_framed
from biorag.unknown_names import POLITE, symbol_like, unknown_genes

#: what other modules import from here (the parts live in the modules named above)
__all__ = ["ACCESSION", "DNA", "ENSEMBL", "ENTREZ", "RSID", "Analysis", "Entity", "Hop", "Intent", "analyse",
           "context_checks", "detect_intent", "english_words", "find_entities", "own_record", "plan"]



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


def _field_words_not_genes(core: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> list[Entity]:
    """Entities without the genes named only by an alias that is also a word of the
    sources' field vocabulary ("HPO", an alias of GFER, in "Marfan syndrome HPO terms"),
    when the question without them reads clearly: another entity (a disease, phenotypes)
    and a field about it. Otherwise the alias stays a gene ("Where is HPO?")."""
    if not sources:
        return entities
    vocabulary = field_vocabulary(sources)
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
    blanked = blank_entities(DNA.sub(PLACEHOLDER, core), [e for e in rest if e.confident])
    intent = detect_intent(blanked, kinds, sources, strong_only=True)
    if intent is None or "gene" in intent.hops[0].takes:
        return entities
    return rest


def _subject_not_field_words(entities: list[Entity], sources: Mapping[str, Source] | None) -> list[Entity]:
    """Entities without an unsure subject that asks for a field ("What genetic changes
    contribute to Marfan syndrome?": "genetic" asks for the disease's genes)."""
    if not sources:
        return entities
    vocabulary = field_vocabulary(sources)
    return [e for e in entities if not (e.role == "subject" and not e.confident
                                        and vocabulary.intersection(normalise(e.text).split()))]


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
    blanked = blank_entities(DNA.sub(PLACEHOLDER, core), [e for e in entities if e.confident or e.role])
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
        intent, free_text = gene_list_task(blanked, kinds, sources, intent)
    if intent is None and sources and kinds - {"organism"} == {"phenotype"}:
        # symptoms and nothing else ("child with aniridia"): the phenotypes' default field
        intent = own_record({"phenotype"}, [(s, f) for s, f in declared_fields(sources) if "free_text" not in f.about])
    if intent is not None and sources:
        intent = replace(intent, checks=context_checks(entities, intent, sources))
    unknown = unknown_genes(_unknown_names(core, entities, sources), lexicon) if lexicon is not None else {}
    return Analysis(question=question, core=core, entities=entities, intent=intent, free_text=free_text,
                    unknown=unknown)


def _unknown_names(core: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> list[str]:
    """The question's gene-like names no dictionary holds, when it asks a gene's field of them
    and nothing else (see biorag.unknown_names)."""
    if not sources or any(e.confident and e.kind not in ("gene", "organism") for e in entities):
        return []
    genes = [e for e in entities if e.kind == "gene"]
    if not genes or any(e.how != "pattern" or not symbol_like(e.text) for e in genes):
        return []
    blanked = blank_entities(core, genes)
    # "..., thanks" / "hi, ..." wrap a question without asking anything: read it without them
    bare = " ".join(w for w in blanked.split() if re.sub(r"\W", "", w.lower()) not in POLITE)
    asked = detect_intent(bare, {"gene"}, sources)
    if asked is None or "gene" not in asked.hops[0].takes:
        return []
    if any(asked.kind == f.name for _s, f in declared_fields(sources) if f.default_for) and not (
            any(e.confident for e in genes) or re.search(r"\bgenes?\b", core, re.I)):
        return []  # "What is COVID-19?" names no gene; "What is the FLURBLE1 gene?" does
    allowed = field_vocabulary(sources) | NOT_GENES | FILLER | POLITE
    words = [w for w in normalise(blanked).split() if w != "\u220e" and not w.isdigit()]
    return [e.text for e in genes] if all(w in allowed or filler(w) for w in words) else []


