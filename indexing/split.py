"""Split a PubMed XML file into several smaller `.xml.gz` files, article by article.

Baseline files are ~30k articles each; a multi-file build, a multi-file benchmark (the
same records as 1 file and as 10) or a test of shell-glob inputs needs the same real
articles spread over several files. Articles are copied byte for byte (no re-parsing of
their content), in order, each part wrapped in its own `<PubmedArticleSet>`.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from biorag.contracts.errors import InputError

_ARTICLES = ("PubmedArticle", "MedlineCitation", "DeleteCitation")


def split_pubmed_xml(src: Path, dest_dir: Path, parts: int, stem: str | None = None) -> list[Path]:
    """Write the top-level articles of `src`, in order, as `parts` consecutive files
    `<stem>_NN.xml.gz` in `dest_dir` (sizes differ by at most one article)."""
    from lxml import etree

    if parts < 1:
        raise InputError(f"parts must be at least 1, not {parts}")
    with open(src, "rb") as head:
        opener = gzip.open if head.read(2) == b"\x1f\x8b" else open
    with opener(src, "rb") as f:
        root = etree.parse(f, etree.XMLParser(huge_tree=True, resolve_entities=False, no_network=True)).getroot()
    articles = [el for el in root if isinstance(el.tag, str) and el.tag in _ARTICLES]
    if not articles:
        raise InputError(f"{src}: no PubMed articles to split")
    dest_dir.mkdir(parents=True, exist_ok=True)
    stem = stem or src.name.split(".")[0]
    per, extra = divmod(len(articles), parts)
    out: list[Path] = []
    start = 0
    for i in range(parts):
        n = per + (1 if i < extra else 0)
        chunk = articles[start : start + n]
        start += n
        path = dest_dir / f"{stem}_{i:02d}.xml.gz"
        with gzip.open(path, "wb") as g:
            g.write(b'<?xml version="1.0" ?>\n<' + root.tag.encode() + b">\n")
            for el in chunk:
                el.tail = "\n"
                g.write(etree.tostring(el, encoding="utf-8"))
            g.write(b"</" + root.tag.encode() + b">\n")
        out.append(path)
    return out
