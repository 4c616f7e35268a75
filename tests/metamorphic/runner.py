"""Running a relation or a family: shared by the tests and `python -m tests.metamorphic.report`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.internal.conjecture import providers

from tests.metamorphic.relations import Case, Family, Relation

SEED = 24
Ask = Callable[[str], str]


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis (6.131 and later) draws about 1 in 20 integers from the literals of the
    project modules imported so far (`providers._get_local_constants`, read from
    sys.modules): with a fixed seed, the cases a relation draws then depend on which tests
    ran before it. Drawing with none of them makes the draw depend on the seed alone."""
    empty = providers.Constants()
    saved = providers._get_local_constants
    providers.CONSTANTS_CACHE.cache.clear()
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = saved
        providers.CONSTANTS_CACHE.cache.clear()


def draw_cases(rel: Relation) -> list[Case]:
    """The cases of `rel` in the order drawn (repeats included): the same in every run,
    whatever was imported or drawn before."""
    cases: list[Case] = []

    @seed(SEED)
    @settings(max_examples=rel.examples, database=None, deadline=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(rel.cases())
    def draw(case: Case) -> None:
        cases.append(case)

    with _no_local_constants():
        draw()
    return cases


def run_relation(rel: Relation, ask: Ask, first_only: bool = False) -> tuple[list[Case], list[tuple[Case, str, str]]]:
    """(the distinct cases drawn, the broken ones with both answers). `first_only`: stop at
    the first broken case (a relation marked xfail needs no more to stay red)."""
    cases = draw_cases(rel)
    broken = []
    for case in dict.fromkeys(cases):
        a, b = ask(case.base), ask(case.variant)
        if rel.key(a, case) != rel.key(b, case):
            broken.append((case, a, b))
            if first_only:
                break
    return list(dict.fromkeys(cases)), broken


def run_family(fam: Family, ask: Ask, give_up: int | None = None) -> tuple[list, list[tuple[str, str]]]:
    """(base questions, [(question, answer) of each wrong one]). `give_up`: stop once more
    than this many are wrong."""
    questions, wrong = fam.questions(), []
    for q, record, extra in questions:
        if not fam.right(ask(q), record, extra):
            wrong.append((q, ask(q)))
            if give_up is not None and len(wrong) > give_up:
                break
    return questions, wrong


def allowed_wrong(n: int, right: float) -> int:
    """How many of n base questions may be wrong with at least `right` of them right."""
    return int(round((1 - right) * n, 6))
