"""Grounded answers.

1. `structured_answer`: when the question asks for a field of a structured record
   (official symbol, chromosome, associated gene, gene type, organism, ...), the answer is
   read from the evidence, never generated.
2. `verify_claims`: a free-text answer is checked claim by claim (GeneAgent-style
   self-verification): every gene symbol, rsID, cytogenetic/genomic location and cited id
   in it must occur in the gathered evidence (or the question). Sentences carrying an
   unsupported claim are removed and listed.

Evidence metadata keys read here (set by the tools in retrievers/):
gene: symbol, aliases, organism, tax_id, chromosome, map_location, gene_type, summary, ensembl;
dbsnp: chromosome, genes; omim: genes, locations; blast: organism, description, chromosome,
subject_start, subject_end, symbol (optional).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from biorag.models import Evidence
from biorag.understanding import RSID, Analysis, Hop

HUMAN_TAX = "9606"


@dataclass
class StructuredAnswer:
    text: str
    used: list[Evidence] = field(default_factory=list)
    explanation: str = ""


def _meta(ev: Evidence, key: str, default=None):
    value = ev.metadata.get(key, default)
    return default if value in (None, "", []) else value


def _is_human(ev: Evidence) -> bool:
    org = str(_meta(ev, "organism", "")).lower()
    return str(_meta(ev, "tax_id", "")) == HUMAN_TAX or "homo sapiens" in org or org == "human"


def _by_source(evidence: list[Evidence], source: str) -> list[Evidence]:
    return [e for e in evidence if e.source == source]


def _names_of(ev: Evidence) -> set[str]:
    names = {str(_meta(ev, "symbol", "")).lower()}
    names |= {str(a).lower() for a in _meta(ev, "aliases", []) or []}
    ensembl = _meta(ev, "ensembl", [])  # one ID or a list of them
    names |= {str(x).lower() for x in (ensembl if isinstance(ensembl, list) else [ensembl])}
    names.add(ev.id.lower())
    names.discard("")
    return names


def best_gene_record(evidence: list[Evidence], wanted: list[str] | None = None) -> Evidence | None:
    """The gene record that names one of `wanted` (symbol, alias, Ensembl or Gene ID),
    human first; otherwise the first human record; otherwise the first record."""
    genes = _by_source(evidence, "gene")
    if not genes:
        return None
    wanted_l = [w.lower().split(".")[0] for w in (wanted or [])]
    def rank(ev: Evidence) -> tuple[int, int, int]:
        names = {n.split(".")[0] for n in _names_of(ev)}
        exact_symbol = any(w == str(_meta(ev, "symbol", "")).lower() for w in wanted_l)
        named = any(w in names for w in wanted_l)
        return (0 if named else 1, 0 if _is_human(ev) else 1, 0 if exact_symbol else 1)
    return sorted(genes, key=rank)[0]


def _chrom(value) -> str | None:
    if value in (None, ""):
        return None
    v = str(value).strip()
    if v.lower().startswith("chr"):
        v = v[3:]
    return f"chr{v}" if v else None


def _binomial(organism: str) -> str:
    words = organism.replace("[", "").replace("]", "").split()
    return " ".join(words[:2]) if len(words) >= 2 else organism


_WHOLE_CHROMOSOME = re.compile(r"(?<!\bon )\bchromosome (?:\d{1,2}|X|Y)\b(?:,.*\b(?:assembly|genome)\b.*)?$", re.I)


def _reference_rank(ev: Evidence) -> tuple[float, int]:
    """Order BLAST hits for 'where in the human genome'. The alignment score decides
    first (a worse alignment is never preferred); among equal scores: the GRCh38 primary
    assembly, then other whole human chromosome records (CHM13, ...), then the rest
    (synthetic constructs and feature records such as '... on chromosome 15' share the
    sequence but their coordinates are not genomic). Stable for ties."""
    desc = str(_meta(ev, "description", ev.title)).strip()
    human = "homo sapiens" in (desc + " " + str(_meta(ev, "organism", ""))).lower()
    if human and "GRCh38" in desc and "Primary Assembly" in desc:
        tier = 0
    elif human and _WHOLE_CHROMOSOME.search(desc):
        tier = 1
    else:
        tier = 2
    try:
        score = float(_meta(ev, "bit_score", 0) or 0)
    except (TypeError, ValueError):
        score = 0.0
    return (-score, tier)


_PAREN_SYMBOL = re.compile(r"\(([A-Z][A-Z0-9\-]{1,14})\)")


def symbols_from_blast(ev: Evidence) -> list[str]:
    if _meta(ev, "symbol"):
        return [str(_meta(ev, "symbol"))]
    return _PAREN_SYMBOL.findall(str(_meta(ev, "description", ev.title)))


def values_from_previous(hop: Hop, evidence: list[Evidence]) -> list[str]:
    """Inputs for a follow-up hop, read from earlier evidence (ordered, unique)."""
    out: list[str] = []
    if hop.from_previous == "genes":
        for ev in evidence:
            if ev.source == "dbsnp" and _meta(ev, "gene_ids"):
                # the Gene ID is the exact link; a symbol can name several genes
                out += [str(g) for g in ev.metadata["gene_ids"]]
            elif ev.source in ("dbsnp", "omim"):
                out += [str(g) for g in _meta(ev, "genes", []) or []]
    elif hop.from_previous == "symbol":
        blast = _by_source(evidence, "blast")
        human = [e for e in blast if "homo sapiens" in str(_meta(e, "organism", e.title)).lower()]
        for ev in human or blast:
            out += symbols_from_blast(ev)
    return list(dict.fromkeys(o for o in out if o))


def _gene_answer(kind: str, rec: Evidence) -> str | None:
    if kind == "official_symbol":
        return _meta(rec, "symbol")
    if kind == "gene_chromosome":
        return _chrom(_meta(rec, "chromosome"))
    if kind == "gene_type":
        gtype = str(_meta(rec, "gene_type", "")).lower().replace("_", "-")
        if not gtype:
            return None
        return "Yes" if gtype == "protein-coding" else "No"
    if kind == "gene_aliases":
        symbol = _meta(rec, "symbol")
        aliases = [str(a) for a in _meta(rec, "aliases", []) or []]
        return ", ".join(dict.fromkeys([symbol, *aliases])) if symbol else None
    return None


def structured_answer(analysis: Analysis, evidence: list[Evidence]) -> StructuredAnswer | None:
    """The answer read from record fields, or None when the evidence does not hold it."""
    intent = analysis.intent
    if intent is None or not evidence:
        return None
    kind = intent.kind
    entity_texts = [e.text for e in analysis.entities]

    if kind in ("official_symbol", "gene_chromosome", "gene_type", "gene_aliases"):
        rec = best_gene_record(evidence, entity_texts)
        value = _gene_answer(kind, rec) if rec else None
        return StructuredAnswer(value, [rec], f"{kind} from NCBI Gene record {rec.id}") if value else None

    if kind in ("snp_gene", "snp_chromosome"):
        for ev in _by_source(evidence, "dbsnp"):
            if kind == "snp_gene" and _meta(ev, "genes"):
                return StructuredAnswer(", ".join(map(str, ev.metadata["genes"])), [ev], f"genes of {ev.id}")
            if kind == "snp_chromosome" and _chrom(_meta(ev, "chromosome")):
                return StructuredAnswer(_chrom(ev.metadata["chromosome"]), [ev], f"chromosome of {ev.id}")
        return None

    if kind == "disease_genes":
        used = [ev for ev in _by_source(evidence, "omim") if _meta(ev, "genes")]
        genes = list(dict.fromkeys(str(g) for ev in used for g in ev.metadata["genes"]))
        return StructuredAnswer(", ".join(genes), used, "genes of the OMIM entries") if genes else None

    if kind == "disease_gene_locations":
        # OMIM gene entries carry the cytogenetic location; a Gene record fills any gap.
        omim = [ev for ev in _by_source(evidence, "omim") if _meta(ev, "genes")]
        locs, used = [], list(omim)
        for ev in omim:
            own = [str(loc) for loc in _meta(ev, "locations", []) or []]
            if own:
                locs += own
                continue
            for symbol in map(str, ev.metadata["genes"]):
                rec = best_gene_record(evidence, [symbol])
                if rec is not None and symbol.lower() in _names_of(rec) and _meta(rec, "map_location"):
                    locs.append(str(rec.metadata["map_location"]))
                    used.append(rec)
        locs = list(dict.fromkeys(locs))
        return StructuredAnswer(", ".join(locs), used, "map locations of the disease genes") if locs else None

    if kind == "sequence_organism":
        hits = _by_source(evidence, "blast")
        for ev in hits:
            if _meta(ev, "organism"):
                return StructuredAnswer(_binomial(str(ev.metadata["organism"])), [ev], f"organism of top BLAST hit {ev.id}")
        return None

    if kind == "sequence_location":
        for ev in sorted(_by_source(evidence, "blast"), key=_reference_rank):
            chrom = _chrom(_meta(ev, "chromosome"))
            start, end = _meta(ev, "subject_start"), _meta(ev, "subject_end")
            if chrom and start is not None and end is not None:
                lo, hi = sorted((int(start), int(end)))
                return StructuredAnswer(f"{chrom}:{lo}-{hi}", [ev], f"alignment to {ev.id}")
        return None

    if kind == "sequence_gene_aliases":
        symbols = values_from_previous(Hop("gene", from_previous="symbol"), evidence)
        rec = best_gene_record(evidence, symbols)
        if rec is None or not symbols:
            return None
        value = _gene_answer("gene_aliases", rec)
        return StructuredAnswer(value, [rec], f"aliases of {_meta(rec, 'symbol')}") if value else None

    if kind == "snp_gene_function":
        genes = values_from_previous(Hop("gene", from_previous="genes"), evidence)
        parts, used = [], []
        for gene in genes:
            rec = best_gene_record(evidence, [gene])
            if rec is None or gene.lower() not in _names_of(rec):
                continue
            summary = _meta(rec, "summary") or _meta(rec, "gene_type")
            if summary:
                parts.append(f"{_meta(rec, 'symbol', gene)}: {summary}")
                used.append(rec)
        return StructuredAnswer(" ".join(parts), used, "summaries of the SNP's genes") if parts else None
    return None


# ---- claim verification -------------------------------------------------------------
CYTO = re.compile(r"\b(?:[1-9]|1\d|2[0-2]|X|Y)[pq]\d{1,2}(?:\.\d{1,3})?\b")
GENOMIC = re.compile(r"\bchr(?:[1-9]|1\d|2[0-2]|X|Y|M)(?::\d+-\d+)?\b", re.I)
CHROMOSOME_WORD = re.compile(r"\bchromosome\s+([1-9]|1\d|2[0-2]|X|Y)\b", re.I)
CITE = re.compile(r"\[([a-z]+):([^\]\s]+)\]")
PMID = re.compile(r"\bPMID:?\s*(\d{4,9})\b", re.I)
SYMBOLISH = re.compile(r"\b[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]{1,4})?\b")
_COMMON_CAPS = {
    "DNA", "RNA", "SNP", "YES", "NO", "MESH", "NCBI", "OMIM", "BLAST", "PCR", "USA", "FDA", "WHO", "HIV", "AIDS",
    "COVID", "MRI", "CT", "ATP", "II", "III", "IV", "NA", "TRUE", "FALSE", "I", "A", "PMID", "ID",
}


def extract_claims(text: str) -> list[str]:
    """Checkable claims: rsIDs, locations, cited ids, gene-like symbols (with a digit or
    a hyphen, which rules out ordinary acronyms)."""
    claims: list[str] = []
    claims += [m.group(0).lower() for m in RSID.finditer(text)]
    claims += [m.group(0) for m in CYTO.finditer(text)]
    claims += [m.group(0) for m in GENOMIC.finditer(text)]
    claims += [f"chr{m.group(1).upper()}" for m in CHROMOSOME_WORD.finditer(text)]
    claims += [f"{m.group(1)}:{m.group(2)}" for m in CITE.finditer(text)]
    claims += [f"pubmed:{m.group(1)}" for m in PMID.finditer(text)]
    no_cites = CITE.sub(" ", text)
    for m in SYMBOLISH.finditer(no_cites):
        tok = m.group(0)
        if tok not in _COMMON_CAPS and (any(c.isdigit() for c in tok) or "-" in tok) and not RSID.fullmatch(tok.lower()) and not GENOMIC.fullmatch(tok) and not CYTO.fullmatch(tok):
            claims.append(tok)
    return list(dict.fromkeys(claims))


def _haystack(evidence: list[Evidence], question: str) -> tuple[str, set[str]]:
    parts = [question]
    keys = set()
    for ev in evidence:
        parts += [ev.id, ev.title, ev.text, json.dumps(ev.metadata, default=str)]
        keys.add(ev.key.lower())
    return "\n".join(parts).lower(), keys


def supported(claim: str, evidence: list[Evidence], question: str = "") -> bool:
    hay, keys = _haystack(evidence, question)
    if re.fullmatch(r"[a-z]+:[^\s]+", claim) and not GENOMIC.fullmatch(claim):
        return claim.lower() in keys
    c = claim.lower()
    if c.startswith("chr") and ":" not in c:
        n = re.escape(c[3:])
        forms = [rf"chr{n}", rf'"chromosome": "{n}"', rf"chromosome {n}"]
        return any(re.search(rf"(?<![a-z0-9]){f}(?![a-z0-9])", hay) for f in forms)
    return re.search(rf"(?<![a-z0-9]){re.escape(c)}(?![a-z0-9])", hay) is not None


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def verify_claims(answer: str, evidence: list[Evidence], question: str = "") -> tuple[str, list[str]]:
    """Remove sentences whose claims the evidence does not support; return (kept, unsupported)."""
    kept, unsupported = [], []
    for sentence in _SENTENCE.split(answer.strip()):
        bad = [c for c in extract_claims(sentence) if not supported(c, evidence, question)]
        if bad:
            unsupported += bad
        elif sentence and sentence not in kept:  # small models loop; say each thing once
            kept.append(sentence)
    return " ".join(kept).strip(), list(dict.fromkeys(unsupported))
