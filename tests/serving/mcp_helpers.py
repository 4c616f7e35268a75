"""Helpers of the MCP tests: a data dir as a user has it after the README's set-up (gene and
HPO stores built, the PubMed index built from the bundled sample), the SDK's own clients for
stdio and streamable HTTP, and what every tool call is checked for."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from biorag.contracts.models import Citation
from serving.mcp_server.results import GeneSetResult, GenesLookup, Lookup, RankedGenes
from serving.mcp_server.tools import TOOL_NAMES

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "indexing" / "resources" / "pubmed_sample" / "pubmed_0_to_99.xml.gz"

#: one call of each lookup tool, on records the bundled data holds, and the result model
LOOKUPS = {
    "search_pubmed": ({"query": "amyloid beta clearance by microglia", "mesh": ["Mice"], "k": 4}, Lookup),
    "gene_record": ({"gene": "LMP10"}, Lookup),
    "variant_genes": ({"variant": "rs1217074595"}, GenesLookup),
    "disease_genes": ({"disease": "Marfan syndrome"}, GenesLookup),
    "phenotype_genes": ({"phenotypes": ["Seizure", "Ataxia"], "k": 5}, RankedGenes),
    "gene_set_enrichment": ({"genes": ["ERBB2", "ERBB4", "FGFR2", "FGFR4", "HRAS", "KRAS"]}, GeneSetResult),
}
#: what each lookup finds in those records (read from the bundled files, not from BioRAG)
EXPECTED = {
    "gene_record": lambda r: r.records[0].cited == "gene:5699",  # PSMB10, whose alias LMP10 is
    "variant_genes": lambda r: r.genes == ["LINC01270"],  # dbSNP's gene of rs1217074595
    "disease_genes": lambda r: "FBN1" in r.genes,  # Marfan syndrome's gene in ClinVar/mim2gene
    "phenotype_genes": lambda r: {t["id"] for t in r.phenotypes} == {"HP:0001250", "HP:0001251"},
    "gene_set_enrichment": lambda r: r.significant and r.name,
    "search_pubmed": lambda r: r.records and all("Mice" in x.metadata["mesh"] for x in r.records),
}


def sample_data_dir(dest: Path, gene_store: Path, hpo_store: Path, template: Path | None = None) -> Path:
    """`dest` with both stores and the sample PubMed index (built here, or copied from
    `template`, a data dir made by this function: Milvus Lite lets one process own a file)."""
    if template is not None:
        shutil.copytree(template, dest)
        return dest
    from live_server import settings_with

    from indexing.build import build_index

    dest.mkdir(parents=True)
    shutil.copy(gene_store, dest / "gene_store.sqlite")
    shutil.copy(hpo_store, dest / "hpo_store.sqlite")
    report = build_index(settings_with(f"data_dir={dest}"), [SAMPLE], progress=False)
    assert report.ok, report
    return dest


def http_client(url: str, key: str | None = None) -> Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))
    return Client(streamable_http_client(f"{url}/mcp", http_client=http))


def stdio_client_for(data_dir: Path, errlog, *args: str, **client_kw) -> Client:
    """`python -m cli.main [args] mcp` as a subprocess, as a client configuration starts it;
    its stderr goes to `errlog`."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cli.main", *args, "mcp"], cwd=str(ROOT),
        env={"PYTHONPATH": str(ROOT), "BIORAG_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"})
    return Client(stdio_client(params, errlog=errlog), **client_kw)


async def check_listing(client: Client) -> None:
    listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == list(TOOL_NAMES)
    for t in listed:  # typed inputs, a structured output, a manual
        assert t.input_schema["type"] == "object" and t.input_schema["properties"]
        assert t.output_schema and "properties" in t.output_schema
        assert len(t.description or "") > 80


async def call_lookups(client: Client) -> dict[str, Lookup]:
    """Every lookup tool called once; each result checked against its model, its citations
    and the record the bundled data holds. The results, by tool."""
    out = {}
    for name, (args, model) in LOOKUPS.items():
        r = await client.call_tool(name, args)
        assert not r.is_error, (name, r.content)
        result = model.model_validate(r.structured_content)
        assert result.records and result.citations, name
        cited = {f"{c.source}:{c.id}" for c in result.citations}
        assert {x.cited for x in result.records} == cited, name  # every record cited, nothing else
        assert all(isinstance(c, Citation) and c.url for c in result.citations), name
        assert EXPECTED[name](result), (name, result)
        text = r.content[0].text
        assert result.citations[0].url in text, name  # the text a person reads links its sources
        out[name] = result
    return out


def error_text(result) -> str:
    assert result.is_error and len(result.content) == 1
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text, text
    return text


def mcp_error(session) -> MCPError:
    """The MCPError that `session()` (a coroutine function) ends with; the client raises it
    inside its task group, which may wrap it in exception groups."""
    try:
        asyncio.run(session())
    except BaseException as e:  # noqa: BLE001 - unwrapped below
        while isinstance(e, BaseExceptionGroup) and e.exceptions:
            e = e.exceptions[0]
        assert isinstance(e, MCPError), repr(e)
        return e
    raise AssertionError("the session ended without an MCP error")
