"""The registered sources' classes, as the composition root hands them to question
understanding and grounding, and those two bound to them: what tests of reading a question
or a record share."""

from __future__ import annotations

from application.catalog import registered_sources, retriever_class
from biorag.loop.grounding import structured_answer as _structured_answer
from biorag.understanding.analysis import analyse as _analyse

SOURCES = {name: retriever_class(name) for name in registered_sources()}


def analyse(question):
    return _analyse(question, SOURCES)


def structured_answer(analysis, evidence):
    return _structured_answer(analysis, evidence, SOURCES)
