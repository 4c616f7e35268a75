"""The gene store's annotation tables (indexing/gene_annotations.py), checked against the
shipped files they come from, read here independently: every gene's GO BP terms are its own
direct annotations with their evidence codes, ranked experimental and specific first, none
said already by a kept more specific term; Reactome pathways are the gene's own; every rsID
of the ClinVar subset is there with its gene."""

from __future__ import annotations

import gzip
import random
import sqlite3
from collections import defaultdict

import pytest

from biorag.contracts.errors import InputError
from biorag.knowledge.gene_sets import REACTOME_GMT, ancestors, term_parents
from biorag.storage.gene_store_schema import GO_EVIDENCE_TIER
from indexing.gene_annotations import CLINVAR_VCF, GO_DIRECT, check_clinvar_vcf, rank_go


@pytest.fixture(scope="module")
def con(full_gene_store_path):
    c = sqlite3.connect(full_gene_store_path)
    yield c
    c.close()


def _go_file() -> dict[int, dict[str, set[str]]]:
    out: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    with gzip.open(GO_DIRECT, "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            gid, _sym, term, code = line.rstrip("\n").split("\t")
            if code != "ND":
                out[int(gid)][term].add(code)
    return out


def test_go_terms_are_the_genes_own_ranked_specific_and_experimental_first(con):
    annotated = _go_file()
    parents = term_parents("go_bp")
    genes = random.Random(5).sample(sorted(g for (g,) in con.execute("SELECT DISTINCT gene_id FROM gene_go")), 300)
    for gid in genes:
        rows = con.execute("SELECT go_id, evidence, rank FROM gene_go WHERE gene_id=? ORDER BY rank", (gid,)).fetchall()
        assert [r[2] for r in rows] == list(range(len(rows)))
        own = annotated[gid]
        for term, evidence, _ in rows:
            assert set(evidence.split(",")) == own[term], (gid, term)  # the file's codes, all of them
        tiers = [min(GO_EVIDENCE_TIER[c] for c in ev.split(",")) for _, ev, _ in rows]
        assert tiers == sorted(tiers), (gid, rows)  # experimental evidence first
        kept = {t: tier for (t, _, _), tier in zip(rows, tiers, strict=True)}
        for term, tier in kept.items():  # no kept term is a broader form of another as well supported
            assert not any(term in ancestors(other, parents) and kept[other] <= tier for other in kept), (gid, term)
        dropped = set(own) - set(kept)
        for term in dropped:  # a term left out is said by a more specific one, as well supported
            best = min(GO_EVIDENCE_TIER[c] for c in own[term])
            assert any(term in ancestors(o, parents) and min(GO_EVIDENCE_TIER[c] for c in own[o]) <= best for o in own)


def test_rank_go_prefers_experimental_evidence_over_a_smaller_electronic_term():
    sizes = {"GO:A": 400, "GO:B": 3}
    ranked = rank_go({"GO:A": {"IDA"}, "GO:B": {"IEA"}}, sizes, {})
    assert [t for t, _ in ranked] == ["GO:A", "GO:B"]
    ranked = rank_go({"GO:A": {"IDA"}, "GO:B": {"IMP"}}, sizes, {})
    assert [t for t, _ in ranked] == ["GO:B", "GO:A"]  # same support: the more specific first
    assert rank_go({"GO:A": {"IDA"}, "GO:B": {"IDA"}}, sizes, {"GO:B": frozenset({"GO:A"})}) == [("GO:B", "IDA")]


def test_pathways_are_the_genes_own_in_reactome(con):
    members: dict[str, set[str]] = {}
    with gzip.open(REACTOME_GMT, "rt", encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            members[cols[1]] = set(cols[2:])
    # every link, not an unseeded sample: at a 0.7 % miss rate, 2,000 random rows crossed the
    # 1 % bound now and then (21 of 2,000 once), so the test failed by chance
    rows = con.execute("SELECT g.symbol, p.pathway_id FROM gene_pathways p JOIN genes g USING (gene_id)").fetchall()
    assert len(rows) >= 2000
    misses = [(s, p) for s, p in rows if s not in members[p]]
    assert len(misses) <= 0.01 * len(rows), misses[:5]  # a few genes HGNC renamed since Reactome listed them


def test_every_clinvar_rsid_is_held_with_its_gene(con):
    expected: dict[str, set[str]] = defaultdict(set)
    with gzip.open(CLINVAR_VCF, "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#"):
                info = dict(kv.split("=", 1) for kv in line.rstrip("\r\n").split("\t")[7].split(";") if "=" in kv)
                if "RS" in info:
                    expected["rs" + info["RS"]] |= {g.split(":")[0] for g in info.get("GENEINFO", "").split("|") if g}
    held: dict[str, set[str]] = defaultdict(set)
    for rsid, symbol in con.execute("SELECT rsid, symbol FROM variants WHERE release='2026-02-26'"):
        held[rsid] |= {symbol} if symbol else set()
    assert len(expected) == 43471 and held == expected


def test_a_file_that_is_no_vcf_is_refused_before_the_build(tmp_path):
    bad = tmp_path / "x.vcf"
    bad.write_text("##fileformat=VCFv4.1\nchrom pos\n")
    with pytest.raises(InputError, match="not a VCF"):
        check_clinvar_vcf(bad)
    check_clinvar_vcf(CLINVAR_VCF)
