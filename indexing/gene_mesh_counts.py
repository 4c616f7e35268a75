"""Count, per gene, the MeSH descriptors of the indexed abstracts that name it.

Run by `indexing/build.py` once a collection verifies; the reader and the file layout are
in biorag/storage/gene_mentions.py. The whole collection is scanned, so updates and resumed
builds produce the same counts as a fresh build of the same records.

A gene is "named" when its official symbol occurs as a word, in the case HGNC writes it,
in the title or abstract. The dictionary is every symbol of the bundled GO BP and
Reactome libraries (the genes enrichment can ask about). Symbols that are also everyday
upper-case words or abbreviations in abstracts (CAT, SET, MAX, ...) are left out: they
would credit a gene with every abstract that shouts.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from biorag.knowledge.gene_sets import bundled_symbols
from biorag.storage.gene_mentions import PMIDS_KEPT, SCHEMA, gene_mesh_path
from biorag.storage.sqlite_store import build_atomically, write_build_record
from indexing.collection_rows import collection_pages

if TYPE_CHECKING:
    from collections.abc import Iterable

    from biorag.settings import Settings

#: symbols that are common words or abbreviations in abstracts before they are genes
NOT_GENE_MENTIONS = frozenset({
    "CAT", "SET", "MAX", "AGE", "REST", "CAD", "HIP", "MAL", "TAT", "PIGS", "CAMP", "CAPS", "COPD",
    "DAMAGE", "FAT", "GAS", "IMPACT", "LARGE", "MICE", "NHS", "SDS", "SHE", "SMS", "STAR", "WAS",
    "END", "TOP", "TANK", "MARS", "WARS", "POLE", "PIN", "COIL", "ECT", "IMP", "CP", "CS", "PC",
    "GC", "CD", "TH", "HR", "MR", "II", "III", "IV", "ARC", "NPC", "SPP", "GAL", "CLOCK", "ROCK",
    "CA1", "CA2", "CA3", "CA4", "DBP", "APC",  # hippocampal fields, blood pressure, antigen-presenting cells
})
#: MeSH check tags: who or what was studied, not what the genes do
CHECK_TAGS = frozenset({
    "Humans", "Animals", "Male", "Female", "Mice", "Rats", "Aged", "Adult", "Middle Aged",
    "Aged, 80 and over", "Young Adult", "Adolescent", "Child", "Child, Preschool", "Infant",
    "Infant, Newborn", "Pregnancy", "Cattle", "Dogs", "Cricetinae", "Rabbits", "Swine", "Cats",
    "Guinea Pigs", "Chick Embryo", "Horses", "Sheep", "Mice, Transgenic", "Mice, Inbred C57BL",
    "Rats, Sprague-Dawley", "Rats, Wistar",
})
_TOKEN = re.compile(r"(?<![A-Za-z0-9-])[A-Z][A-Za-z0-9-]*[A-Z0-9](?![A-Za-z0-9-])")


def genes_named(text: str, dictionary: frozenset[str]) -> set[str]:
    return {t for t in _TOKEN.findall(text) if t in dictionary and t not in NOT_GENE_MENTIONS}


def count_gene_mesh(rows: Iterable[dict[str, Any]]) -> tuple[dict, dict, dict, int]:
    """(mentions[(symbol, ui)] -> pmids, descriptor names, gene -> n pmids, records) from
    rows with pmid, title, abstract, mesh_ui, mesh_name."""
    dictionary = frozenset(s for s in bundled_symbols() if len(s) >= 3 and not s.islower())
    mentions: dict[tuple[str, str], list[int]] = defaultdict(list)
    names: dict[str, str] = {}
    per_gene: dict[str, int] = defaultdict(int)
    n = 0
    for row in rows:
        n += 1
        named = genes_named(f"{row.get('title', '')}\n{row.get('abstract', '')}", dictionary)
        if not named:
            continue
        pairs = [(ui, name) for ui, name in zip(row.get("mesh_ui") or [], row.get("mesh_name") or [], strict=False)
                 if name not in CHECK_TAGS]
        uis = [ui for ui, _ in pairs]
        for ui, name in pairs:
            names.setdefault(ui, name)
        for sym in named:
            per_gene[sym] += 1
            for ui in uis:
                mentions[(sym, ui)].append(int(row["pmid"]))
    return mentions, names, per_gene, n


def write_counts(out: Path, rows: Iterable[dict[str, Any]], source: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    mentions, names, per_gene, n = count_gene_mesh(rows)
    genes_per_ui: dict[str, int] = defaultdict(int)
    for _sym, ui in mentions:
        genes_per_ui[ui] += 1
    with build_atomically(out, SCHEMA) as con:
        con.executemany("INSERT INTO mentions VALUES (?,?,?,?)",
                        ((s, ui, len(p), ",".join(map(str, sorted(p)[:PMIDS_KEPT]))) for (s, ui), p in mentions.items()))
        con.executemany("INSERT INTO descriptors VALUES (?,?,?)",
                        ((ui, names.get(ui, ui), k) for ui, k in genes_per_ui.items()))
        con.executemany("INSERT INTO genes VALUES (?,?)", per_gene.items())
        summary = {"collection": source, "records": n, "genes": len(per_gene), "descriptors": len(genes_per_ui),
                   "pairs": len(mentions), "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
                   "seconds": round(time.perf_counter() - t0, 2)}
        write_build_record(con, summary)
    return summary


def _scan(client, collection: str, batch: int = 1000):
    for rows in collection_pages(client, collection, ["pmid", "title", "abstract", "mesh_ui", "mesh_name"], batch):
        yield from rows


def build_gene_mesh_counts(settings: Settings, client, collection: str, alias: str) -> dict[str, Any]:
    """Scan `collection` (the one `alias` now serves) and write the alias's counts file."""
    return write_counts(gene_mesh_path(settings, alias), _scan(client, collection), collection)
