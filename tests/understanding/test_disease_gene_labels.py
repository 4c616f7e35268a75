"""Disease -> genes, labelled: every OMIM phenotype that NCBI's mim2gene_medgen links both to
a causal gene and to a modifier or susceptibility gene (read here from the bundled file)
is answered with the causal genes on the first line and the others under their label; the
same first line whatever the question's wording."""

from __future__ import annotations

import gzip
from collections import defaultdict

import pytest

from biorag.knowledge.gene_link_labels import labelled_text, link_label
from indexing.gene_store_build import snapshot_paths
from retrievers.omim.local import disease_evidence
from retrievers.omim.retriever import DISEASE_GENES, read_omim_field
from retrievers.stores.gene_store import GeneStore


def _mixed() -> dict[str, dict[str, set[str]]]:
    """OMIM phenotype -> Gene ID -> NCBI comments, for phenotypes with a causal gene and a
    modifier or susceptibility gene."""
    links: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    with gzip.open(dict(snapshot_paths())["mim2gene_medgen"], "rt", encoding="utf-8") as fh:
        for line in fh:
            mim, gid, kind, _src, _cui, comment = line.rstrip("\n").split("\t")[:6]
            if kind == "phenotype" and gid.isdigit():
                links[mim][gid].add("" if comment == "-" else comment)
    return {mim: genes for mim, genes in links.items()
            if any(c == {""} for c in genes.values())
            and any("modifier" in n or "susceptibility" in n for c in genes.values() for n in c)}


MIXED = _mixed()


@pytest.fixture(scope="module")
def store(store_path):
    s = GeneStore(store_path)
    yield s
    s.close()


def test_the_mixed_phenotypes_are_all_there():
    assert len(MIXED) >= 50  # 53 in the bundled mim2gene_medgen


def test_no_modifier_or_susceptibility_gene_is_listed_as_causal(store):
    checked = 0
    for mim, genes in sorted(MIXED.items()):
        disease_id = f"OMIM:{mim}"
        row = store._con.execute("SELECT name FROM diseases WHERE disease_id=?", (disease_id,)).fetchone()
        if row is None:  # a phenotype the dictionary names under another catalogue's id
            continue
        linked = store.genes_for_disease(disease_id)
        symbol = {str(g["gene_id"]): g["symbol"] for g in linked}
        qualified = {symbol[gid] for gid, c in genes.items() if gid in symbol and
                     any("modifier" in n or "susceptibility" in n for n in c)}
        causal = {symbol[gid] for gid, c in genes.items() if gid in symbol and c == {""}}
        ev = disease_evidence({"disease_id": disease_id, "name": row[0], "sources": ["omim"]}, linked)
        reading = read_omim_field(DISEASE_GENES, [ev], [])
        first, *rest = reading.answer.split("\n")
        listed = set(first.split(", "))
        assert not listed & qualified, (mim, row[0], reading.answer)
        assert causal <= listed, (mim, row[0], reading.answer)
        labelled = {g for line in rest for g in line.split(": ", 1)[1].split(", ")}
        assert qualified <= labelled, (mim, row[0], reading.answer)
        for line in rest:  # each gene under the label its catalogue comment gives
            label, names = line.split(": ", 1)
            for g in names.split(", "):
                gid = next(i for i, s in symbol.items() if s == g)
                assert any(link_label(n) == label for n in genes.get(gid, {""})) or gid not in genes, (mim, line)
        checked += 1
    assert checked >= 40, checked


def test_a_list_of_causal_genes_only_is_unchanged():
    assert labelled_text({"causal": ["FBN1"]}) is None
    assert labelled_text({"causal": ["APP"], "susceptibility": ["MPO", "PLAU"]}) == "APP\nsusceptibility: MPO, PLAU"
    assert labelled_text({"modifier": ["BMP2"]}) == "BMP2 (modifier)"  # no causal gene: the label travels with it
    assert labelled_text({"candidate": ["EEF2"], "somatic": ["KRAS"]}) == "EEF2 (candidate)\nsomatic: KRAS"


PHRASINGS = ["Which genes are associated with {d}?", "what genes cause {dl}", "{d} genes?",
             "Could you please tell me the genes linked to {d}? Thanks!", "The genes of {d} are"]


def test_the_first_line_is_the_same_in_every_phrasing(agent, store):
    names = []
    for mim in sorted(MIXED):
        row = store._con.execute("SELECT name FROM diseases WHERE disease_id=?", (f"OMIM:{mim}",)).fetchone()
        if row and "," not in row[0] and ";" not in row[0]:
            names.append(row[0])
    assert len(names) >= 8
    for name in names[:8]:
        answers = [agent.answer(p.format(d=name, dl=name.lower())) for p in PHRASINGS]
        firsts = {a.answer.split("\n")[0] for a in answers}
        assert len(firsts) == 1 and all(a.sufficient for a in answers), (name, [a.answer for a in answers])


def test_a_family_gene_reached_only_through_susceptibility_loci_is_labelled(store):
    """A family ("Celiac disease") reaches its genes through ClinVar "related" links; a gene
    whose entries of the family's name are all OMIM susceptibility loci ("Celiac disease,
    susceptibility to, 3", linked by ClinVar as "associated", no NCBI comment) is labelled
    susceptibility, never listed as a cause. The families are the first N of the store
    (by id) that have such a gene."""
    from biorag.knowledge.disease_gene_order import about

    families = store._con.execute(
        "SELECT DISTINCT d.disease_id, d.name FROM diseases d JOIN disease_genes g ON g.disease_id = d.disease_id "
        "WHERE g.source = 'clinvar' AND g.note = 'related' AND d.name NOT LIKE '%,%' ORDER BY d.disease_id").fetchall()
    checked = 0
    for disease_id, name in families:
        linked = store.genes_for_disease(disease_id)
        if len(linked) < 2 or any(x != {"source": "clinvar", "note": "related"} for g in linked for x in g["links"]):
            continue
        entries = store._gene_entries([g["gene_id"] for g in linked])
        loci_only = {g["symbol"] for g in linked
                     if (mine := [n for _, n, links in entries.get(g["gene_id"], [])
                                  if about(name, n) and links != [("clinvar", "related")]])
                     and all("susceptibility to" in n.lower() for n in mine)}
        if not loci_only:
            continue
        ev = disease_evidence({"disease_id": disease_id, "name": name, "sources": ["clinvar"]}, linked)
        answer = read_omim_field(DISEASE_GENES, [ev], []).answer
        first, *rest = answer.split("\n")
        unlabelled = set(first.split(", ")) if "(" not in first else set()
        assert not unlabelled & loci_only, (disease_id, name, answer)
        checked += 1
        if checked == 10:
            break
    assert checked >= 5, checked


def test_a_hop_through_what_causes_a_disease_follows_its_causal_genes_only(agent, store):
    """"Where is the gene that causes X?" goes on to the causal genes the reading lists first;
    a modifier or susceptibility gene is listed under its label, never looked up as X's
    gene. "Genes associated with X and what chromosome" (GeneHop's wording) goes on to all."""
    from biorag.loop.grounding import inputs_of
    from biorag.understanding.analysis import analyse

    checked = 0
    for mim in sorted(MIXED):
        disease_id = f"OMIM:{mim}"
        row = store._con.execute("SELECT name FROM diseases WHERE disease_id=?", (disease_id,)).fetchone()
        if row is None or "," in row[0] or ";" in row[0]:
            continue
        linked = store.genes_for_disease(disease_id)
        ev = disease_evidence({"disease_id": disease_id, "name": row[0], "sources": ["omim"]}, linked)
        reading = read_omim_field(DISEASE_GENES, [ev], [])
        first = reading.answer.split("\n")[0]
        if first.endswith(")"):  # no causal gene: the first label's genes are followed
            continue
        ids = {g["symbol"]: str(g["gene_id"]) for g in linked}
        causal = [ids.get(g, g) for g in first.split(", ")]
        assert set(causal) < set(reading.hop_inputs)
        for question, expected in ((f"Where is the gene that causes {row[0]} located?", causal),
                                   (f"Which chromosome is the gene mutated in {row[0]} on?", causal),
                                   (f"genes associated with {row[0]} and what chromosome", reading.hop_inputs)):
            a = analyse(question, agent.retrievers, agent.lexicon)
            if a.intent is None or len(a.intent.hops) != 2:
                continue  # the name read otherwise: no hop to follow
            assert inputs_of(a, 1, reading) == expected, (question, reading.answer)
            checked += 1
    assert checked >= 60, checked
