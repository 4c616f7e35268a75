"""What is asked decides the route, not which entities a question names (biorag.understanding.literature_asks).

The same real names (OMIM diseases as HPO names them, observed features of published
patients, HGNC genes: the metamorphic samples in tests/data/metamorphic, drawn with a fixed
seed, not picked) are put into record questions and into relation questions. Record
questions stay with their record field; relation questions (an effect, a treatment, a risk,
a mechanism, a biomarker, an outcome, a comparison, a yes/no claim) go to the literature,
with the names found as entities (the search terms), every time, in every wording. A bare
list of features, with or without "which genes", stays phenotype ranking; a relation a
curated record states (a gene asked about in a disease it is linked to, a disease's genes)
stays with that record. Two-ask questions get both parts answered, each after its question.
"""

from __future__ import annotations

import random

import pytest

from biorag.understanding.analysis import analyse
from tests.agents import newcomer_agent
from tests.metamorphic.records import DISEASES, GENES, PATIENTS

_RNG = random.Random(37)
#: 36 diseases, 36 features (one per patient, then more), 40 genes, drawn once
DISEASE_NAMES = [d.name for d in _RNG.sample(DISEASES, 36)]
FEATURES = list(dict.fromkeys(f for p in PATIENTS for f in p.features))
FEATURE_NAMES = _RNG.sample(FEATURES, 36)
GENE_SYMBOLS = [g.symbol for g in _RNG.sample(GENES, 40)]

DISEASE_RECORD = ["What are the symptoms of {x}?", "Which genes are linked to {x}?", "clinical features of {x}",
                  "{x}"]
DISEASE_LITERATURE = ["What is the best treatment for {x}?", "Which drugs are used to treat {x}?",
                      "Does physical exercise improve outcomes in {x}?", "What biomarkers predict progression of {x}?",
                      "What is the mechanism of {x}?", "Is {x} more common in women than in men?",
                      "What is the risk of cancer in {x}?", "What is the life expectancy and survival in {x}?",
                      # a thing asked by name that no record field holds, beside a word that cues one
                      "Which codons are altered by the pathogenic mutation found in {x}?",
                      "Through which molecule do microglia ingest synapses in {x}?",
                      # a yes/no claim put as a clause after a request
                      "Could you tell me whether {x} is usually fatal in adults?", "I wonder if {x} is usually fatal in adults",
                      # a verbless fragment whose only ask is a superlative of frequency
                      "{x} - the most prevalent form in the elderly? thanks",
                      # a yes/no claim beside words that cue a record field ("role", "diagnosis"), or put
                      # after the title of a study
                      "Do cytokines have any role in {x}?", "Does the diagnosis of {x} vary by region?",
                      "{x} in adults: is it underdiagnosed?",
                      # how common: no record ranks a disease's genes or variants by frequency
                      "What is the most common mutation in {x}?", "Which gene is most commonly mutated in {x}?",
                      "How common is {x}?"]
FEATURE_RECORD = ["Which genes could explain {x}?", "candidate genes for {x}", "{x}", "what could explain {x}?"]
FEATURE_LITERATURE = ["What treatments reduce {x}?", "Does {x} affect survival?", "What is the prognosis of {x}?",
                      "How is {x} managed?", "Which drugs can cause {x}?", "What is the risk of {x} after surgery?",
                      "I would like to know whether {x} is the first sign in adults.",
                      "{x} - most prevalent in older men?",
                      # things of a kind that are no genes
                      "What type of {x} occurs in older adults?",
                      # a yes/no claim beside words that cue a record field, or after a study's title
                      "Do oblique views add value in the diagnosis of {x}?", "{x}: is it permanent?",
                      "Are higher rates of {x} in women accounted for by symptom reporting?"]
GENE_RECORD = ["Which chromosome is {x} on?", "What is the function of {x}?", "What is the Ensembl ID of {x}?",
               "Which cytogenetic band is {x} on?", "What conditions is {x} linked to?",
               "What is {x}?", "Is {x} protein coding?", "What does {x} do?", "what role does {x} play?"]
GENE_LITERATURE = ["Which drugs target {x}?", "What is the effect of {x} knockdown on cell proliferation?",
                   "Does {x} expression predict survival?", "What are the mechanisms of resistance to {x} inhibitors?",
                   "Is {x} a tumour suppressor?", "How does {x} compare with its paralogs in expression?",
                   # a function the gene's record states in general, asked in a context of the question's own
                   # (a context made only of words other fields cue by, "in T cell activation", is not
                   # yet seen: biorag.understanding.literature_asks reads every source's cue words as no context)
                   "What does {x} do in the developing heart?", "What is the role of {x} in zebrafish embryos?",
                   "What is the function of {x} at the synapse?",
                   "Which codons of {x} are altered by pathogenic mutations?", "Which enzyme cleaves {x}?",
                   # a kind of feature asked for, which the gene's mutations cause: not the feature's genes
                   "What type of extracolonic tumours do {x} germline mutations cause?"]


#: requests on the answer's form, as benchmark harnesses (evaluation/benchmarks.py) and people add them
FORMAT_REQUESTS = ["Answer yes or no.", "List every answer, separated by commas.",
                   "Give up to 5 candidate answers, most likely first, separated by commas."]


def _wordings(question: str) -> list[str]:
    """The question as people type it: as is, lower case, in a polite wrapper, without '?',
    followed by a request on the answer's form."""
    bare = question.rstrip("?")
    return [question, question.lower(), f"Could you tell me: {bare[0].lower() + bare[1:]}?", f"{bare}, thanks",
            bare, f"{question}\n{FORMAT_REQUESTS[len(question) % len(FORMAT_REQUESTS)]}"]


@pytest.fixture(scope="module")
def agent(geneset_data_dir):
    with newcomer_agent(geneset_data_dir) as a:
        yield a


def _route(agent, question: str):
    a = analyse(question, agent.retrievers, agent.lexicon)
    return a, ("literature" if a.free_text and a.intent is None else "record" if a.intent is not None else "none")


def _names(a) -> set[str]:
    return {n.lower() for e in a.entities if e.confident for n in (e.text, e.span, *e.canonical) if n}


def _check(agent, names: list[str], record: list[str], literature: list[str], kind_of=None) -> None:
    """Every wording of every record question goes to its record, of every relation question
    to the literature with the name found. A record question whose name the linker does not
    read at all (routed nowhere, no entity of it) is a linking gap, not a routing one: those
    are counted apart and must stay rare."""
    wrong, unread, asked = [], [], 0
    for name in names:
        for template in record + literature:
            want = "record" if template in record else "literature"
            for q in _wordings(template.format(x=name)):
                asked += 1
                a, got = _route(agent, q)
                if want == "record" and got == "none" and not any(e.confident for e in a.entities):
                    unread.append(q)
                elif got != want:
                    wrong.append((q, want, got))
                elif want == "literature" and not _names(a):
                    wrong.append((q, "the names as search terms", "no entity"))
                elif want == "record" and kind_of is not None and not kind_of(a):
                    wrong.append((q, "the record field of the name", a.intent.kind))
    assert not wrong, f"{len(wrong)} routed wrong, e.g. {wrong[:8]}"
    assert len(unread) <= asked // 100, f"{len(unread)} names not read at all, e.g. {unread[:8]}"


def test_disease_names_route_by_what_is_asked(agent):
    assert len(DISEASE_NAMES) >= 30
    _check(agent, DISEASE_NAMES, DISEASE_RECORD, DISEASE_LITERATURE,
           kind_of=lambda a: "disease" in a.intent.hops[0].takes)


def test_feature_names_route_by_what_is_asked(agent):
    assert len(FEATURE_NAMES) >= 30
    _check(agent, FEATURE_NAMES, FEATURE_RECORD, FEATURE_LITERATURE,
           kind_of=lambda a: bool({"phenotype", "disease"} & set(a.intent.hops[0].takes)))


def test_gene_names_route_by_what_is_asked(agent):
    assert len(GENE_SYMBOLS) >= 30
    _check(agent, GENE_SYMBOLS, GENE_RECORD, GENE_LITERATURE, kind_of=lambda a: "gene" in a.intent.hops[0].takes)


#: a gene's pathways asked for, whatever verb asks it: the record's processes and pathways
PATHWAYS_OF_GENE = ["Which pathways does {x} regulate?", "what pathways is {x} involved in",
                    "In which pathway does {x} act?", "Which signaling pathways does {x} take part in?"]
#: the same verb asking for genes: the factor's targets (TRRUST)
TARGETS_OF_GENE = ["Which genes does {x} regulate?", "Which genes are regulated by {x}?",
                   # "genes of X" is also a form that puts a disease in X: a gene symbol there is the gene
                   "What are the target genes of {x}?"]


def test_a_genes_pathways_are_its_record_not_its_targets(agent):
    """"Which pathways does X regulate?" asks for pathways (the record's GO processes and
    Reactome pathways), not the genes X regulates; asked for genes, the same verb reads
    TRRUST's targets. Both directions, every wording, 40 real genes."""
    wrong = []
    for name in GENE_SYMBOLS:
        for templates, want in ((PATHWAYS_OF_GENE, "summary"), (TARGETS_OF_GENE, "regulation_targets")):
            for template in templates:
                for q in _wordings(template.format(x=name)):
                    a, got = _route(agent, q)
                    if got != "record" or a.intent.kind != want:
                        wrong.append((q, want, a.intent.kind if a.intent else got))
    assert not wrong, f"{len(wrong)} routed wrong, e.g. {wrong[:8]}"


def test_a_bare_feature_list_stays_phenotype_ranking_in_any_order(agent):
    """A patient's features, listed, with or without 'genes': the ranked genes, never the literature."""
    rng = random.Random(7)
    wrong = []
    for p in PATIENTS:
        feats = list(p.features)
        rng.shuffle(feats)
        listed = ", ".join(feats[:-1]) + " and " + feats[-1]
        for q in (listed, f"{listed} genes", f"Which genes could explain {listed}?", f"candidate genes: {listed}",
                  f"child with {listed}"):
            a, got = _route(agent, q)
            if got != "record" or a.intent.kind not in ("phenotype_genes", "disease_features", "disease_genes"):
                wrong.append((q, got, a.intent and a.intent.kind))
    assert len(wrong) <= len(PATIENTS) * 5 // 20, wrong[:8]  # today's symptom-list reading, kept


def test_a_relation_a_curated_record_states_stays_with_the_record(agent):
    """A disease's linked gene asked about in it, and a disease's genes asked with a risk
    word: the curated links answer (the gene's record checked against the disease)."""
    wrong = []
    for d in DISEASES[:30]:
        for q in (f"Is {d.genes[0]} associated with {d.name}?", f"does {d.genes[0]} cause {d.name}?",
                  f"Which genes increase the risk of {d.name}?"):
            a, got = _route(agent, q)
            if got != "record":
                wrong.append((q, got))
    assert not wrong, wrong[:8]


#: how/why asked of a gene in a disease it is linked to: no curated link says how
LITERATURE_OF_PAIR = ["How does {g} cause {d}?", "How do {g} mutations lead to {d}?", "Why do {g} variants cause {d}?",
                      "How does {g} contribute to {d}?", "In what way is {g} involved in {d}?",
                      "What is the mechanism by which {g} causes {d}?", "how might loss of {g} cause {d}",
                      "Why does {g} deficiency cause {d}?",
                      # a context of the question's own, which no curated link states
                      "Tell me about {g} phosphorylation in {d}", "{g} splicing in {d}",
                      # the gene's own variants asked for: not the disease's genes
                      "Which {g} variants are associated with {d}?", "What is known about {g} mutations in {d}?",
                      "Which mutations in {g} cause {d}?", "Which {g} mutations cause {d}?"]
#: the same names, asked what the curated links and the disease's record state
RECORD_OF_PAIR = ["Is {g} associated with {d}?", "does {g} cause {d}?", "{g} and {d}",
                  "How does {d} present?", "Which genes besides {g} are linked to {d}?"]


def test_what_is_asked_of_a_gene_in_its_disease_decides_the_route(agent):
    """A disease's own linked gene (HPO's, from real records) asked how or why it acts in the
    disease, about it in a context of the question's own ("{g} splicing in {d}"), or for its
    variants in the disease, goes to the literature with the gene among the search terms;
    asked whether they are linked, how the disease presents, or for the disease's other
    genes, the same names stay with the records."""
    pairs = [(d.genes[0], d.name) for d in _RNG.sample(DISEASES, 40)]
    wrong, asked = [], 0
    for g, d in pairs:
        for template in LITERATURE_OF_PAIR + RECORD_OF_PAIR:
            want = "literature" if template in LITERATURE_OF_PAIR else "record"
            for q in _wordings(template.format(g=g, d=d)):
                asked += 1
                a, got = _route(agent, q)
                if got != want:
                    wrong.append((q, want, got, a.intent and a.intent.kind))
                elif want == "literature" and g.lower() not in _names(a):
                    wrong.append((q, "the gene as a search term", sorted(_names(a))))
    assert len(pairs) >= 30 and asked >= 30 * len(LITERATURE_OF_PAIR + RECORD_OF_PAIR)
    assert len(wrong) <= asked // 100, f"{len(wrong)} of {asked} routed wrong, e.g. {wrong[:8]}"


def test_a_feature_set_in_a_disease_reads_the_disease(agent):
    """"What causes {feature} in {disease}?": real HPO disease names and patients' features,
    paired by a fixed draw. The disease is the one after "in", the feature stays a feature,
    and no field that needs a gene is asked of a question that names none."""
    rng = random.Random(11)
    wrong, asked = [], 0
    for d in DISEASE_NAMES:
        f = rng.choice(FEATURE_NAMES)
        for q in (f"What causes {f} in {d}?", f"why does {f} occur in patients with {d}"):
            asked += 1
            a = analyse(q, agent.retrievers, agent.lexicon)
            diseases = {n.lower() for e in a.entities if e.confident and e.kind == "disease" for n in (e.text, *e.canonical)}
            if d.lower() not in diseases:
                wrong.append((q, sorted(diseases)))
            elif a.intent is not None and "gene" in a.intent.hops[0].takes:
                wrong.append((q, a.intent.kind))
    assert not wrong, f"{len(wrong)} of {asked}, e.g. {wrong[:8]}"


def test_a_literature_question_naming_nothing_known_is_never_a_record_card(agent):
    for q in ("Does zorblatin reduce the risk of frobnitis?", "What is the effect of quxamab on survival?"):
        a, got = _route(agent, q)
        assert got == "literature" and a.intent is None, q


def test_two_asks_are_both_answered_each_after_its_question(agent):
    """20 questions from real genes asking a record field and the literature at once: the
    first line is the record's value; the literature part follows after its own question
    (with the gene in place of 'it'), answered or said to be insufficient."""
    genes = [g for g in GENES if g.chromosome][:20]
    for g in genes:
        q = f"Which chromosome is {g.symbol} on, and which drugs target it?"
        ans = agent.answer(q)
        first, *rest = ans.answer.splitlines()
        assert g.chromosome in first, (q, ans.answer)
        second = f"Which drugs target {g.symbol}?"
        assert any(line.startswith(second) for line in rest), (q, ans.answer)
        assert not ans.sufficient  # no PubMed index in this data dir: the second part is not answered


def test_two_record_asks_are_both_answered(agent):
    """20 real genes asked two record fields at once: the second is answered after its own
    question, the gene in place of "its", never dropped."""
    for g in [g for g in GENES if g.chromosome and g.name][:20]:
        for q in (f"Where is {g.symbol} located, and what is its full name?",
                  f"which chromosome is {g.symbol} on and what is its full name"):
            ans = agent.answer(q)
            first, *rest = ans.answer.splitlines()
            assert g.chromosome in first, (q, ans.answer)
            second = f"What is the full name of {g.symbol}? {g.name}"
            assert second in rest, (q, ans.answer)
            assert ans.sufficient, (q, ans.answer)


def test_a_second_ask_about_the_gene_a_disease_question_asks_for_goes_through_it(agent):
    """"Which gene is mutated in <disease>, and where is it located?": "it" is the disease's
    gene, asked through the first part (a hop), not the disease. Real OMIM diseases with one
    HPO gene: the first line names the gene, the second part follows after its question,
    answered or named as unanswered, every time."""
    diseases = [d for d in DISEASES if len(d.genes) == 1][:20]
    answered = 0
    for d in diseases:
        q = f"Which gene is mutated in {d.name}, and where is it located?"
        ans = agent.answer(q)
        first, *rest = ans.answer.splitlines()
        second = f"Where is the gene mutated in {d.name} located?"
        assert any(line.startswith(second) for line in rest), (q, ans.answer)
        if d.genes[0] in first.split(", ") and any(line.startswith(second + " chr") for line in rest):
            answered += 1
    assert answered >= 18, answered


def test_one_ask_put_two_ways_with_or_is_not_split(agent):
    """"Is X still the official name, or what is it called now?" asks one record field in two
    wordings: the symbol is the answer, from the record, not two parts with one unanswered."""
    for g in GENES[:15]:
        for q in (f"Is {g.symbol} still the official name, or what is it called now?",
                  f"is {g.symbol} still its official symbol or what's it called today?"):
            ans = agent.answer(q)
            assert ans.sufficient and ans.answer.splitlines()[0] == g.symbol, (q, ans.answer)


def test_a_type_asked_of_something_else_is_not_the_genes_type(agent):
    """"What type of DMD can golodirsen be used for?" asks a type of the disease's forms, not
    DMD's gene type; "What type of gene is DMD?" does ask it."""
    for symbol in GENE_SYMBOLS[:12]:
        for q in (f"What type of {symbol} mutations are found in patients?", f"What kind of {symbol} variant is it?"):
            a, _ = _route(agent, q)
            assert a.intent is None or a.intent.kind != "gene_type", q
        a, got = _route(agent, f"What type of gene is {symbol}?")
        assert got == "record" and a.intent.kind == "gene_type", symbol


def test_things_that_are_no_genes_are_not_answered_with_genes(agent):
    """Real BioASQ-style questions that ask for symptoms, cancers or tumour types: a gene list
    (the genes of "depression", of "Neoplasm") answers none of them."""
    for q in ("Which symptoms could indicate depression in young children?",
              "What cancers are associated with human papilloma virus?",
              "What type of extracolonic tumors does the PMS2 germline mutation cause?",
              "what symptoms can be expected in women suffering from endometriosis",
              # a gene named with them is what the cancers are linked to, not what is asked
              "What cancers are linked to BRCA2 mutations?"):
        for wording in _wordings(q):
            a, got = _route(agent, wording)
            assert got == "literature", (wording, got, a.intent and a.intent.kind)
    # a bare list of the same features, or one asked what explains it, still ranks genes
    for q in ("depression, endometriosis", "what could explain depression and endometriosis?"):
        a, got = _route(agent, q)
        assert got == "record" and a.intent.kind == "phenotype_genes", q
