"""One naming of a gene list: `biorag ask` answers a wording with the term `biorag geneset`
shows for it (the name for a plain question, the GO line for a question naming GO), on real
GeneAgent GO sets, genes shuffled; and the rule that may prefer a GO term holding more of
the genes (`geneset.go_cover_share`) moves both alike."""

from __future__ import annotations

import csv
import random
import re
from pathlib import Path

import pytest

from biorag.knowledge.enrichment import covering_term
from biorag.settings import load_settings
from cli.commands.geneset import render
from retrievers.geneset.retriever import GeneSetInterpreter, first_go_term
from tests.agents import newcomer_agent

SETS = Path(__file__).parents[1] / "data" / "geneset" / "go_sets_40.csv"
WORDINGS = {"go_term": "which gene ontology term do {genes} share?", "name": "what do {genes} have in common?"}
_TERM_ID = re.compile(r"\b(GO:\d{7}|R-HSA-\d+|HP:\d{7}|D\d{6})\b")


def _rows() -> list[dict]:
    with SETS.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _and_list(genes: list[str]) -> str:
    return ", ".join(genes[:-1]) + " and " + genes[-1]


def _interpreter(data_dir: Path, share: float) -> GeneSetInterpreter:
    return GeneSetInterpreter.from_settings(load_settings(overrides={
        "data_dir": str(data_dir), "geneset": {"go_cover_share": share}}))


@pytest.mark.parametrize("share", [0.0, 0.5])
def test_ask_names_the_term_geneset_shows_for_the_wording(geneset_data_dir, share):
    rng = random.Random(11)
    it = _interpreter(geneset_data_dir, share)
    covered = refused = 0
    ans_go = None
    try:
        with newcomer_agent(geneset_data_dir, settings={"geneset": {"go_cover_share": share}}) as agent:
            for row in _rows():
                genes = row["Genes"].split()
                rng.shuffle(genes)
                report = it.interpret(genes)
                shown = render(report.as_dict())
                covered += report.go_term is not first_go_term(report)
                for wording, template in WORDINGS.items():
                    # no GO term holding two of the genes: both refuse, the closest term a lead
                    term = (report.go_term if wording == "go_term" else None) or report.name_term
                    ans = agent.answer(template.format(genes=_and_list(genes)))
                    ans_go = ans if wording == "go_term" else ans_go
                    assert _TERM_ID.findall(ans.answer)[:1] == [term.term], (wording, genes, ans.answer[:300], term)
                    assert term.term in shown.split("\n\n")[0], shown[:400]  # above the details
                if report.go_term is not None:  # a GO term `ask` refuses, geneset shows as a lead only
                    line = next(x for x in shown.splitlines() if x.startswith("GO Biological Process term:"))
                    refused += bool(report.go_why_not)
                    assert ("a lead only" in line) == bool(report.go_why_not) == (not ans_go.sufficient), line
    finally:
        it.close()
    # the rule is exercised where it is on: some sets get a GO term holding more genes
    assert (covered > 0) == (share > 0), covered
    assert refused > 0  # some first GO terms explain too little of their set


def test_a_first_term_holding_under_the_share_gives_way_to_one_holding_more(geneset_data_dir):
    """On real sets whose first-ranked GO term holds under half the genes: with share 0.5
    the answer holds more of them, is significant and at least half as strong; with share
    0 (the default) it is the first-ranked term."""
    it = _interpreter(geneset_data_dir, 0.0)
    seen = 0
    try:
        for row in _rows():
            report = it.interpret(row["Genes"].split())
            first = first_go_term(report)
            asked = len(report.used)
            if first is None or first.k >= 0.5 * asked:
                continue
            seen += 1
            assert report.go_term is first
            ranked = report.enriched["go_bp"]
            chosen = covering_term(first, ranked, asked, 0.5, it.rule.alpha)
            better = [e for e in ranked if e.k > first.k and e.p_adj <= it.rule.alpha
                      and e.p_adj <= first.p_adj ** 0.5]
            if not better:
                assert chosen is first
                continue
            assert chosen.k == max(e.k for e in better) and chosen in better, (chosen, first)
            assert covering_term(first, ranked, asked, 0.0, it.rule.alpha) is first
    finally:
        it.close()
    assert seen >= 3, seen
