"""Degenerate model output is cut and reported (biorag/llm/degenerate.py): unit cases, real
abstracts that must pass untouched, and a real loop from the embedded SmolLM2 model."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from biorag.llm.degenerate import cut_loop, inspect_output
from biorag.loop import prompts

SAMPLE = Path(__file__).resolve().parents[2] / "indexing" / "resources" / "pubmed_sample" / "alzheimers_records.jsonl.gz"
LOOP = "The answer to the question in three sentences is:"


def test_the_measured_preamble_loop_leaves_nothing_to_show():
    out = inspect_output(" ".join([LOOP] * 20))
    assert out.text == "" and not out.usable
    assert any(p.startswith("repetition:") and "x20" in p for p in out.problems)
    assert any("preamble without an answer" in p for p in out.problems)


def test_a_repeated_sentence_is_kept_once():
    sentence = "PSMB10 encodes a subunit of the immunoproteasome [gene:5699]."
    out = inspect_output(" ".join([sentence] * 6))
    assert out.text == sentence and "x6" in out.problems[0]


def test_a_loop_after_a_good_start_keeps_the_start():
    good = "Microglia cluster around amyloid plaques."
    out = inspect_output(f"{good} They clear the clear the clear the clear the clear the")
    assert out.text == good  # the loop and the sentence it broke off are cut
    assert out.problems == ["repetition: 'clear the' x5 cut"]


def test_word_stutter_is_cut():
    text, loop = cut_loop("Tau is is is is is phosphorylated")
    assert text == "Tau is" and "x5" in loop


@pytest.mark.parametrize("draft", ["", "   \n ", None])
def test_empty_output(draft):
    assert inspect_output(draft).problems == ["empty output"]


@pytest.mark.parametrize("draft", ['{"answer": "TP53"}', "```python\nprint(1)\n```", '["a", "b"]'])
def test_structured_output_where_prose_was_asked_is_off_schema(draft):
    out = inspect_output(draft)
    assert out.text == "" and out.problems[0].startswith("off-schema")


def test_prompt_scaffolding_and_echoed_instructions_are_cut():
    draft = (f"{prompts.GENERATE_INSTRUCTIONS[0]} Question: What is TP53? "
             "TP53 encodes tumor protein p53 [gene:7157]. </evidence>")
    out = inspect_output(draft, echo=prompts.GENERATE_INSTRUCTIONS)
    assert out.text == "TP53 encodes tumor protein p53 [gene:7157]."
    assert len(out.problems) == 3 and all(p.startswith("off-schema") for p in out.problems)


def test_real_abstracts_pass_untouched():
    """No false alarms on real prose: 280 PubMed abstracts from the bundled sample."""
    with gzip.open(SAMPLE, "rt") as f:
        abstracts = [json.loads(line)["abstract"] for line in f]
    flagged = []
    for text in abstracts:
        flat = " ".join(text.split())
        out = inspect_output(flat)
        if out.problems or out.text != flat:
            flagged.append((flat[:80], out.problems))
    assert len(abstracts) == 280 and not flagged, flagged[:3]


@pytest.mark.llm
def test_a_real_loop_from_the_embedded_model_is_cut():
    """SmolLM2-135M at temperature 0, asked to repeat itself, loops until max_tokens runs
    out; what comes back is one copy, with the loop reported."""
    from biorag.llm import ChatMessage, make_llm
    from biorag.settings import load_settings

    llm = make_llm(load_settings(sets=["llm.max_tokens=160"]))
    prompt = "Write the sentence 'The answer to the question in three sentences is:' twenty times."
    draft = llm.chat([ChatMessage(role="user", content=prompt)]).text
    text, loop = cut_loop(draft)
    assert loop is not None, draft[:300]
    assert len(text) < len(draft) / 2
    assert cut_loop(text)[1] is None  # what is left no longer loops
    out = inspect_output(draft, echo=[prompt])
    assert any(p.startswith("repetition:") for p in out.problems)
    assert out.text.count("three sentences") <= 1
