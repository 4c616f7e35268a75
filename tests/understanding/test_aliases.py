"""Alias lists name each alias once, whatever its case: HGNC and NCBI list some aliases in
two spellings (PTPN22: gene_info's Synonyms have LYP, LYP1, LYP2; HGNC's alias_symbol has Lyp,
Lyp1, Lyp2), which the answer used to repeat. Values: the bundled gene_info/HGNC snapshot."""

from __future__ import annotations

from retrievers.gene.fields import distinct_names


def test_aliases_of_a_real_record_are_listed_once_whatever_their_case(agent):
    for question, expected in [
        ("what are the aliases of PTPN22", "PTPN22, LYP, LYP1, LYP2, PEP, PTPN22.5, PTPN22.6, PTPN8"),
        ("RBFOX3 is also known as", "RBFOX3, FOX-3, FOX3, HRNBP3, NEUN"),
    ]:
        ans = agent.answer(question)
        assert ans.answer == expected, (question, ans.answer)
        names = ans.answer.split(", ")
        assert len({n.lower() for n in names}) == len(names)
        assert ans.sufficient


def test_the_symbol_keeps_its_spelling_and_an_upper_case_spelling_wins():
    assert distinct_names("PTPN22", ["LYP", "Lyp", "Ptpn22", "lyp1", "LYP1"]) == ["PTPN22", "LYP", "LYP1"]
    assert distinct_names("RBFOX3", ["NeuN", "NEUN", "FOX-3"]) == ["RBFOX3", "NEUN", "FOX-3"]
