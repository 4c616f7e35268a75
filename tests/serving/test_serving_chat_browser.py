"""The chat page in headless Chromium (Debian's chromium + chromedriver) against a real
server and the real agent (embedded preset, NCBI replayed from the bundled recording):
type a question, watch the steps arrive, read the answer with citation links. Saves a
screenshot to out/test-artifacts/chat.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from live_server import serve, settings_with
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "out" / "test-artifacts"

pytestmark = pytest.mark.browser


@pytest.fixture
def browser(tmp_path):
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-quic", "--disable-dev-shm-usage",
                "--window-size=1280,900", f"--user-data-dir={tmp_path / 'chrome-profile'}"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def _ask(browser, question: str, until: str = "Done.", timeout: float = 240) -> None:
    """Type `question` into the page, press Ask, and wait until the status line shows `until`."""
    browser.find_element(By.ID, "question").send_keys(question)
    browser.find_element(By.ID, "ask").click()
    WebDriverWait(browser, timeout).until(EC.text_to_be_present_in_element((By.ID, "status"), until))


def test_chat_page_streams_steps_and_links_citations(browser):
    with serve(settings_with()) as srv:
        browser.get(srv.url + "/")
        assert browser.title == "BioRAG"
        box = browser.find_element(By.ID, "question")
        box.send_keys("What is the official gene symbol of LMP10?")
        browser.find_element(By.ID, "ask").click()

        wait = WebDriverWait(browser, 240)
        wait.until(EC.text_to_be_present_in_element((By.ID, "status"), "Done."))
        steps = browser.find_elements(By.CSS_SELECTOR, "#steps li.step")
        assert [s.get_attribute("data-step") for s in steps] == ["select", "rewrite", "retrieve", "evaluate", "generate"]
        retrieve = steps[2]
        assert "Retrieve · gene" in retrieve.text and "3 hit(s)" in retrieve.text
        hit_links = retrieve.find_elements(By.TAG_NAME, "a")
        assert hit_links[0].text == "gene:5699"
        assert hit_links[0].get_attribute("href") == "https://www.ncbi.nlm.nih.gov/gene/5699"
        assert "LMP10" in steps[1].text  # the rewritten query is shown

        assert browser.find_element(By.ID, "answer").text == "PSMB10"
        cites = browser.find_elements(By.CSS_SELECTOR, "#citations a.citation")
        assert [(a.text, a.get_attribute("href")) for a in cites] == [
            ("gene:5699", "https://www.ncbi.nlm.nih.gov/gene/5699")]
        assert cites[0].get_attribute("rel") == "noopener noreferrer"
        assert "round(s)" in browser.find_element(By.ID, "meta").text

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        shot = ARTIFACTS / "chat.png"
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000


def test_chat_page_links_trace_hits_from_the_servers_catalogues_when_a_key_is_needed(browser):
    """The page keeps no catalogue URLs: it fetches them (GET /v1/catalogues) with the key
    typed in, then links the trace's hits and the citations from them."""
    key = "browser-Key-123456"
    with serve(settings_with(f'serve.api_keys=["{key}"]')) as srv:
        browser.get(srv.url + "/")
        browser.find_element(By.ID, "apikey").send_keys(key)
        _ask(browser, "What is the official gene symbol of LMP10?")
        retrieve = browser.find_element(By.CSS_SELECTOR, "#steps li.step[data-step='retrieve']")
        hits = [(a.text, a.get_attribute("href")) for a in retrieve.find_elements(By.TAG_NAME, "a")]
        assert hits[0] == ("gene:5699", "https://www.ncbi.nlm.nih.gov/gene/5699")
        assert all(text.startswith("gene:") and href.endswith("/gene/" + text[5:]) for text, href in hits)


def test_chat_page_shows_the_supporting_genes_of_a_gene_set_term(browser):
    """A gene-set question answered by the bundled GO/Reactome libraries: the cited term
    lists which of the asked genes support it (taken from the answer, not typed here)."""
    with serve(settings_with()) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "which process do MLH1, MSH2, MSH6 and PMS2 share")
        items = browser.find_elements(By.CSS_SELECTOR, "#citations li")
        assert items and items[0].find_element(By.CSS_SELECTOR, ".citation").text.startswith("geneset:")
        genes = items[0].find_element(By.CSS_SELECTOR, ".genes").text
        shown = genes.split("supporting genes:", 1)[1].replace(" ", "").split(",")
        assert len(shown) >= 2 and set(shown) <= {"MLH1", "MSH2", "MSH6", "PMS2"}
        # what the API returned for the same citation
        with srv.client() as http:
            answer = http.post("/v1/answer", json={"question": "which process do MLH1, MSH2, MSH6 and PMS2 share"}).json()
        assert answer["citations"][0]["genes"] == shown


def test_chat_page_shows_a_clear_error_for_a_bad_request(browser):
    with serve(settings_with("max_question_chars=20")) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "Which chromosome is the TP53 gene located on in humans?", "Error 422", timeout=30)
        status = browser.find_element(By.ID, "status").text
        assert "body.question" in status and "limit is 20" in status


def test_chat_page_cites_a_local_disease_record_under_its_own_catalogue(browser, full_gene_store_path, tmp_path):
    """A disease answered from the offline catalogues (the full gene store): ClinVar knows
    "Wooly hair" only as MedGen concept C0343073, so the page cites and links medgen:C0343073,
    in the trace's hits too, and says that ClinVar linked the genes (before: "omim:MedGen:…",
    linked to omim.org)."""
    import shutil

    shutil.copy(full_gene_store_path, tmp_path / "gene_store.sqlite")
    with serve(settings_with(f"data_dir={tmp_path}")) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "which gene causes wooly hair")
        assert browser.find_element(By.ID, "answer").text == "KRT74, LPAR6"
        medgen = "https://www.ncbi.nlm.nih.gov/medgen/C0343073"
        retrieve = browser.find_element(By.CSS_SELECTOR, "#steps li.step[data-step='retrieve']")
        assert [(a.text, a.get_attribute("href")) for a in retrieve.find_elements(By.TAG_NAME, "a")] == [
            ("medgen:C0343073", medgen)]
        [item] = browser.find_elements(By.CSS_SELECTOR, "#citations li")
        link = item.find_element(By.CSS_SELECTOR, "a.citation")
        assert (link.text, link.get_attribute("href")) == ("medgen:C0343073", medgen)
        assert [s.text for s in item.find_elements(By.CSS_SELECTOR, ".via")] == [
            "· genes linked by ClinVar (related genes)", "· found by the omim source"]


def test_chat_page_wraps_a_long_sequence_instead_of_pushing_the_ask_button_off_a_phone(browser):
    """A DNA sequence is one long word: the trace's rewritten query and the replayed BLAST
    call's error repeat it. Before, the grid column grew to fit it, so on a phone-wide window
    the page scrolled sideways and the Ask button sat off screen; now the text wraps."""
    seq = "ATGGATTTATCTGCTCTTCGCGTTGAAGAAGTACAAAATGTCATTAATGCTATGCAGAAAATCTTAGAGTGTCCCATCTGTCTGG"
    browser.set_window_size(390, 844)
    with serve(settings_with()) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "Align this sequence: " + seq)
        assert seq in browser.find_element(By.ID, "steps").text.replace("\n", "")
        width, view = browser.execute_script(
            "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert width <= view, f"the page scrolls sideways: {width} px wide in a {view} px window"
        right = browser.execute_script("return document.getElementById('ask').getBoundingClientRect().right")
        assert right <= view


def test_chat_page_says_where_to_type_the_api_key_when_the_server_needs_one(browser):
    """Without a key (or with a wrong one) the page said the server's words: "send
    'Authorization: Bearer <key>' or 'X-API-Key: <key>'", which a person in a browser cannot
    act on. It now points at the API key box and puts the cursor there."""
    with serve(settings_with('serve.api_keys=["k1-secret-key"]')) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "Where is BRCA2 located?", "Error 401", timeout=30)
        status = browser.find_element(By.ID, "status").text
        assert "API key box" in status and "type it" in status and "Authorization" not in status
        assert browser.switch_to.active_element.get_attribute("id") == "apikey"

        browser.find_element(By.ID, "apikey").send_keys("wrong-key")
        browser.find_element(By.ID, "ask").click()
        WebDriverWait(browser, 30).until(EC.text_to_be_present_in_element((By.ID, "status"), "did not accept"))
        assert "API key box" in browser.find_element(By.ID, "status").text


def test_chat_page_says_so_when_the_question_is_only_spaces(browser):
    """Spaces pass the box's `required` check, and the page then did nothing at all: no
    request, no word. It now asks for a question."""
    with serve(settings_with()) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "    ", "Type a question", timeout=10)
        assert "error" in browser.find_element(By.ID, "status").get_attribute("class")


def test_chat_page_links_the_hpo_sources_gene_hits_in_the_trace(browser, geneset_data_dir):
    """"genes for seizures and ataxia" is answered by HPO's gene records, cited as hpo:<Gene
    ID>. Their citations linked (the record's own URL) but the same hits in the trace were
    plain text: GET /v1/catalogues had no "hpo" catalogue. Both now go to the gene's HPO page."""
    with serve(settings_with(f"data_dir={geneset_data_dir}")) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "genes for seizures and ataxia")
        retrieve = browser.find_element(By.CSS_SELECTOR, "#steps li.step[data-step='retrieve']")
        assert "Retrieve · hpo" in retrieve.text
        shown = retrieve.find_element(By.CSS_SELECTOR, ".hits").text.split()[2:]
        assert shown and all(k.startswith("hpo:") for k in shown)
        hits = [(a.text, a.get_attribute("href")) for a in retrieve.find_elements(By.TAG_NAME, "a")]
        assert [t for t, _ in hits] == shown
        assert all(href == "https://hpo.jax.org/browse/gene/NCBIGene:" + t[4:] for t, href in hits)
        cites = [(a.text, a.get_attribute("href")) for a in browser.find_elements(By.CSS_SELECTOR, "#citations a.citation")]
        assert cites and set(cites) <= set(hits)


def test_chat_page_links_a_gene_set_terms_citation_to_its_go_or_reactome_page(browser):
    """"what do these genes do together: MCM2 … MCM7" cites Reactome's DNA Replication
    (R-HSA-69306), but the citation was plain text: the record had no URL and "geneset" is no
    one catalogue (its ids are GO's and Reactome's). The citation now links the term's page."""
    with serve(settings_with()) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "what do these genes do together: MCM2 MCM3 MCM4 MCM5 MCM6 MCM7")
        links = browser.find_elements(By.CSS_SELECTOR, "#citations a.citation")
        assert links, "the gene-set citation is not a link"
        for a in links:
            term = a.text.removeprefix("geneset:")
            assert a.get_attribute("href") in (f"https://reactome.org/content/detail/{term}",
                                               f"https://amigo.geneontology.org/amigo/term/{term}")
        assert links[0].text == "geneset:R-HSA-69306"
        assert links[0].get_attribute("rel") == "noopener noreferrer"


def test_chat_page_names_the_step_that_ends_the_search_and_says_why(browser, geneset_data_dir):
    """When the planner has nothing (more) to ask, the trace ends with a select event that
    picked no source, decision "stop", its reason in details. The page showed it as
    "Select a source · why: stop", which reads as a step that failed to say anything; for
    "symptoms of cushing" the reason (which Cushing?) was only in the answer. It now reads
    "Stop searching · why: <the reason>"."""
    with serve(settings_with(f"data_dir={geneset_data_dir}")) as srv:
        browser.get(srv.url + "/")
        _ask(browser, "symptoms of cushing")
        last_select = browser.find_elements(By.CSS_SELECTOR, "#steps li.step[data-step='select']")[-1]
        head, why = last_select.text.split("\n")[:2]
        assert "Stop searching" in head and "Select a source" not in head
        assert why.startswith("why: ") and why != "why: stop" and "Cushing" in why


def test_chat_page_says_the_server_is_gone_when_nothing_answers(browser):
    """With the server stopped after the page loaded, asking showed "Request failed:
    TypeError: Failed to fetch", a browser's internals. It now says the server did not
    answer and what to check."""
    with serve(settings_with()) as srv:
        browser.get(srv.url + "/")
    _ask(browser, "Where is BRCA2 located?", "Request failed", timeout=30)
    status = browser.find_element(By.ID, "status").text
    assert "no answer from the server" in status and "TypeError" not in status


def test_chat_page_says_when_to_retry_when_every_slot_is_busy(browser):
    """Busy is 429 with Retry-After (it was 503): the page shows the status, the server's
    line and the seconds to wait."""
    import threading

    import httpx
    from live_server import ScriptedAgent

    gate = threading.Event()
    s = settings_with("serve.max_concurrent=1", "serve.retry_after_s=9")
    with serve(s, lambda st: ScriptedAgent(st, gate=gate)) as srv:
        browser.get(srv.url + "/")
        held = threading.Thread(target=lambda: httpx.post(f"{srv.url}/v1/answer", json={"question": "one"},
                                                           timeout=60))
        held.start()
        try:
            WebDriverWait(browser, 10).until(lambda _d: srv.app.state.runner.busy == 1)
            _ask(browser, "Where is BRCA2 located?", "Error 429", timeout=30)
            status = browser.find_element(By.ID, "status").text
        finally:
            gate.set()
            held.join(30)
    assert "answer slots are in use" in status and "retry in 9s" in status
