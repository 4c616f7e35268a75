"""Streaming readers for PubMed/MEDLINE inputs.

Formats (detected from content, `.gz` transparently decompressed):
- PubMed XML: `<PubmedArticleSet>` baseline/update files and efetch exports (also bare
  `<PubmedArticle>` sequences without a root, and files with a UTF-8 BOM);
- the old MEDLINE XML distribution (`<MedlineCitationSet>`, e.g. medline16nNNNN.xml);
- MEDLINE text format (`PMID- ` tagged lines, PubMed's "MEDLINE" export / .nbib);
- JSONL: one record per line (fields as in `PubmedRecord`; `mesh` as a list of
  `{ui, name, major}`), or `{"delete": [pmid, ...]}` lines.

XML is read with `lxml.etree.iterparse`, clearing each article once handled, so memory is
constant per file whatever its size. Update files' `<DeleteCitation>` blocks come out as
`DeleteCitations` items in stream order. A malformed file raises `InputError` naming the
file and line (records before the error have already been yielded).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from biorag.contracts.errors import InputError
from indexing.records import DeleteCitations, MeshHeading, PubmedRecord

#: what a truncated, corrupt or non-gzip compressed stream raises while it is read
STREAM_ERRORS = (OSError, EOFError, zlib.error)
SUFFIXES = (".xml", ".xml.gz", ".jsonl", ".jsonl.gz", ".json.gz", ".txt", ".txt.gz", ".nbib", ".medline", ".medline.gz")
Item = PubmedRecord | DeleteCitations


def expand_inputs(inputs: Iterable[str | Path]) -> list[Path]:
    """Files and directories -> sorted list of input files (directories: recursive, by suffix).

    Order matters: baseline files sort before update files, so newer versions win."""
    files: list[Path] = []
    for raw in inputs:
        p = Path(raw).expanduser()
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.name.lower().endswith(SUFFIXES))
            if not found:
                raise InputError(f"{p}: directory holds no PubMed files ({', '.join(SUFFIXES)})")
            files.extend(found)
        elif p.is_file():
            files.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    seen: set[Path] = set()
    return [f for f in files if not (f.resolve() in seen or seen.add(f.resolve()))]


def within_roots(files: Iterable[Path], roots: Iterable[Path]) -> tuple[list[Path], dict[str, str]]:
    """Resolve every file (symlinks included) and keep those under one of `roots`; the
    others come back as {path: why refused}. Kept files are returned resolved, so what is
    opened later is the path that was checked."""
    real_roots = [Path(r).resolve() for r in roots]
    kept: list[Path] = []
    refused: dict[str, str] = {}
    for f in files:
        try:
            real = Path(f).resolve(strict=True)
        except (OSError, RuntimeError) as e:
            refused[str(f)] = f"cannot be resolved ({e})"
            continue
        if any(real == r or r in real.parents for r in real_roots):
            kept.append(real)
        else:
            where = f" (it leads to {real})" if real != Path(f).absolute() else ""
            refused[str(f)] = (f"outside the folders rebuild jobs may read{where}; allowed: "
                               + ", ".join(map(str, real_roots)))
    return kept, refused


def _open_binary(path: Path) -> io.BufferedIOBase:
    raw = open(path, "rb")  # noqa: SIM115 - returned to the caller
    head = raw.read(2)
    raw.seek(0)
    if head == b"\x1f\x8b":
        raw.close()  # a GzipFile given a fileobj never closes it: let gzip own the file
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return raw  # type: ignore[return-value]


def stream_problem(path: Path, e: BaseException) -> InputError:
    """One line naming the file and what is wrong with its bytes."""
    if isinstance(e, EOFError) or "end-of-stream" in str(e):
        what = "the compressed stream ends early: the file is truncated (an interrupted download or copy)"
    elif isinstance(e, gzip.BadGzipFile | zlib.error):
        what = f"the gzip data is corrupt ({e})"
    else:
        what = f"cannot be read ({e})"
    return InputError(f"{path}: {what}; replace it with a complete copy")


def detect_format(path: Path) -> str:
    try:
        with _open_binary(path) as f:
            head = f.read(4096)
    except STREAM_ERRORS as e:
        raise stream_problem(path, e) from None
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"<"):
        return "xml"
    if text.startswith(b"{"):
        return "jsonl"
    if re.match(rb"PMID\s*-", text):
        return "medline"
    if not text:
        raise InputError(f"{path}: file is empty" + (" once decompressed" if path.stat().st_size else ""))
    hint = " (named .gz but not gzip data)" if path.name.lower().endswith(".gz") else ""
    raise InputError(f"{path}: unrecognised format{hint} (expected PubMed XML, MEDLINE text or JSONL)")


def read_file(path: str | Path) -> Iterator[Item]:
    """Yield records and delete instructions from one input file, in file order.

    Headings without a descriptor UI (older DTDs, MEDLINE text) get it from the bundled
    MeSH vocabulary by name, so every known descriptor is filterable."""
    from biorag.knowledge.mesh import vocabulary

    path = Path(path)
    fmt = detect_format(path)
    reader = {"xml": _read_xml, "jsonl": _read_jsonl, "medline": _read_medline}[fmt]
    vocab = vocabulary()
    for item in reader(path):
        if isinstance(item, PubmedRecord):
            for m in item.mesh:
                if not m.ui and m.name:
                    d = vocab.get(m.name)
                    m.ui = d.ui if d else ""
        yield item


# ---- XML -------------------------------------------------------------------------------


class _Wrapped(io.RawIOBase):
    """The file's bytes with the XML declaration/DOCTYPE removed, inside one synthetic
    root element, so bare `<PubmedArticle>` sequences and normal files parse alike."""

    def __init__(self, f: io.BufferedIOBase):
        head = f.read(65536)
        head = head.lstrip(b"\xef\xbb\xbf").lstrip()
        head = re.sub(rb"^<\?xml[^>]*\?>", b"", head).lstrip()
        head = re.sub(rb"^<!DOCTYPE[^>\[]*(\[[^\]]*\])?\s*>", b"", head).lstrip()
        self._parts = [b"<biorag-wrap>", head]
        self._f = f
        self._tail_done = False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:  # type: ignore[override]
        while True:
            if self._parts:
                chunk = self._parts.pop(0)
            else:
                chunk = self._f.read(len(b))
                if not chunk:
                    if self._tail_done:
                        return 0
                    self._tail_done = True
                    chunk = b"</biorag-wrap>"
            if chunk:
                n = min(len(b), len(chunk))
                b[:n] = chunk[:n]
                if n < len(chunk):
                    self._parts.insert(0, chunk[n:])
                return n


def _text(el) -> str:
    if el is None:
        return ""
    return " ".join("".join(el.itertext()).split())


def _year(article) -> int | None:
    for xp in ("Journal/JournalIssue/PubDate/Year", "ArticleDate/Year"):
        t = article.findtext(xp)
        if t and t.strip().isdigit():
            return int(t.strip())
    md = article.findtext("Journal/JournalIssue/PubDate/MedlineDate") or ""
    m = re.search(r"\b(1[89]\d\d|20\d\d)\b", md)
    return int(m.group(1)) if m else None


def parse_medline_citation(mc, source: str = "") -> PubmedRecord | None:
    """One <MedlineCitation> element -> PubmedRecord (None when it has no PMID)."""
    pmid_el = mc.find("PMID")
    if pmid_el is None or not (pmid_el.text or "").strip().isdigit():
        return None
    article = mc.find("Article")
    rec = PubmedRecord(pmid=int(pmid_el.text.strip()), source=source)
    try:
        rec.version = int(pmid_el.get("Version", "1"))
    except ValueError:
        rec.version = 1
    if article is not None:
        rec.title = _text(article.find("ArticleTitle")) or _text(article.find("VernacularTitle"))
        parts = []
        for at in article.findall("Abstract/AbstractText"):
            body = _text(at)
            if not body:
                continue
            label = (at.get("Label") or "").strip()
            parts.append(f"{label}: {body}" if label else body)
        rec.abstract = "\n".join(parts)
        rec.journal = _text(article.find("Journal/Title")) or _text(article.find("Journal/ISOAbbreviation"))
        rec.year = _year(article)
        rec.languages = [t.strip().lower() for t in (x.text for x in article.findall("Language")) if t]
        rec.publication_types = [_text(p) for p in article.findall("PublicationTypeList/PublicationType")]
    if rec.year is None:
        t = mc.findtext("DateCompleted/Year") or mc.findtext("DateCreated/Year")
        rec.year = int(t) if t and t.isdigit() else None
    for mh in mc.findall("MeshHeadingList/MeshHeading"):
        d = mh.find("DescriptorName")
        if d is None:
            continue
        quals = mh.findall("QualifierName")
        rec.mesh.append(
            MeshHeading(
                ui=(d.get("UI") or "").strip(),
                name=_text(d),
                major=d.get("MajorTopicYN") == "Y" or any(q.get("MajorTopicYN") == "Y" for q in quals),
                qualifiers=[_text(q) for q in quals],
            )
        )
    rec.chemicals = [_text(c) for c in mc.findall("ChemicalList/Chemical/NameOfSubstance")]
    rec.keywords = [_text(k) for k in mc.findall("KeywordList/Keyword")]
    rec.retracted = "Retracted Publication" in rec.publication_types or any(
        c.get("RefType") == "RetractionIn" for c in mc.findall("CommentsCorrectionsList/CommentsCorrections")
    )
    return rec


_TOP = {"PubmedArticle", "MedlineCitation", "PubmedBookArticle", "DeleteCitation"}


def _read_xml(path: Path) -> Iterator[Item]:
    from lxml import etree

    source = path.name
    with _open_binary(path) as f:
        try:
            # the wrapper reads the first 64 KB at once: a shorter truncated stream fails here
            stream = io.BufferedReader(_Wrapped(f), buffer_size=1 << 16)
            ctx = etree.iterparse(stream, events=("end",), tag=tuple(_TOP), huge_tree=True, resolve_entities=False)
            for _, el in ctx:
                parent = el.getparent()
                if el.tag == "MedlineCitation" and parent is not None and parent.tag == "PubmedArticle":
                    continue  # handled with its PubmedArticle
                if el.tag == "DeleteCitation":
                    pmids = [int(p.text) for p in el.findall("PMID") if (p.text or "").strip().isdigit()]
                    if pmids:
                        yield DeleteCitations(pmids=pmids, source=source)
                elif el.tag == "PubmedArticle":
                    mc = el.find("MedlineCitation")
                    rec = parse_medline_citation(mc, source) if mc is not None else None
                    if rec is not None:
                        yield rec
                elif el.tag == "MedlineCitation":
                    rec = parse_medline_citation(el, source)
                    if rec is not None:
                        yield rec
                # PubmedBookArticle: books have no MedlineCitation; not indexed.
                el.clear()
                if parent is not None:
                    while el.getprevious() is not None:
                        del parent[0]
        except etree.XMLSyntaxError as e:
            raise InputError(f"{path}: malformed XML near line {e.lineno}: {e.msg}") from None
        except STREAM_ERRORS as e:  # truncated or corrupt gzip
            raise stream_problem(path, e) from None


# ---- JSONL -----------------------------------------------------------------------------


def record_from_dict(d: dict, source: str = "") -> PubmedRecord:
    try:
        pmid = int(d["pmid"])
    except (KeyError, TypeError, ValueError):
        raise ValueError("missing or non-numeric 'pmid'") from None
    mesh = []
    for m in d.get("mesh") or []:
        if isinstance(m, str):
            mesh.append(MeshHeading(ui="", name=m))
        else:
            qs = m.get("qualifiers") or []
            quals = [q.get("name", "") if isinstance(q, dict) else str(q) for q in qs]
            major = bool(m.get("major")) or any(isinstance(q, dict) and q.get("major") for q in qs)
            mesh.append(MeshHeading(ui=m.get("ui") or "", name=m.get("name") or "", major=major, qualifiers=quals))
    year = d.get("year")
    lang = d.get("languages") or d.get("language") or []
    return PubmedRecord(
        pmid=pmid,
        title=d.get("title") or "",
        abstract=d.get("abstract") or "",
        journal=d.get("journal") or "",
        year=int(year) if str(year or "").isdigit() else None,
        languages=[lang] if isinstance(lang, str) else list(lang),
        publication_types=list(d.get("publication_types") or []),
        mesh=mesh,
        chemicals=[c.get("name", "") if isinstance(c, dict) else str(c) for c in d.get("chemicals") or []],
        keywords=list(d.get("keywords") or []),
        retracted=bool(d.get("retracted")) or "Retracted Publication" in (d.get("publication_types") or []),
        source=source,
    )


def _read_jsonl(path: Path) -> Iterator[Item]:
    with _open_binary(path) as fb:
        f = io.TextIOWrapper(fb, encoding="utf-8-sig")
        lineno = 0
        try:
            for lineno, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    d = json.loads(line)
                    if not isinstance(d, dict):
                        raise ValueError("not a JSON object")
                    if "delete" in d:
                        yield DeleteCitations(pmids=[int(p) for p in d["delete"]], source=path.name)
                    else:
                        yield record_from_dict(d, path.name)
                except (ValueError, TypeError) as e:
                    raise InputError(f"{path}: bad JSONL record on line {lineno}: {e}") from None
        except STREAM_ERRORS as e:
            raise stream_problem(path, e) from None
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: not UTF-8 text after line {lineno} ({e.reason})") from None


# ---- MEDLINE text ----------------------------------------------------------------------


def _medline_blocks(f: io.TextIOBase) -> Iterator[tuple[int, dict[str, list[str]]]]:
    fields: dict[str, list[str]] = {}
    last = None
    start = 1
    for lineno, line in enumerate(f, 1):
        line = line.rstrip("\n\r")
        if not line.strip():
            if fields:
                yield start, fields
            fields, last = {}, None
            start = lineno + 1
            continue
        m = re.match(r"^([A-Z]{1,4})\s*- (.*)$", line)
        if m:
            last = m.group(1)
            fields.setdefault(last, []).append(m.group(2).strip())
        elif line.startswith("      ") and last:
            fields[last][-1] += " " + line.strip()
        else:
            raise InputError(f"malformed MEDLINE line {lineno}: {line[:60]!r}")
    if fields:
        yield start, fields


def _read_medline(path: Path) -> Iterator[Item]:
    with _open_binary(path) as fb:
        f = io.TextIOWrapper(fb, encoding="utf-8-sig")
        try:
            for start, fl in _medline_blocks(f):
                pmid = (fl.get("PMID") or [""])[0]
                if not pmid.isdigit():
                    raise InputError(f"record at line {start} has no numeric PMID")
                mesh = []
                for mh in fl.get("MH", []):
                    head, *quals = mh.split("/")
                    major = head.startswith("*") or any(q.startswith("*") for q in quals)
                    name = head.lstrip("*").strip()
                    mesh.append(MeshHeading(ui="", name=name, major=major, qualifiers=[q.lstrip("*") for q in quals]))
                dp = " ".join(fl.get("DP", []))
                ym = re.search(r"\b(1[89]\d\d|20\d\d)\b", dp)
                pts = fl.get("PT", [])
                yield PubmedRecord(
                    pmid=int(pmid),
                    title=" ".join(fl.get("TI", [])),
                    abstract=" ".join(fl.get("AB", [])),
                    journal=(fl.get("JT") or fl.get("TA") or [""])[0],
                    year=int(ym.group(1)) if ym else None,
                    languages=[x.lower() for x in fl.get("LA", [])],
                    publication_types=pts,
                    mesh=mesh,
                    chemicals=[re.sub(r"\s*\(.*\)$", "", x) for x in fl.get("RN", [])],
                    keywords=fl.get("OT", []),
                    retracted="Retracted Publication" in pts or bool(fl.get("RIN")),
                    source=path.name,
                )
        except InputError as e:
            raise InputError(f"{path}: {e}") from None
        except STREAM_ERRORS as e:
            raise stream_problem(path, e) from None
        except UnicodeDecodeError as e:
            raise InputError(f"{path}: not UTF-8 text ({e.reason})") from None
