"""Real NCBI records for spine tests: rows of NCBI Homo_sapiens.gene_info (2026 snapshot in
../shared/data/ncbi_gene) rendered as Gene evidence, and the dbSNP facts of rs1217074595
as recorded in the GeneGPT dev cassette (chromosome 20, gene LINC01270)."""

from __future__ import annotations

from biorag.contracts.models import Evidence
from biorag.retrieval.retriever import Retriever
from biorag.understanding.search_request import SearchRequest

# tax_id, GeneID, Symbol, Synonyms, Ensembl, chromosome, map_location, description, type_of_gene
GENE_INFO_ROWS = [
    ("9606", "5699", "PSMB10", "LMP10|MECL1|PRAAS5|beta2i", "ENSG00000205220", "16", "16q22.1", "proteasome 20S subunit beta 10", "protein-coding"),
    ("9606", "7157", "TP53", "BCC7|BMFS5|LFS1|P53|TRP53", "ENSG00000141510", "17", "17p13.1", "tumor protein p53", "protein-coding"),
    ("9606", "145389", "SLC38A6", "NAT-1|SNAT6", "ENSG00000139974", "14", "14q23.1", "solute carrier family 38 member 6", "protein-coding"),
    ("9606", "284751", "LINC01270", "", "ENSG00000203999", "20", "20q13.13", "long intergenic non-protein coding RNA 1270", "ncRNA"),
    ("9606", "5211", "PFKL", "ATP-PFK|PFK-B|PFK-L", "ENSG00000141959", "21", "21q22.3", "phosphofructokinase, liver type", "protein-coding"),
]


def gene_evidence(row) -> Evidence:
    tax, gid, sym, syn, ens, chrom, loc, desc, gtype = row
    aliases = [a for a in syn.split("|") if a]
    return Evidence(
        source="gene", id=gid, title=f"{sym} {desc}",
        text=f"{sym} ({desc}); aliases {', '.join(aliases)}; Homo sapiens; chromosome {chrom}, {loc}; {gtype}",
        url=f"https://www.ncbi.nlm.nih.gov/gene/{gid}",
        metadata={"symbol": sym, "name": desc, "aliases": aliases, "organism": "Homo sapiens", "tax_id": tax,
                  "chromosome": chrom, "map_location": loc, "gene_type": gtype, "ensembl": ens, "summary": ""},
    )


GENES = [gene_evidence(r) for r in GENE_INFO_ROWS]

SNP = Evidence(
    source="dbsnp", id="rs1217074595", title="rs1217074595",
    text="rs1217074595 on chromosome 20; genes LINC01270",
    url="https://www.ncbi.nlm.nih.gov/snp/rs1217074595",
    metadata={"chromosome": "20", "genes": ["LINC01270"]},
)


class RecordRetriever(Retriever):
    """Looks real records up by symbol, alias, Ensembl ID or rsID (exact, case-insensitive).
    Counts calls so tests can see what the loop asked. Describes itself as the registered
    source of the same name does (accepted kinds, answer fields, field reader)."""

    supports_mesh = False

    def __init__(self, name: str, records: list[Evidence]):
        from application.catalog import retriever_class

        real = retriever_class(name)
        self.name = name
        self.manual = f"{name} records"
        self.accepts, self.answers, self.read = real.accepts, real.answers, real.read
        self.records = records
        self.queries: list[str] = []

    @classmethod
    def from_settings(cls, settings):  # pragma: no cover - built directly in tests
        raise NotImplementedError

    def search(self, request: SearchRequest) -> list[Evidence]:
        query, k = request.text, request.k
        self.queries.append(query)
        q = query.strip().lower()
        out = []
        for ev in self.records:
            names = {ev.id.lower(), str(ev.metadata.get("symbol", "")).lower(), str(ev.metadata.get("ensembl", "")).lower()}
            names |= {a.lower() for a in ev.metadata.get("aliases", [])}
            if q in names:
                out.append(ev)
        return out[:k]
