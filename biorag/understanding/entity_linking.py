"""Entity linking: the entities a question names, found before what it asks.

Entities are found by pattern (rsIDs, Ensembl/Entrez IDs, accessions, sequences:
biorag.understanding.entity_patterns) and by dictionary: candidate spans of the question (tokens, their
hyphen/case variants, phrases after "related to", "associated with", ...) are looked up in a
`Lexicon` built from real data (the local gene store: symbols, aliases, previous symbols,
IDs, clone names; disease and phenotype names). Without a lexicon, gene and disease names
fall back to patterns. A name that several genes share is kept with all its candidates
(`Entity.canonical`): the answer lists them, nothing picks one. A gene may also be named by
its name written out (HGNC name, gene_info designations: "the myoglobin gene", "tumour
protein p53"). Several genes are also one gene list (a set: no order), several phenotypes
one symptom list (each observed or excluded). Typographic quotes are read as plain ones.
"""

from __future__ import annotations

import re
from dataclasses import replace

from biorag.contracts.sources import NAME_STRENGTH, Lexicon, LexiconHit
from biorag.understanding.disease_context import with_subject
from biorag.understanding.disease_names import find_disease
from biorag.understanding.entity_patterns import (
    ACCESSION,
    DNA,
    ENSEMBL,
    ENTREZ,
    EXPLICIT_GENE,
    PASSAGE,
    REGION,
    RSID,
    clean_question,
    gene_like,
    name_tokens,
    spelling_variants,
)
from biorag.understanding.lexicon_lookup import gene_entity, safe_lookup
from biorag.understanding.organisms import organism_named_in
from biorag.understanding.protein_changes import protein_variants
from biorag.understanding.question_model import Entity
from biorag.understanding.question_words import FILLER, NOT_GENES, english_words, words
from biorag.understanding.typed_entities import Member, excluded_at, gene_members, patient_framed

#: words that say a quotation is a text to be read ("the names in the sentence '...'"), not a
#: name quoted ("genes of "hereditary breast and ovarian cancer"")
_QUOTED_TEXT = re.compile(r"\b(?:sentence|sentences|text|passage|abstract|paragraph|phrase|statement|excerpt|snippet)\b",
                          re.IGNORECASE)


def find_entities(question: str, lexicon: Lexicon | None = None) -> list[Entity]:
    """The entities `question` names, in this order: sequences and identifiers, an organism
    (context only), genes (and a gene list when there are several), the phenotypes (one
    symptom list), the disease. Without a lexicon, names are found by pattern only."""
    text = clean_question(question)
    found: list[Entity] = []
    seen: set[tuple[str, str]] = set()

    def add(e: Entity) -> None:
        key = (e.kind, e.text.lower())
        if key not in seen:
            seen.add(key)
            found.append(e)

    passages = [m for m in PASSAGE.finditer(text) if len((m.group("d") or m.group("s")).split()) >= 3
                and not DNA.fullmatch((m.group("d") or m.group("s")).strip())
                and _QUOTED_TEXT.search(text[:m.start()] + " " + text[m.end():])]
    for m in passages:  # a quoted sentence to be read: its words are no names of the question
        add(Entity("passage", (m.group("d") or m.group("s")).strip(), span=m.group(0)))
    if passages:
        text = PASSAGE.sub(" \u220e ", text)
    for m in DNA.finditer(text):
        add(Entity("sequence", "".join(m.group(0).split()).upper()))
    rest = DNA.sub(" ", text)
    for m in REGION.finditer(rest):
        chrom = m.group(1).upper()
        add(Entity("region", f"chr{'M' if chrom == 'MT' else chrom}:{m.group(2).replace(',', '')}-"
                             f"{m.group(3).replace(',', '')}", span=m.group(0)))
    rest = REGION.sub(" ", rest)
    for m in RSID.finditer(rest):
        add(Entity("rsid", m.group(0).lower()))
    if lexicon is not None:
        for e in protein_variants(rest, lexicon):
            add(e)
    for m in ENSEMBL.finditer(rest):
        add(Entity("ensembl", m.group(0).upper()))
    for m in ENTREZ.finditer(rest):
        add(Entity("entrez", m.group(1)))
    for m in ACCESSION.finditer(rest):
        add(Entity("accession", m.group(0)))
    if organism := organism_named_in(rest):
        # context, not the subject: it never routes a question on its own; fields about
        # an organism (biorag.contracts.sources.AnswerField.about) are read for it
        add(Entity("organism", organism, confident=False))
    rest = ACCESSION.sub(" ", ENTREZ.sub(" ", ENSEMBL.sub(" ", RSID.sub(" ", rest))))
    has_id = any(e.kind in ("rsid", "ensembl", "entrez", "sequence", "accession", "region", "passage") for e in found)

    letters = [c for c in rest if c.isalpha()]
    upper_share = sum(c.isupper() for c in letters) / max(1, len(letters))
    lower_question = upper_share > 0.7 or not any(c.isupper() for c in rest[1:])
    scan = rest.lower() if upper_share > 0.7 else rest

    # -- genes: dictionary first, patterns for what the dictionary does not know
    toks = [(t, pos, kind) for t, pos in name_tokens(scan) if (kind := gene_like(t, lower_question))]
    if lower_question:
        # read lower-cased, a symbol that is also a word ("APP", "INS") is no gene, unless it
        # stands in a list with genes ("APP, NR3C1, TLR2", "nr3c1, app, tlr2": `_listed_with_genes`)
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
        if tok.lower() in re.findall(r"[\w\-]+", in_disease):  # "(MNGIE type)": a word of the name
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
    listed = _listed_with_genes(scan, token_genes)
    if upper_share <= 0.7:
        # in a lower-case question a word ("app", "was") is a gene only in a list of genes
        # (two or more the dictionary is sure of); elsewhere it stays a word
        sure = sum(e.confident and e.how != "listed" for _, e in listed)
        words_at = {pos for _, pos, kind in toks if kind == "listed"}
        listed = [(pos, e) for pos, e in listed
                  if pos not in words_at or e.how not in ("pattern", "listed") or (e.how == "listed" and sure >= 2)]
    for _, e in listed:
        add(e)
    genes = [e for e in found if e.kind == "gene" and e.confident]
    loose = [e for e in found if e.kind == "gene"] if lexicon is None else []
    if len(genes) >= 2 or len(loose) >= 3:  # several genes: the question may be about them as a set
        add(_gene_list(genes if len(genes) >= 2 else loose))
    polar = [] if lexicon is None or has_id else _phenotypes(scan, lexicon, {e.text.lower() for e in found})
    phenotypes = [h for h, _ in polar]
    if named_inside := [e for e in found if e.kind == "gene" and e.how in _WRITTEN_OUT and e.span
                        and any(f" {e.span.lower()} " in f" {h.span} " != f" {e.span.lower()} " for h in phenotypes)]:
        # a gene's name written out inside a phenotype's ("alanine aminotransferase" in "elevated
        # circulating alanine aminotransferase concentration") is part of that name
        found = [e for e in found if e not in named_inside and e.kind != "gene_list"]
        if len(genes := [e for e in found if e.kind == "gene" and e.confident]) >= 2:
            found.append(_gene_list(genes))
    if disease and phenotypes and disease.text.lower() in {h.span for h in phenotypes} \
            and patient_framed(scan, disease.text):
        disease = None  # "child with aniridia": a person's feature, not the disease's record
    if phenotypes:
        observed = [h.span for h, excluded in polar if not excluded]
        spans = [h.span for h in phenotypes]
        covered = set(_words(" ".join(spans))) | {"and", "or", "with", "plus"}
        if disease and (len(phenotypes) >= 2 or disease.how == "pattern") and set(_words(disease.span or disease.text)) <= covered \
                and not (_catalogue_name(disease) and _names_all(disease.text, spans) and not patient_framed(scan)):
            # the "disease" is the phenotypes read as one name; a name a catalogue holds whole
            # that holds every phenotype ("Developmental delay with dysmorphic facies and dental
            # anomalies") stays that disease unless a person is said to have it ("a child with")
            disease = None
        elif disease and disease.how == "pattern" and len(phenotypes) >= 2 and _phenotype_list(disease.text, covered):
            disease = None  # a list of phenotypes in words around it ("both seizures and ataxia")
        elif disease and disease.how == "pattern" and patient_framed(scan) \
                and _phenotype_list(disease.text, covered | _PATIENTS):
            disease = None  # a person and their features, no disease ("genes for a child with aniridia")
        elif disease and disease.how == "pattern" and _listed_phenotypes(disease.text, spans) >= 2:
            # a phrase no dictionary knows that lists two phenotypes or more, perhaps with items
            # no dictionary knows either ("genes for A, B and C", "... for a child with A, B")
            disease = None
        members = tuple(dict.fromkeys(Member(h.canonical, h.ident, excluded) for h, excluded in polar))
        add(Entity("phenotype", ", ".join(observed or spans), True, tuple(dict.fromkeys(h.canonical for h in phenotypes)),
                   phenotypes[0].how, members=members))
    if disease:
        add(disease)
    return found


#: words that only join or frame names of one list of phenotypes ("both A and B", "A together
#: with B", "a phenotype of A as well as B"): no phenotype or disease is named by them
_LIST_FRAME = words("list_frame")
#: words for the person a question describes ("child", "patient", "my son")
_PATIENTS = words("patients")


def _phenotype_list(span: str, covered: set[str]) -> bool:
    """Whether a phrase no dictionary knows (a question form's "disease") is a list of the
    phenotypes the dictionary found, framed by words that name nothing: every word is a
    phenotype's, a function word, or a word that joins or frames a list (`_LIST_FRAME`).
    A word that may be part of a name ("absence", "juvenile") keeps the phrase a name."""
    return all(w in covered or w in _LIST_FRAME or w in NOT_GENES or w in FILLER for w in _words(span))


def _words(text: str) -> list[str]:
    """The words of a name, punctuation aside ("Intellectual disability, Moderate")."""
    return re.findall(r"[a-z0-9']+", text.lower().replace("-", " "))


#: how a gene named by its name written out is found (`_named_in_full`)
_WRITTEN_OUT = ("full_name", "designation", "designation head")


def _catalogue_name(disease: Entity) -> bool:
    """A disease the dictionary holds under the words the question wrote (no question form's
    phrase, no catalogue head, eponym or corrected spelling)."""
    return disease.how not in ("pattern", "eponym") and not disease.how.endswith((" head", " misspelt"))


def _names_all(name: str, phenotypes: list[str]) -> bool:
    """Whether a name holds two phenotype names or more, and every one the question names."""
    text = f" {' '.join(re.findall(r'[a-z0-9]+', name.lower()))} "
    return len(phenotypes) >= 2 and all(f" {' '.join(re.findall(r'[a-z0-9]+', p.lower()))} " in text for p in phenotypes)


def _listed_phenotypes(span: str, phenotypes: list[str]) -> int:
    """How many items of a list with commas ("A, B and C") in `span` hold a phenotype name
    whole (none without a comma: "juvenile seizures and ataxia" may be one name)."""
    if not re.search(r"[,;]", span):
        return 0
    items = [f" {' '.join(re.findall(r'[a-z0-9]+', i.lower()))} " for i in re.split(r",|;|\band\b|\bor\b", span)]
    names = [f" {' '.join(re.findall(r'[a-z0-9]+', p.lower()))} " for p in phenotypes]
    return sum(any(n in i for n in names) for i in items)


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
    word name ("leptin") counts only as a current full name, and next to the word "gene"
    when it is also an English word ("insulin"). A name
    several genes share is listed with all of them when it is their current full name, and
    left out when it is only an old name or designation."""
    words = list(_NAME_WORD.finditer(text))
    spans: dict[str, tuple[int, int]] = {}
    for i, first in enumerate(words):
        if first.group(0).lower() in _NOT_NAME_EDGE:
            continue
        for n in range(1, min(10, len(words) - i) + 1):
            last = words[i + n - 1]
            # a name of three words or more may end in one letter ("nuclear factor I A")
            if last.group(0).lower() not in _NOT_NAME_EDGE or (n >= 3 and len(last.group(0)) == 1):
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
            # a one-word current full name ("huntingtin", "frataxin") is the gene; one that is
            # also an English word ("insulin") only next to the word "gene"
            near = {w.group(0).lower() for w in words[max(0, i - 1):i + 2]}
            if best > 0 or span in NOT_GENES or (not near & {"gene", "genes"} and span in english_words()):
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


#: the most words of a phenotype name looked up ("shortening of all distal phalanges of the fingers")
_PHENOTYPE_WORDS = 8


def _phenotypes(text: str, lexicon: Lexicon, skip: set[str]) -> list[tuple[LexiconHit, bool]]:
    """Phenotype names (HPO terms) in the question: the longest phrases
    the dictionary knows (up to `_PHENOTYPE_WORDS`), left to right, not overlapping, gene
    names left out; each with
    whether the question says it is absent ("no seizures")."""
    found = list(re.finditer(r"[A-Za-z0-9][\w'\-]*", text))
    words = [m.group(0) for m in found]
    spans = {" ".join(words[i:i + n]).lower(): (i, n) for n in range(_PHENOTYPE_WORDS, 0, -1)
             for i in range(len(words) - n + 1)
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
