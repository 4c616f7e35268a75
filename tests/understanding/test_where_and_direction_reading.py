"""Where-questions, direction words and comparisons, on real PubMed records
(tests/data/literature/reading_records.jsonl, see its PROVENANCE.md) and real record
questions:

- "Where does gamma-secretase cleave APP?" asks where an action happens, not on which
  chromosome APP lies (it was answered "chr21", sufficient); "where is APP located?" still
  asks the gene's record. Both directions, the same names.
- "protein", "proteasome", "promoter" and "attention" begin like "protect", "promote" and
  "attenuate" but say no direction (a sentence naming "proteinaceous aggregates" was read as
  saying something goes down, and a claim of sameness got "No." from it).
- Asked whether two things differ, a sentence that compares nothing states nothing (a
  sentence listing the diseases with alpha-synuclein filaments was read as "Yes, they
  differ").
- "Which genes does EWS-FLI1 activate in Ewing sarcoma?" asks what the gene acts on (it got
  EWSR1's card); "Which genes does TP53 activate?" keeps TRRUST's curated targets.
- Asked what is most frequently involved, a finding that says so under its record's title
  answers ("The muscle most frequently involved was the psoas" under "Pyomyositis caused by
  Staphylococcus aureus"; was insufficient: "most frequently involved" was read as ranking a
  noun "involved").
"""

from __future__ import annotations

import pytest

from biorag.loop.extractive import ScoredSentence
from biorag.loop.how_reading import asked_measure
from biorag.loop.literature_question import read_question
from biorag.loop.literature_reading import finding_polarity, read_literature
from biorag.loop.sentence_cues import directions
from biorag.understanding.analysis import analyse
from biorag.understanding.intent import normalise
from tests.understanding.literature_records import evidence, ranked, records, wordings

ROWS = records("reading_records.jsonl")


def _ranked(pmid: str, top: float = 0.7) -> list[ScoredSentence]:
    return ranked(evidence(ROWS[pmid]), top)


@pytest.fixture(scope="module")
def read(agent):
    def _read(question: str, ranked: list[ScoredSentence], min_similarity: float = 0.0):
        return read_literature(analyse(question, agent.retrievers, agent.lexicon), ranked, lexicon=agent.lexicon,
                               min_similarity=min_similarity)
    return _read


#: (gene as the question writes it, an action another thing does to it or where it acts)
_ACTIONS = [("APP", "does gamma-secretase cleave"), ("amyloid precursor protein", "is it cleaved by gamma-secretase"),
            ("PSEN1", "does the nicastrin complex bind"), ("BACE1", "does furin cleave"),
            ("SNCA", "is it expressed"), ("MAPT", "does GSK3B phosphorylate"), ("CFTR", "is it degraded"),
            ("HTT", "is it cleaved by caspase 6")]


def _action_question(name: str, action: str) -> str:
    return f"Where {action.replace('it', name, 1)}?" if " it " in f" {action} " else f"Where {action} {name}?"


@pytest.mark.parametrize("name,action", _ACTIONS)
def test_where_an_action_happens_is_asked_of_the_literature(agent, name, action):
    question = _action_question(name, action)
    for wording in wordings(question):
        a = analyse(wording, agent.retrievers, agent.lexicon)
        assert a.asks is not None and "site" in a.asks.groups, (wording, a.asks, a.intent)
        assert a.intent is None, (wording, a.intent)


@pytest.mark.parametrize("name", sorted({n for n, _ in _ACTIONS}))
@pytest.mark.parametrize("template", ["Where is {} located?", "where is the {} gene", "Where does {} map?",
                                      "where in the genome is {}", "where does the {} gene lie?",
                                      "could you please tell me where {} is located", "Where is the {} gene positioned?",
                                      "where would I find the {} gene", "where's {}"])
def test_where_a_gene_lies_stays_the_record_question(agent, name, template):
    a = analyse(template.format(name), agent.retrievers, agent.lexicon)
    assert a.asks is None and a.intent is not None and a.intent.kind in ("chromosome", "map_location"), \
        (template, name, a.asks, a.intent)


def test_a_second_where_part_does_not_take_the_record_ask_away(agent):
    a = analyse("Which chromosome is APP on, and where is it expressed?", agent.retrievers, agent.lexicon)
    assert a.intent is not None and a.intent.kind == "chromosome", (a.asks, a.intent)


@pytest.mark.parametrize("sentence", [
    "Intracellular proteinaceous aggregates of alpha-synuclein are hallmarks of neurodegenerative diseases.",
    "The promoter region of the gene holds two binding sites.", "Patients were tested for attention and memory.",
    "Proteomics identified the proteasome and several proteases in the inclusions."])
def test_words_that_begin_like_direction_words_say_no_direction(sentence):
    assert directions(normalise(sentence)) == set(), sentence


@pytest.mark.parametrize("sentence,said", [
    ("Vitamin D supplementation protected against fractures.", {"down"}),
    ("The drug promotes neurite outgrowth.", {"up"}), ("Exercise attenuated the decline.", {"down"}),
    ("Inclusions sequester stalled proteasomes.", {"down"})])
def test_direction_words_are_still_read(sentence, said):
    assert directions(normalise(sentence)) == said, sentence


def test_a_sentence_listing_the_diseases_says_nothing_of_their_sameness(agent):
    sentence = next(s.text for s in _ranked("11152691") if "hallmarks" in s.text)
    q = read_question(analyse("Do alpha-synuclein filaments from Parkinson's disease and multiple system atrophy "
                              "have the same structure?", agent.retrievers, agent.lexicon))
    assert q.sameness and finding_polarity(sentence, q) is None, sentence


@pytest.mark.parametrize("question", wordings("Are alpha-synuclein filaments from Parkinson's disease different "
                                              "from those of multiple system atrophy?"))
def test_asked_whether_they_differ_a_sentence_comparing_nothing_states_nothing(read, question):
    r = read(question, _ranked("10781096"))
    assert not r.sufficient and not r.first_line.startswith(("Yes", "No")), (question, r.first_line)


@pytest.mark.parametrize("question", wordings("Do inclusions of TDP-43 C-terminal fragments impair proteasomes?"))
def test_stalled_proteasomes_answer_whether_they_are_impaired(read, question):
    r = read(question, _ranked("35438230"))
    assert r.sufficient and r.first_line == "Yes.", (question, r.first_line, r.reason)


def test_most_frequently_involved_asks_a_frequency_not_a_noun():
    assert asked_measure(normalise("Which muscle is most frequently involved in pyomyositis?")) == "frequency"
    assert asked_measure(normalise("What is the most common cause of dementia?")) == "ranked cause"
    # a word or two between the superlative and its noun: the noun is still ranked ("rare"
    # in a title is no answer to which symptom is the most common)
    assert asked_measure(normalise("What is the most common presenting symptom of CVJ tuberculosis?")) \
        == "ranked symptom"
    # "the main metabolic roles of" asks for the roles, not for the most common one
    assert asked_measure(normalise("What are the main metabolic roles of pyruvate carboxylase in cancer cells?")) \
        == ""


@pytest.mark.parametrize("question", [*wordings("Which muscle is most frequently involved in pyomyositis?"),
                                      "In pyomyositis, which muscle is most commonly involved?"])
def test_a_finding_under_its_records_title_answers(read, question):
    # the title and the first sentences pass the topicality threshold, the finding does not
    r = read(question, _ranked("1507908", top=0.62), min_similarity=0.6)
    assert r.sufficient and "psoas" in r.first_line and "[pubmed:1507908]" in r.first_line, (question, r.first_line)



@pytest.mark.parametrize("question", [*wordings("Which genes does EWS-FLI1 activate in Ewing sarcoma?"),
                                      "Which genes does TP53 regulate in breast cancer?",
                                      "which genes does SOX2 activate in neural stem cells"])
def test_the_genes_a_named_gene_acts_on_in_a_context_are_asked_of_the_literature(agent, question):
    """The regulation cue ("activate") holds only at a question's end, so "in Ewing sarcoma"
    left the weak "which gene" to read an official-name question: EWSR1's card, sufficient."""
    a = analyse(question, agent.retrievers, agent.lexicon)
    assert a.intent is None and a.asks is not None and "relation" in a.asks.groups, (question, a.intent, a.asks)


@pytest.mark.parametrize("question,kind", [("Which genes does TP53 activate?", "regulation_targets"),
                                           ("Which genes does TP53 repress?", "regulation_targets"),
                                           ("What genes does NRF2 activate?", "regulation_targets"),
                                           ("Which gene does BRCA1 encode?", "full_name"),
                                           ("Which gene does rs9939609 lie in?", "snp_genes")])
def test_a_record_that_states_the_relation_still_answers_it(agent, question, kind):
    a = analyse(question, agent.retrievers, agent.lexicon)
    assert a.asks is None and a.intent is not None and a.intent.kind == kind, (question, a.intent, a.asks)


def test_the_genes_ews_fli1_activates_are_read_from_the_abstract(read):
    for question in wordings("Which genes does EWS-FLI1 activate in Ewing sarcoma?"):
        r = read(question, _ranked("29873416"))
        assert r.sufficient and r.named[:4] == ["PHGDH", "PSAT1", "PSPH", "SHMT2"], (question, r.first_line)
        assert not {"EWSR1", "FLI1"} & set(r.named), r.named
