"""Variants answered offline from the three ClinVar releases bundled with BioRAG, or said
plainly why not. The expectations are read here, independently of the loader, from the
bundled files themselves: rsIDs of many genes drawn (fixed seed) from the 2026 VCF and from
the 2021 variant_summary, protein changes drawn from the 2021 and 2016 tables; each asked
as people write it (several phrasings, one- and three-letter protein changes)."""

from __future__ import annotations

import gzip
import random
import re
import time
from collections import defaultdict

import pytest

from biorag.understanding.protein_changes import THREE, protein_change, protein_changes
from indexing.clinvar_bundle import BUNDLE_COLUMNS, MACARTHUR_2016, SUMMARY_2021
from indexing.clinvar_load import BUNDLE_DIR
from indexing.gene_annotations import CLINVAR_VCF

SEED = 38
ONE = {v: k for k, v in THREE.items() if k != "X"}


def _bundle(name: str) -> list[dict[str, str]]:
    with gzip.open(BUNDLE_DIR / name, "rt", encoding="utf-8") as fh:
        assert next(fh).rstrip("\n").split("\t") == list(BUNDLE_COLUMNS)
        return [dict(zip(BUNDLE_COLUMNS, line.rstrip("\n").split("\t"), strict=True)) for line in fh]


def _vcf() -> dict[str, list[tuple[str, str]]]:
    """rsID -> (gene symbol, significance) of the 2026 VCF."""
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    with gzip.open(CLINVAR_VCF, "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.startswith("#"):
                info = dict(kv.split("=", 1) for kv in line.rstrip("\n").split("\t")[7].split(";") if "=" in kv)
                if "RS" in info:
                    for g in info.get("GENEINFO", "").split("|"):
                        out["rs" + info["RS"]].append((g.split(":")[0], info.get("CLNSIG", "").replace("_", " ")))
    return out


VCF = _vcf()
SUMMARY = _bundle(SUMMARY_2021)
OLDEST = _bundle(MACARTHUR_2016)


def _rsids() -> list[tuple[str, str, str, str]]:
    """(rsID, gene, significance, release) of 20 rsIDs of 20 genes: 6 of the 2026 VCF, 14 of
    the 2021 release only; each with one gene and one significance in its newest release."""
    rng = random.Random(SEED)
    newest = sorted((rs, rows[0][0], rows[0][1]) for rs, rows in VCF.items()
                    if len(set(rows)) == 1 and rows[0][0] and rows[0][1])
    by_rs: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in SUMMARY:
        if r["rsid"]:
            by_rs[r["rsid"]].add((r["symbol"], r["significance"]))
    older = sorted((rs, *next(iter(s))) for rs, s in by_rs.items() if rs not in VCF and len(s) == 1
                   and next(iter(s))[0] and next(iter(s))[1])
    out, genes = [], set()
    for pool, n, release in ((newest, 6, "2026-02-26"), (older, 14, "2021-01")):
        for rs, gene, sig in rng.sample(pool, len(pool)):
            if gene not in genes and len([o for o in out if o[3] == release]) < n:
                genes.add(gene)
                out.append((rs, gene, sig, release))
    assert len(out) == 20
    return out


def _one_letter(hgvs_p: str) -> str | None:
    m = re.fullmatch(r"p\.([A-Z][a-z]{2})(\d+)([A-Z][a-z]{2})", hgvs_p)
    if not m or m.group(1) not in ONE or m.group(3) not in ONE:
        return None
    return f"{ONE[m.group(1)]}{m.group(2)}{ONE[m.group(3)]}"


def _protein_changes() -> list[tuple[str, str, str, str]]:
    """(gene, one-letter change, significance, release) of 10 missense changes of 10 genes:
    7 the 2021 release holds (and not the 2026 one, by rsID), 3 only the 2016 table holds."""
    rng = random.Random(SEED + 1)
    named: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for r in SUMMARY:
        named[(r["symbol"], r["hgvs_p"])].append(r)
    recent = sorted(k for k, rows in named.items() if len(rows) == 1 and _one_letter(k[1]) and rows[0]["rsid"]
                    and rows[0]["rsid"] not in VCF and rows[0]["significance"] and rows[0]["position"])
    summary_sites = {(r["chromosome"], r["grch37_position"]) for r in SUMMARY}
    old_named: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for r in OLDEST:
        old_named[(r["symbol"], r["hgvs_p"])].append(r)
    oldest = sorted(k for k, rows in old_named.items() if len(rows) == 1 and _one_letter(k[1]) and k not in named
                    and (rows[0]["chromosome"], rows[0]["grch37_position"]) not in summary_sites
                    and rows[0]["significance"] and ";" not in rows[0]["significance"])
    out, genes = [], set()
    for pool, n, release, rows in ((recent, 7, "2021-01", named), (oldest, 3, "2016-05-05", old_named)):
        taken = 0
        for gene, hgvs_p in rng.sample(pool, len(pool)):
            if gene not in genes and taken < n:
                genes.add(gene)
                taken += 1
                out.append((gene, _one_letter(hgvs_p), rows[(gene, hgvs_p)][0]["significance"], release))
    assert len(out) == 10
    return out


RSIDS = _rsids()
CHANGES = _protein_changes()
SIGNIFICANCE = ["What is the clinical significance of {x}?", "Is {x} pathogenic?", "{x} clinvar classification",
                "could you tell me the ClinVar significance of {x}, please?", "clinical significance of {x}"]


def test_protein_changes_are_read_one_and_three_letter():
    for written in ("V600E", "p.V600E", "Val600Glu", "p.(Val600Glu)", "p.Val600Glu", "BRAF:p.V600E"):
        assert protein_change(f"BRAF {written}") == "p.Val600Glu", written
    assert protein_change("BRCA1 R1443*") == protein_change("BRCA1 R1443X") == "p.Arg1443Ter"
    for not_a_change in ("S100A8", "the E1 gene", "rs121913529", "v600e", "CD34"):
        assert protein_changes(not_a_change) == [], not_a_change


@pytest.mark.parametrize("rsid, gene, significance, release", RSIDS)
def test_an_rsid_is_answered_with_gene_significance_and_release(agent, rsid, gene, significance, release):
    for q in SIGNIFICANCE:
        ans = agent.answer(q.format(x=rsid))
        first = ans.answer.split("\n")[0]
        assert ans.sufficient, (q, ans.answer)
        assert first.startswith(f"{rsid}: {significance} (ClinVar {release}"), (q, first)
    gene_answer = agent.answer(f"Which gene is {rsid} in?")
    assert gene_answer.sufficient and gene_answer.answer == gene, gene_answer.answer


@pytest.mark.parametrize("gene, change, significance, release", CHANGES)
def test_a_protein_change_is_answered_from_the_newest_release_holding_it(agent, gene, change, significance, release):
    for q in (f"What is the clinical significance of {gene} {change}?", f"Is {gene} {change} pathogenic?",
              f"clinvar classification of the {change} variant in {gene}",
              f"clinical significance of {gene} p.{protein_change(change)[2:]}"):
        ans = agent.answer(q)
        assert ans.sufficient, (q, ans.answer)
        first = ans.answer.split("\n")[0]
        assert f": {significance} (ClinVar {release}" in first, (q, first)
        assert f"{gene} {protein_change(change)}" in first or first.startswith("rs"), (q, first)


def test_an_rsid_no_release_holds_is_said_so_quickly(agent):
    held = {r["rsid"] for r in SUMMARY} | set(VCF)
    unknown = next(f"rs{n}" for n in range(987654321, 987654400) if f"rs{n}" not in held)
    for q in (f"What is the clinical significance of {unknown}?", f"Which gene is {unknown} in?"):
        t0 = time.perf_counter()
        ans = agent.answer(q)
        seconds = time.perf_counter() - t0
        assert not ans.sufficient and seconds <= 2.0, (q, seconds, ans.answer)
        assert f"{unknown} is not in the offline ClinVar data (releases 2026-02-26, 2021-01, 2016-05-05)" in ans.answer, ans.answer
        assert "--set tool_io.mode=live" in ans.answer


CONDITIONS = ["What disease is {x} associated with?", "{x} - what disease?", "which conditions is {x} linked to",
              "hi, what phenotype does {x} cause? thanks"]


def _conditions_of(rsid: str) -> set[str]:
    """Every condition name the bundled releases give the rsID (read here, not by the loader)."""
    named = {c for r in SUMMARY if r["rsid"] == rsid for c in r["conditions"].split("|")}
    return {c for c in named if c and not re.fullmatch(r"not provided|not specified|see cases|\d+ conditions", c)}


#: the drawn rsIDs of the 2021 release that name a condition there
NAMED = [r for r in RSIDS if r[3] == "2021-01" and _conditions_of(r[0])]


def test_most_drawn_variants_name_a_condition():
    assert len(NAMED) >= 8, NAMED


@pytest.mark.parametrize("rsid, gene, significance, release", NAMED[:8])
def test_a_variants_diseases_are_the_conditions_clinvar_records_for_it(agent, rsid, gene, significance, release):
    """Asked what disease a variant is linked to: the conditions ClinVar records for that
    variant, never the diseases of its gene (whose other variants cause other diseases)."""
    gold = _conditions_of(rsid)
    for q in CONDITIONS:
        ans = agent.answer(q.format(x=rsid))
        assert ans.sufficient, (q, ans.answer)
        first = ans.answer.split("\n")[0]
        named = first.rsplit(f" ({rsid}, ClinVar ", 1)[0].split(" (+")[0].split("; ")
        assert named and set(named) <= gold, (q, first, gold)
        assert f"({rsid}, ClinVar {release}" in first, (q, first)
    assert agent.answer(f"Which gene is {rsid} associated with?").answer == gene
