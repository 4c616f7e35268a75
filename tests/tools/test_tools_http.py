"""Gene, dbSNP, OMIM, BLAST and web tools: real clients over real HTTP to the local
replay server (recorded NCBI responses), plus scripted BLAST polling and web APIs."""

from __future__ import annotations

import json

import pytest

from biorag.contracts.errors import InputError, ToolError
from biorag.understanding.search_request import SearchRequest
from retrievers.blast.retriever import BlastRetriever, extract_sequence, parse_text_report
from retrievers.common.http_store import BUNDLED_CASSETTE, HttpStore
from retrievers.dbsnp.retriever import DbSnpRetriever
from retrievers.gene.retriever import GeneRetriever
from retrievers.omim.retriever import OmimRetriever
from retrievers.web.retriever import (
    ArxivRetriever,
    CrossrefRetriever,
    DdgsWebRetriever,
    WikipediaRetriever,
)

BLAST = "/blast/Blast.cgi"
SEQ15 = ("ATTCTGCCTTTAGTAATTTGATGACAGAGACTTCTTGGGAACCACAGCCAGGGAGCCACCCTTTACTCCACCAACAGGTGGC"
         "TTATATCCAATCTGAGAAAGAAAGAAAAAAAAAAAAGTATTTCTCT")
GENE_KEYS = {"symbol", "name", "aliases", "organism", "tax_id", "chromosome", "map_location",
             "gene_type", "summary"}


def test_gene_alias_returns_human_psmb10_first(server, live_settings):
    hits = GeneRetriever.from_settings(live_settings()).search(SearchRequest.of("LMP10", 10))
    top = hits[0]
    assert (top.source, top.id, top.metadata["symbol"], top.metadata["tax_id"]) == ("gene", "5699", "PSMB10", 9606)
    assert GENE_KEYS <= set(top.metadata)
    assert "LMP10" in top.metadata["aliases"] and top.metadata["map_location"] == "16q22.1"
    assert top.url == "https://www.ncbi.nlm.nih.gov/gene/5699"
    assert "Official symbol: PSMB10" in top.text and "{" not in top.text
    # the mouse record is there too, after the human ones: ambiguity surfaced, not hidden
    assert any(h.metadata["organism"] == "Mus musculus" for h in hits[1:])
    paths = [r["path"] for r in server.requests]
    assert paths == ["/entrez/eutils/esearch.fcgi", "/entrez/eutils/esummary.fcgi"]


def test_gene_ensembl_id_and_truncated_summaries(server, live_settings):
    gene = GeneRetriever.from_settings(live_settings())
    assert gene.search(SearchRequest.of("ENSG00000215251", 5))[0].metadata["symbol"] == "FASTKD5"
    hits = gene.search(SearchRequest.of("AF10", 10))  # its 20-id esummary was cut at 10,000 bytes
    assert hits[0].metadata["symbol"] == "MLLT10" and hits[0].metadata.get("partial_response")


def test_gene_phrase_not_found_is_a_tool_error(server, live_settings):
    with pytest.raises(ToolError, match="no record for 'AC018712.2'"):
        GeneRetriever.from_settings(live_settings()).search(SearchRequest.of("AC018712.2", 5))


def test_dbsnp_record(server, live_settings):
    (ev,) = DbSnpRetriever.from_settings(live_settings()).search(SearchRequest.of("rs1217074595", 10))
    md = ev.metadata
    assert ev.id == "rs1217074595"
    assert md["chromosome"] == "20" and md["position"] == 50298395 and md["genes"] == ["LINC01270"]
    assert md["alleles"] == "G>A" and md["clinical_significance"] == []
    assert server.requests[-1]["params"]["id"] == "1217074595"


def test_omim_disease_entries_with_genes_and_loci(server, live_settings):
    hits = OmimRetriever.from_settings(live_settings()).search(SearchRequest.of("Meesmann corneal dystrophy", 10))
    by_gene = {g: h.metadata["locations"] for h in hits for g in h.metadata["genes"]}
    assert by_gene == {"KRT12": ["17q21.2"], "KRT3": ["12q13.13"]}
    assert hits[0].id == "122100" and hits[0].metadata["entry_type"] == "phenotype"


def _put_page(rid: str, rtoe: int = 0) -> str:
    return f"<!--QBlastInfoBegin\n    RID = {rid}\n    RTOE = {rtoe}\nQBlastInfoEnd\n-->"


def test_blast_polls_waiting_then_ready(server, live_settings, recorded_store):
    put = recorded_store.lookup("blast", "Put", {"CMD": "Put", "QUERY": SEQ15, "DATABASE": "nt"})
    report = recorded_store.lookup("blast", "Get", {"CMD": "Get", "RID": put.rid}).body
    waiting = "<!--\nQBlastInfoBegin\n\tStatus=WAITING\nQBlastInfoEnd\n-->"
    server.script(BLAST, (200, _put_page("RIDTEST", 0), "text/html", 0),
                  (200, waiting, "text/html", 0), (200, waiting, "text/html", 0),
                  (200, report, "text/html", 0))
    hits = BlastRetriever.from_settings(live_settings()).search(SearchRequest.of(SEQ15, 5))
    cmds = [r["params"]["CMD"] for r in server.requests]
    assert cmds == ["Put", "Get", "Get", "Get"]
    assert server.requests[0]["params"]["QUERY"] == SEQ15 and server.requests[0]["params"]["MEGABLAST"] == "on"
    assert server.requests[1]["params"]["RID"] == "RIDTEST"
    assert len(hits) == 5 and all(h.metadata["chromosome"] == "15" for h in hits[:4])
    h = hits[2].metadata
    assert (h["accession"], h["organism"], h["identity"], h["subject_start"], h["subject_end"]) == \
        ("CP068263.2", "Homo sapiens", 100.0, 89712558, 89712685)
    assert h["evalue"] == pytest.approx(3e-58)


def test_blast_deadline_and_unknown_status(server, live_settings):
    waiting = "<!--\nQBlastInfoBegin\n\tStatus=WAITING\nQBlastInfoEnd\n-->"
    server.script(BLAST, (200, _put_page("R1"), "text/html", 0), *[(200, waiting, "text/html", 0)] * 50)
    settings = live_settings(ncbi={"blast_deadline_s": 0.2, "blast_poll_s": 0.05})
    with pytest.raises(ToolError, match="not ready after 0.2s"):
        BlastRetriever.from_settings(settings).search(SearchRequest.of(SEQ15, 5))
    server.reset()
    unknown = "<!--\nQBlastInfoBegin\n\tStatus=UNKNOWN\nQBlastInfoEnd\n-->"
    server.script(BLAST, (200, _put_page("R2"), "text/html", 0), (200, unknown, "text/html", 0))
    with pytest.raises(ToolError, match="status UNKNOWN"):
        BlastRetriever.from_settings(live_settings()).search(SearchRequest.of(SEQ15, 5))


def test_blast_validates_sequences(live_settings):
    blast = BlastRetriever.from_settings(live_settings())
    with pytest.raises(InputError, match="at least 20"):
        blast.search(SearchRequest.of("ACGTACGT", 5))
    with pytest.raises(InputError, match="not DNA"):
        blast.search(SearchRequest.of("ACGTACGTACGTACGTACGTQQQQ", 5))
    assert extract_sequence("Align the DNA sequence to the human genome:" + SEQ15) == SEQ15
    assert extract_sequence(">q1\nACGT ACGT\n10 ACGTACGT") == "ACGTACGTACGTACGT"


def test_blast_text_report_cut_short_keeps_complete_hits():
    store = HttpStore("replay", BUNDLED_CASSETTE)
    cut = [ex for exs in store._by_key.values() for ex in exs
           if ex.service == "blast" and ex.truncated and "Status=READY" in ex.body and "\n>" in ex.body]
    assert cut, "the recording holds truncated READY reports"
    hits = parse_text_report(cut[0].body)
    assert hits and all(h["evalue"] is not None for h in hits)


def test_wikipedia_crossref_arxiv_share_one_interface(server, live_settings):
    server.script("/w/api.php", (200, json.dumps({"query": {"search": [
        {"title": "PSMB10", "snippet": "<span>Proteasome</span> subunit beta type-10", "timestamp": "2024-01-02T00:00:00Z"}]}}),
        "application/json", 0))
    server.script("/works", (200, json.dumps({"message": {"items": [
        {"DOI": "10.1000/x", "title": ["A paper"], "issued": {"date-parts": [[2020, 5]]},
         "container-title": ["J Test"], "author": [{"given": "A", "family": "B"}], "URL": "https://doi.org/10.1000/x"}]}}),
        "application/json", 0))
    atom = ('<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1234.5678v1</id>'
            '<title>Gene RAG</title><summary>We study genes.</summary><published>2023-04-01T00:00:00Z</published>'
            '<author><name>C D</name></author></entry></feed>')
    server.script("/api/query", (200, atom, "application/atom+xml", 0))
    s = live_settings()
    (w,) = WikipediaRetriever.from_settings(s).search(SearchRequest.of("PSMB10", 3))
    (c,) = CrossrefRetriever.from_settings(s).search(SearchRequest.of("a paper", 3))
    (a,) = ArxivRetriever.from_settings(s).search(SearchRequest.of("gene rag", 3))
    for ev in (w, c, a):
        assert ev.source == "web" and ev.metadata["untrusted"] is True and ev.url == ev.id
    assert w.text.startswith("Proteasome subunit beta type-10") and w.metadata["date"] == "2024-01-02"
    assert c.metadata["doi"] == "10.1000/x" and c.metadata["date"] == "2020-05" and c.metadata["authors"] == ["A B"]
    assert a.title == "Gene RAG" and a.metadata["date"] == "2023-04-01"


def test_ddgs_results_replay_from_a_recording(tmp_path, live_settings):
    cassette = tmp_path / "web.jsonl"
    row = {"url": "web_search://ddgs?q=PSMB10", "service": "web_search", "function": "ddgs",
           "params": {"q": "PSMB10", "region": "wt-wt", "safesearch": "moderate", "max_results": "3"},
           "response": json.dumps([{"title": "PSMB10 - Wikipedia", "href": "https://en.wikipedia.org/wiki/PSMB10",
                                    "body": "Proteasome subunit beta type-10 is a protein..."}])}
    cassette.write_text(json.dumps(row) + "\n")
    s = live_settings(tool_io={"mode": "replay", "cassette": str(cassette)})
    (ev,) = DdgsWebRetriever.from_settings(s).search(SearchRequest.of("PSMB10", 3))
    assert ev.url == "https://en.wikipedia.org/wiki/PSMB10" and ev.metadata["engine"] == "ddgs"


def test_nucleotide_and_protein_summaries(server, live_settings):
    from retrievers.nucleotide.retriever import SequenceRecordRetriever

    nuc = {"header": {}, "result": {"uids": ["1"], "1": {
        "uid": "1", "caption": "NM_002801", "accessionversion": "NM_002801.4",
        "title": "Homo sapiens proteasome 20S subunit beta 10 (PSMB10), mRNA", "organism": "Homo sapiens",
        "taxid": 9606, "slen": 1037, "moltype": "rna", "updatedate": "2023/04/01"}}}
    prot = {"header": {}, "result": {"uids": ["2"], "2": {
        "uid": "2", "accessionversion": "NP_002792.1", "title": "proteasome subunit beta type-10 precursor",
        "organism": "Homo sapiens", "taxid": 9606, "slen": 273, "moltype": "aa"}}}
    server.script("/entrez/eutils/esummary.fcgi", (200, json.dumps(nuc), "application/json", 0),
                  (200, json.dumps(prot), "application/json", 0))
    hits = SequenceRecordRetriever.from_settings(live_settings()).search(SearchRequest.of("NM_002801.4 and NP_002792.1", 5))
    assert [(h.id, h.metadata["db"], h.metadata["length"]) for h in hits] == \
        [("NM_002801.4", "nuccore", 1037), ("NP_002792.1", "protein", 273)]
    assert [r["params"]["db"] for r in server.requests] == ["nuccore", "protein"]
    with pytest.raises(InputError, match="no accession"):
        SequenceRecordRetriever.from_settings(live_settings()).search(SearchRequest.of("PSMB10", 5))
