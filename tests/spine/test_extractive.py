"""Extractive free-text answers over a real Milvus Lite index of bundled PubMed records,
ranked by the real bundled embedder (biorag/loop/extractive.py, generation.mode=extractive)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from application.engine import build_agent
from biorag.loop.agent import Agent
from biorag.loop.extractive import split_sentences
from biorag.ml.embedder import Embedder
from biorag.ml.vector_store import open_store
from biorag.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"
CITED = re.compile(r"\s*(.+?) \[(\w+):([^\]\s]+)\]")


def _rows() -> list[dict]:
    with gzip.open(SAMPLE, "rt") as f:
        return [json.loads(line) for line in f]


ROWS = _rows()
ABSTRACT = {str(r["pmid"]): r["abstract"] for r in ROWS}
TITLE = {str(r["pmid"]): r["title"] for r in ROWS}
YEAR = {str(r["pmid"]): r["year"] for r in ROWS}
QUOTED = re.compile(r"(.+?) \[(\w+):([^\]\s]+)\] \((\d{4})\)")


# ---- sentence splitting (no model) ---------------------------------------------------
def test_sentences_are_verbatim_and_abbreviations_do_not_split():
    text = ("BACKGROUND: Tau is phosphorylated by several kinases, e.g. GSK-3beta and cdk5, in neurons.\n"
            "RESULTS: Smith et al. showed that p25 activates cdk5 in the brain. Tau aggregates were seen (Fig. 2) "
            "in all mice. Short one.")
    out = split_sentences(text)
    assert out == [
        "Tau is phosphorylated by several kinases, e.g. GSK-3beta and cdk5, in neurons.",
        "Smith et al. showed that p25 activates cdk5 in the brain.",
        "Tau aggregates were seen (Fig. 2) in all mice.",
    ]


def test_every_sentence_of_every_sample_abstract_is_a_substring():
    count = 0
    for text in ABSTRACT.values():
        for sentence in split_sentences(text):
            assert sentence in text
            count += 1
    assert count > 280 * 4  # real abstracts have several sentences each


# ---- the agent over a real index -----------------------------------------------------
@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from indexing.build import build_index

    tmp = tmp_path_factory.mktemp("extractive-ix")
    src = tmp / "records.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS[100:240]))
    settings = load_settings(overrides={"data_dir": str(tmp)})
    embedder = Embedder()
    build_index(settings, [src], progress=False, embedder=embedder, batch_size=16)
    keeper = open_store(settings.milvus_uri)  # Milvus Lite: keep one client for the module
    yield tmp, embedder
    keeper.close()


def _agent(index, *sets: str) -> Agent:
    tmp, embedder = index
    settings = load_settings(
        sets=["planner=rules", *sets], overrides={"data_dir": str(tmp)},
        disable=["gene", "dbsnp", "omim", "blast", "web"],
    )
    return build_agent(settings, embedder=embedder)


def _quotes(answer: str) -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in CITED.finditer(answer)]


MICROGLIA = [  # one literature question, phrased as people type it (PMID 16476660 answers it)
    "How do microglia respond to amyloid plaques in Alzheimer's disease?",
    "microglia and amyloid plaques in Alzheimer's disease",
    "Tell me whether bone marrow-derived microglia can clear amyloid deposits.",
    "can microglia from the bone marrow eliminate amyloid deposits",
    "The role of microglia in restricting senile plaque formation is",
    "Explain, if you can, what microglia do to the amyloid plaques in the brains of Alzheimer mice",
]
O_GLCNAC = [  # PMID 22366723
    "Does O-GlcNAc modification prevent tau aggregation?",
    "effect of an O-GlcNAcase inhibitor on tau aggregation in mice",
    "Tell me how O-GlcNAc affects tau oligomerization",
    "o-glcnac and tau neurodegeneration",
]


@pytest.mark.milvus
@pytest.mark.parametrize("question, pmid", [(q, "16476660") for q in MICROGLIA] + [(q, "22366723") for q in O_GLCNAC])
def test_literature_questions_get_extractive_answers_quoting_the_cited_abstract(index, question, pmid):
    ans = _agent(index).answer(question)
    gen = ans.trace[-1]
    assert ans.sufficient and gen.decision == "extractive" and gen.details["mode"] == "extractive", ans.answer
    # the answer first (Yes/No, the named things, or the linking sentence), then each quoted
    # sentence on its own line, verbatim, with its PMID and the year
    first, *lines = ans.answer.splitlines()
    assert all(QUOTED.fullmatch(line) for line in lines), ans.answer
    quotes = [m.groups() for line in (first, *lines) if (m := QUOTED.fullmatch(line))]
    assert 1 <= len(quotes) <= 3, ans.answer
    for sentence, source, cited, year in quotes:
        assert source == "pubmed" and (sentence in ABSTRACT[cited] or sentence == TITLE[cited]), (sentence, cited)
        assert year == str(YEAR[cited])
    assert pmid in {c for _, _, c, _ in quotes}, ans.answer
    assert {c.id for c in ans.citations} == {c for _, _, c, _ in quotes}
    chosen = gen.details["chosen"]
    # every quoted sentence is close to the question, but for the leading record's sentence
    # that states the mechanism a how-question asks for (it need not repeat the question)
    floor = gen.details["min_similarity"]
    assert floor > 0 and all(c["similarity"] >= floor or c["id"] == chosen[0]["id"] for c in chosen), chosen


OFF_TOPIC = [
    "Which chromosome is TP53 on?",
    "what is TP53",
    "What is the function of ZQX99?",
    # MMLU stems (anatomy and college biology, dev split): nothing in an Alzheimer's index answers them
    "What is the embryological origin of the hyoid bone?",
    "Which of the following is the body cavity that contains the pituitary gland?",
    "Which of the following represents an accurate statement concerning arthropods?",
]


@pytest.mark.milvus
@pytest.mark.parametrize("question", OFF_TOPIC)
@pytest.mark.parametrize("mode", ["extractive", "llm"])
def test_off_topic_retrieval_is_reported_insufficient_not_summarised(index, question, mode):
    ans = _agent(index, f"generation.mode={mode}").answer(question)
    retrieved = [e for e in ans.trace if e.step == "retrieve" and e.hits]
    assert retrieved, "the index always returns its nearest abstracts"
    assert not ans.sufficient and ans.answer.startswith("Insufficient evidence"), ans.answer
    assert ans.citations == [] and "[pubmed:" not in ans.answer
    gen = ans.trace[-1]
    assert gen.decision == "insufficient" and "draft" not in gen.details  # the model never wrote
    evaluate = [e for e in ans.trace if e.step == "evaluate"]
    assert evaluate and all(e.decision == "NO" and e.details["by"] == "evidence_guard" for e in evaluate)
    if "best_similarity" in gen.details:
        assert gen.details["best_similarity"] < gen.details["min_similarity"]
    else:
        assert gen.details["missing_entities"]


# ---- database records beside literature ------------------------------------------------
@pytest.fixture(scope="module")
def index_with_genes(index, full_gene_store_path):
    """The same index with the complete local gene store beside it (`gene` enabled)."""
    import shutil

    tmp, embedder = index
    shutil.copy(full_gene_store_path, tmp / "gene_store.sqlite")
    yield index
    (tmp / "gene_store.sqlite").unlink()


def _agent_with_genes(index) -> Agent:
    tmp, embedder = index
    settings = load_settings(sets=["planner=rules"], overrides={"data_dir": str(tmp)},
                             disable=["dbsnp", "omim", "blast", "web", "hpo"])
    return build_agent(settings, embedder=embedder)


#: questions about what a gene is or does, none answered by a field of its record, and none
#: by an Alzheimer's index: the record's lines restate the question's names ("TP53; name: tumor
#: protein p53" scored 0.76 against the first) and must not be quoted as the answer
GENE_CLAIMS = [
    "Is TP53 a tumor suppressor?",
    "Is BRCA1 involved in DNA repair?",
    "Does KRAS act as an oncogene?",
    "is EGFR a receptor tyrosine kinase",
    "Tell me whether CFTR is a chloride channel.",
    "MYC is a transcription factor, right?",
]


@pytest.mark.milvus
@pytest.mark.parametrize("question", GENE_CLAIMS)
def test_a_gene_records_lines_are_never_quoted_as_a_free_text_answer(index_with_genes, question):
    ans = _agent_with_genes(index_with_genes).answer(question)
    retrieved = {e.retriever for e in ans.trace if e.step == "retrieve" and e.hits}
    assert "pubmed" in retrieved, retrieved  # a claim to check goes to the literature
    assert not ans.sufficient and ans.answer.startswith("Insufficient evidence"), ans.answer
    assert "[gene:" not in ans.answer and ans.citations == []


@pytest.mark.milvus
@pytest.mark.parametrize("question", O_GLCNAC)
def test_literature_that_answers_is_still_quoted_beside_gene_records(index_with_genes, question):
    ans = _agent_with_genes(index_with_genes).answer(question)
    assert ans.sufficient and ans.trace[-1].decision == "extractive", ans.answer
    # every quoted line, the first one too: a "how" answer's first line is itself the cited
    # sentence that links the question's names (a yes/no answer's is "Yes."), and when the
    # question names O-GlcNAcase, only the sentence naming it may be quoted
    quotes = [m.groups() for line in ans.answer.splitlines() if (m := QUOTED.fullmatch(line))]
    assert quotes and all(src == "pubmed" for _, src, _, _ in quotes) and "22366723" in {c for _, _, c, _ in quotes}
