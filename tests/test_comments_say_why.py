"""Comments and docstrings say why, not when: none names an issue number (the tracker's
history belongs in commit messages and notes, and its numbers mean nothing to a reader of
the code)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from tests.test_floors import MAY_IMPORT, ROOT

ISSUE_NUMBER = re.compile(r"issue[ #-]{0,2}\d+", re.I)
PACKAGES = [*MAY_IMPORT, "tests"]


def prose_of(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and docstring in `source`."""
    found = [(tok.start[0], tok.string) for tok in tokenize.generate_tokens(io.StringIO(source).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                found.append((node.body[0].lineno, doc))
    return found


def issue_numbers(source: str) -> list[tuple[int, str]]:
    return sorted((line, m.group(0)) for line, text in prose_of(source) for m in ISSUE_NUMBER.finditer(text))


def test_no_comment_or_docstring_names_an_issue_number():
    bad = [f"{path.relative_to(ROOT)}:{line}: {found}"
           for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))
           for line, found in issue_numbers(path.read_text())]
    assert not bad, "say why, not which issue:\n" + "\n".join(bad)


def test_the_check_sees_comments_and_docstrings_but_not_code():
    source = ('"""Module (Issue 12)."""\n'
              "def f():\n"
              '    """Why: issue-24 said so."""\n'
              '    label = "issue 7"  # after issue #9\n'
              "    return label\n")
    assert [found for _, found in issue_numbers(source)] == ["Issue 12", "issue-24", "issue #9"]
