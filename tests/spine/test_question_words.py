"""The word lists question understanding reads (biorag/resources/question_words.json): each
says what it is for, and holds the lower-case words a question is compared with (questions
are read lower-cased, so a capitalised entry would never match)."""

import ast
import json
from pathlib import Path

from biorag.understanding.question_words import word_list, word_map, words

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "biorag" / "resources" / "question_words.json").read_text(encoding="utf-8"))
LISTS = {k: v for k, v in DATA.items() if not k.startswith("_")}


def test_every_list_says_what_it_is_for_and_holds_distinct_lower_case_words():
    assert len(LISTS) >= 10
    for name, entry in LISTS.items():
        assert set(entry) == {"about", "words"}, name
        about = entry["about"]
        assert about.strip() and "\n" not in about and len(about) <= 300, name
        items = list(entry["words"].items()) if isinstance(entry["words"], dict) else entry["words"]
        flat = [w for item in items for w in (item if isinstance(item, tuple) else (item,))]
        flat = [x for w in flat for x in (w if isinstance(w, list) else [w])]  # a map's values may be word lists
        assert flat and all(isinstance(w, str) and w == w.strip().lower() and w for w in flat), name
        if isinstance(entry["words"], list):
            assert len(set(entry["words"])) == len(entry["words"]), f"{name} repeats a word"


def test_the_loaders_read_the_lists_the_code_names():
    assert "what" in words("filler") and "gene" in words("not_genes")
    assert word_list("eponym_heads")[0] == "syndrome"
    assert word_map("same_word")["identifier"] == "id"
    named = set()
    for path in (ROOT / "biorag").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("words", "word_list", "word_map") and node.args
                    and isinstance(node.args[0], ast.Constant)):
                named.add(node.args[0].value)
    assert named and named <= set(LISTS), named - set(LISTS)
