"""What the `gene` source answers, and how each field is read from its records.

Shared by both gene backends (retrievers/gene/retriever.py: over E-utilities and over the local
store): they return the same evidence (see retrievers/gene/evidence.py).

Which record a name means: human records first (``ncbi.prefer_taxid`` is human by
default); among them an exact official symbol, Gene ID or Ensembl ID beats a previous
symbol or an alias. A previous symbol of one gene that is another's alias ("NEP": DDR1's
symbol once, MME's alias) may mean either: when several human genes fit, the reading is
*ambiguous*: it lists them (symbol, full name, how the name is theirs) and answers nothing else. A record that does not carry the
name at all (a free-text search hit) is used only when it is the one human record found.
Records NCBI has replaced or withdrawn are ignored while live ones exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from biorag.contracts.models import Evidence
from biorag.contracts.sources import GENE_IDS, AnswerField, HeldGene, Reading
from biorag.knowledge.gene_classes import NO_CLASS, class_names, class_value, shortened
from retrievers.gene.evidence import QUERY_PATTERN
from retrievers.gene.record import Annotation, GeneRecord

HUMAN_TAX = "9606"

OFFICIAL_SYMBOL = AnswerField(
    "official_symbol", "official symbol of a gene",
    ("official symbol", "official gene symbol", "gene symbol", "symbol", "approved symbol",
     "current symbol", "hgnc symbol", "standard symbol", "official name of the gene",
     "nomenclature", "renamed", "current name", "called now", "now called", "called these days",
     "called today", "called nowadays", "called currently", "name today", "new name", "new symbol",
     # the gene's name between the verb and the time: "What does HGNC call LMP10 now?"
     # (\u220e: where understanding has blanked out the entity's name)
     "call \u220e now", "call \u220e today", "call \u220e nowadays", "call \u220e these days",
     "call \u220e currently"),
    GENE_IDS, subject_is_name=True)
#: "HER2 - official gene name?", "Which gene is ENSG00000141510?": the gene's official symbol
#: with its full name (a "name" may mean either)
OFFICIAL_NAME = AnswerField(
    "official_name", "official symbol and full name of a gene",
    ("official gene name", "official name of", "approved name", "approved gene name", "gene name",
     "proper name", "correct name", "real name", "official designation"),
    GENE_IDS, weak_cues=("which gene", "what gene", "which gene is", "what gene is", "what gene does",
                         "which gene does", "gene is this", "gene is that", "whose id", "gene with", "gene whose"),
    subject_is_name=True)
ALIASES = AnswerField(
    "aliases", "aliases of a gene",
    ("aliases", "alias", "other names", "other name", "synonyms", "synonym", "also known as",
     "also called", "alternative names", "alternative name", "alternate names", "other symbols",
     "previous symbols", "aka", "alternative symbol", "alternate symbol", "alternative gene symbol",
     "alternative gene name", "other symbol", "other gene name", "other gene symbol", "former name",
     "former symbol", "old name", "old symbol", "previous name", "previous symbol"),
    GENE_IDS, weak_cues=("names", "known as", "called"))
CHROMOSOME = AnswerField(
    "chromosome", "chromosome of a gene",
    ("chromosome", "which chromosome", "what chromosome", "chr", "genomic location"),
    GENE_IDS,
    weak_cues=("located", "location", "locate", "where", "lie", "lies", "reside", "resides", "sit",
               "sits", "found on", "situated", "maps to", "map to", "position"))
MAP_LOCATION = AnswerField(
    "map_location", "cytogenetic location of a gene",
    ("cytogenetic", "cytogenetic location", "cytogenetic band", "band", "cytoband",
     "map location", "chromosome location", "chromosome locations", "chromosomal location",
     "chromosomal locations", "chromosomal position", "chromosome band", "locus", "loci",
     "arm", "band level", "map $", "maps $", "mapped $"),
    GENE_IDS)
PROTEIN_CODING = AnswerField(
    "protein_coding", "whether a gene is protein-coding",
    ("protein coding", "protein coding gene", "code a protein", "code for a protein",
     "codes a protein", "codes for a protein", "encode a protein", "encodes a protein",
     "encode protein", "encodes protein", "coding gene", "non coding", "noncoding",
     "codes for protein", "code for protein", "translated into protein", "make a protein",
     "makes a protein", "produce a protein", "produces a protein"),
    GENE_IDS)
GENE_TYPE = AnswerField(
    "gene_type", "type of a gene",
    # "what type" alone is no cue: "What type of tumours does a PMS2 mutation cause?" asks a
    # type of something else; the type asked must be the gene's
    ("gene type", "type of gene", "type of the gene", "kind of gene", "class of gene", "biotype",
     "gene class", "locus type"),
    GENE_IDS)
SUMMARY = AnswerField(
    "summary", "function of a gene",
    ("function", "functions", "role", "roles", "summary", "summarise", "summarize", "purpose",
     "biological function", "what does it do", "does $", "do $", "molecular function",
     # the function in health, as against in a disease: still the gene's record
     "normal function", "normal role", "physiological function", "physiological role",
     # "what is BRCA2 involved in?", "what does X take part in": the processes it acts in
     "involved in $", "involved with $", "take part in $", "takes part in $", "participate in $",
     "participates in $", "part of $", "play $", "plays $",
     # "Which pathways does TP53 regulate?" asks for pathways (the record's Reactome
     # pathways and GO processes), not the genes a factor regulates (TRRUST's "regulate")
     "pathway", "pathways", "signaling pathways", "signalling pathways", "biological processes"),
    GENE_IDS,
    weak_cues=("what does", "job"), general_only=True)
#: the answer to a question that names one gene and asks nothing else ("What is PSEN1?",
#: "Tell me about PSEN1"): who it is (symbol, name, type, location, ids), what it does and
#: the diseases linked to it (`gene_card`)
GENE_CARD = AnswerField(
    "gene_card", "a gene's card: names, location, type, ids, what it does, linked diseases",
    ("gene card",),
    GENE_IDS, default_for=GENE_IDS,
    weak_cues=("describe", "description", "what is known", "tell me about", "overview", "explain",
               "what do we know about", "info", "information", "profile", "everything about"))
ENSEMBL_ID = AnswerField(
    "ensembl_id", "Ensembl gene ID of a gene",
    ("ensembl", "ensembl id", "ensembl gene id", "ensembl identifier", "ensg", "ensembl accession"),
    ("gene", "entrez"))  # the Ensembl id of an Ensembl id is no question: "the gene with Ensembl id X"
ENTREZ_ID = AnswerField(
    "entrez_id", "NCBI Gene (Entrez) ID of a gene",
    ("entrez", "entrez id", "entrez gene id", "ncbi gene id", "gene id", "geneid", "ncbi id",
     "ncbi gene", "ncbi identifier", "gene identifier", "ncbi gene identifier"),
    ("gene", "ensembl"))
FULL_NAME = AnswerField(
    "full_name", "full name of a gene",
    ("full name", "long name", "stand for", "stands for", "full gene name", "expanded name",
     "spelled out", "spell out", "spells out", "spelt out", "written out", "unabbreviated",
     "full form", "long form", "in full", "expansion", "expand", "abbreviation",
     # what a gene encodes is named by its full name ("huntingtin", "CF transmembrane
     # conductance regulator"); "what kind of protein" is the class (`GENE_CLASS`)
     "encode $", "encodes $", "code for $", "codes for $", "protein product", "gene product",
     "encoded protein", "protein encoded", "protein it encodes"),
    GENE_IDS)

#: "What kind of protein does BRAF encode?", and "Which of these is a kinase? A) TP53 B) BRAF"
#: (`biorag.understanding.option_subjects` plans it for a class among options): the class a
#: gene's names state (`biorag.knowledge.gene_classes`). A class word is no cue of its own:
#: "Which kinase phosphorylates tau?" asks who does something, not what a gene is
GENE_CLASS = AnswerField(
    "gene_class", "class of a gene's product its names state (kinase, receptor, ion channel, "
    "transcription factor, tumor suppressor, proto-oncogene, enzyme ...)",
    # only words other fields' cues hold already: a cue's words leave a question's free text
    # ("enzyme" as a cue word would make "Which enzyme cleaves X?" no literature question)
    ("kind of protein", "type of protein", "class of protein", "protein class", "protein type"),
    GENE_IDS)

GENE_FIELDS = (OFFICIAL_SYMBOL, OFFICIAL_NAME, ALIASES, CHROMOSOME, MAP_LOCATION, PROTEIN_CODING, GENE_TYPE,
               SUMMARY, GENE_CARD, ENSEMBL_ID, ENTREZ_ID, FULL_NAME, GENE_CLASS)


def is_human(rec: GeneRecord) -> bool:
    org = (rec.organism or "").lower()
    return str(rec.tax_id or "") == HUMAN_TAX or "homo sapiens" in org or org == "human"


def name_rank(ev: Evidence, rec: GeneRecord, name: str) -> int | None:
    """How strongly the record carries `name`: 0 official symbol / Gene ID / Ensembl ID,
    1 previous symbol, 2 alias, None not at all (case-insensitive, version suffix ignored)."""
    n = name.strip().lower().split(".")[0] if name.strip().upper().startswith("ENS") else name.strip().lower()
    if not n:
        return None
    if n == (rec.symbol or "").lower() or n == ev.id.lower():
        return 0
    if n in {e.lower().split(".")[0] for e in rec.ensembl}:
        return 0
    if rec.matched in ("ensembl", "gene_id") and n.startswith("ens"):
        return 0  # an exact-ID search hit (E-utilities records carry no Ensembl IDs)
    if n in {p.lower() for p in rec.previous_symbols}:
        return 1
    if n in {a.lower() for a in rec.aliases}:
        return 2
    return None


def records_for(evidence: list[Evidence], name: str) -> tuple[list[tuple[Evidence, GeneRecord]], bool]:
    """The records `name` means and whether it is ambiguous (see the module docstring)."""
    genes = GeneRecord.all_of(evidence)
    live = [(e, r) for e, r in genes if r.is_live]
    genes = live or genes  # a record NCBI replaced or withdrew is history, not a candidate
    human = [(e, r) for e, r in genes if is_human(r)]
    pool = human or genes
    ranked = [(rank, e, r) for e, r in pool if (rank := name_rank(e, r, name)) is not None]
    if not ranked:
        unique = {e.id: (e, r) for e, r in human}
        return (list(unique.values()), False) if len(unique) == 1 else ([], False)
    best = min(min(rank, 1) for rank, _, _ in ranked)  # a previous symbol and an alias weigh the same
    chosen = list({e.id: (e, r) for rank, e, r in sorted(ranked, key=lambda t: t[0]) if min(rank, 1) == best}.values())
    return chosen, len(chosen) > 1


def distinct_names(symbol: str, aliases: Sequence[str]) -> list[str]:
    """The symbol, then its aliases in their order, each name once whatever its case: HGNC
    and NCBI sometimes list one alias in two spellings (PTPN22: NCBI "LYP", HGNC "Lyp").
    The symbol keeps its own spelling; of an alias's spellings the upper-case one, as human
    gene symbols are written, else the first listed."""
    chosen: dict[str, str] = {symbol.lower(): symbol}
    for name in aliases:
        key = name.lower()
        if key not in chosen or (name.isupper() and not chosen[key].isupper() and key != symbol.lower()):
            chosen[key] = name
    return list(chosen.values())


def _chrom(value: Any) -> str | None:
    if value in (None, ""):
        return None
    v = str(value).strip()
    if v.lower().startswith("chr"):
        v = v[3:]
    return f"chr{v}" if v else None


def gene_value(field: str, ev: Evidence, rec: GeneRecord) -> str | None:
    """One field of one gene record as answered."""
    symbol = rec.symbol or None
    if field == "official_symbol":
        return symbol
    if field == "official_name":
        return f"{symbol} ({rec.name})" if symbol and rec.name else symbol
    if field == "chromosome":
        return _chrom(rec.chromosome)
    if field == "map_location":
        return rec.map_location or None
    if field in ("protein_coding", "gene_type"):
        gtype = (rec.gene_type or "").lower().replace("_", "-")
        if not gtype:
            return None
        if field == "gene_type":
            return gene_type_words(gtype)
        return "Yes" if gtype == "protein-coding" else "No"
    if field == "aliases":
        return ", ".join(distinct_names(symbol, rec.aliases)) if symbol else None
    if field == "summary":
        return function_text(rec, symbol) if symbol else None
    if field == "gene_card":
        return card_text(ev, rec, symbol) if symbol else None
    if field == "ensembl_id":
        return ", ".join(rec.ensembl) or None
    if field == "entrez_id":
        return ev.id if ev.id.isdigit() else None
    if field == "full_name":
        return rec.name or None
    if field == "gene_class":
        return class_value(class_names(rec.name, rec.designations, symbol)) if symbol else None
    return None


#: gene_info's type_of_gene codes in words ("ncRNA" -> "non-coding RNA (ncRNA)"); the code
#: stays in parentheses, so the answer names both what users read and what NCBI records
_GENE_TYPE_WORDS = {
    "ncrna": "non-coding RNA (ncRNA)", "rrna": "ribosomal RNA (rRNA)", "trna": "transfer RNA (tRNA)",
    "snrna": "small nuclear RNA (snRNA)", "snorna": "small nucleolar RNA (snoRNA)",
    "scrna": "small cytoplasmic RNA (scRNA)", "mirna": "microRNA (miRNA)", "misc-rna": "miscellaneous RNA",
    "pseudo": "pseudogene (pseudo)", "biological-region": "biological region", "other": "other",
    "unknown": "unknown", "protein-coding": "protein-coding",
}


def gene_type_words(gene_type: str) -> str:
    """A gene type as words, whatever case or separator the record writes it in."""
    key = gene_type.strip().lower().replace("_", "-")
    return _GENE_TYPE_WORDS.get(key, gene_type.strip())


def _listing(items: list[Annotation], evidence: bool = False) -> str:
    return "; ".join(f"{i.name} ({i.id}" + (f"; {(i.evidence or '').replace(',', ', ')}" if evidence else "") + ")"
                     for i in items)


def _doings(rec: GeneRecord) -> list[str]:
    """What the record says the gene does: its GO BP processes and Reactome pathways, cited."""
    lines = []
    if rec.processes:
        lines.append("Processes (GO BP, with evidence codes): " + _listing(rec.processes, evidence=True))
    if rec.pathways:
        lines.append("Pathways (Reactome): " + _listing(rec.pathways))
    return lines


def function_text(rec: GeneRecord, symbol: str) -> str | None:
    """What a gene does, on one line: its RefSeq summary when the record has one, its GO BP
    processes and Reactome pathways; None when it holds none of them. Its name alone never
    answers."""
    summary, doings = rec.summary, _doings(rec)
    if not summary and not doings:
        return None
    about = summary or (f"{rec.name}." if rec.name else "")
    return " ".join([f"{symbol}:", about, *(d + "." for d in doings)]).replace("  ", " ")


def card_text(ev: Evidence, rec: GeneRecord, symbol: str) -> str:
    """A gene's card: symbol, full name, type and location, and the first of what it does; its
    ids; what it does, cited; its diseases."""
    head = f"{symbol}: {rec.name or 'no full name recorded'}"
    what = " ".join(filter(None, [gene_type_words(rec.gene_type or ""), "gene"]))
    where = rec.map_location or (f"chromosome {rec.chromosome}" if rec.chromosome else None)
    head += f", a {what}" + (f" at {where}" if where else "")
    # the first line is what most people read: it says what the gene does too, in short
    doing = [i.name for i in (rec.processes or rec.pathways)[:3]]
    if doing:
        head += "; acts in " + (", ".join(doing[:-1]) + " and " + doing[-1] if len(doing) > 1 else doing[0])
    ids = [f"NCBI Gene {ev.id}" if ev.id.isdigit() else None,
           (f"HGNC:{str(h).removeprefix('HGNC:')}" if (h := rec.hgnc_id) else None),
           *(f"Ensembl {e}" for e in rec.ensembl),
           *(f"OMIM {m}" for m in rec.mim[:2])]
    lines = [head, "Ids: " + "; ".join(i for i in ids if i)]
    if aliases := distinct_names(symbol, [a.strip("'\" ") for a in rec.aliases])[1:7]:
        lines.append("Also known as: " + ", ".join(aliases))
    if rec.summary:
        lines.append(f"Summary: {rec.summary}")
    lines += _doings(rec)
    if rec.diseases:
        lines.append("Linked diseases: " + _listing(rec.diseases))
    return "\n".join(lines)


_HOW_NAMED = {0: "", 1: "previous symbol", 2: "alias"}


def _candidate(ev: Evidence, rec: GeneRecord, name: str) -> str:
    """One gene an ambiguous name may mean: its symbol, full name, Gene ID and how the
    name is its ("DDR1 (discoidin domain receptor tyrosine kinase 1; Gene ID 780; previous symbol)")."""
    how = _HOW_NAMED.get(name_rank(ev, rec, name) or 0, "")
    about = [x for x in (rec.name, f"Gene ID {ev.id}", how) if x]
    return f"{rec.symbol or ev.id} ({'; '.join(about)})"


def read_gene_field(field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
    """`field` for each gene named in `about`; ambiguous names are listed, not resolved."""
    values, used, ambiguous, explain = [], [], [], []
    for name in dict.fromkeys(a for a in about if a):
        recs, is_ambiguous = records_for(evidence, name)
        if is_ambiguous:
            ambiguous += [f"{r.symbol or e.id} (Gene ID {e.id})" for e, r in recs]
            explain.append(f"'{name}' names several human genes: {', '.join(_candidate(e, r, name) for e, r in recs)}")
            continue
        if not recs:
            continue
        ev, rec = recs[0]
        value = gene_value(field.name, ev, rec)
        if value:
            values.append(value)
            used.append(ev)
            explain.append(f"{field.name} of {name} from Gene record {ev.id}")
    if ambiguous:
        return Reading([], used, "; ".join(explain), ambiguous=ambiguous,
                       text="Ambiguous: " + "; ".join(e for e in explain if "names several" in e)
                       + ". Say which gene you mean (by official symbol or Gene ID).")
    if not values:
        return None
    # a class no name states is no answer to "what kind of protein" (an option question
    # still compares it with the other options' classes)
    refused, text = "", None
    if field.name == "gene_class":
        refused = "no name of the gene states what class of product it is" if all(v == NO_CLASS for v in values) else ""
        text = ", ".join(dict.fromkeys(shortened(v) for v in values))  # the values keep every name
    return Reading(list(dict.fromkeys(values)), used, "; ".join(explain),
                   links=[r.id for r in used], refused=refused, text=text)


class GeneFields:
    """The `gene` source's declarations, mixed into both backends' retriever classes
    (``class GeneRetriever(GeneFields, Retriever)``)."""

    accepts = GENE_IDS
    answers = GENE_FIELDS

    @classmethod
    def query_schema(cls, settings: Any) -> dict[str, Any]:
        """Not only blanks, quotes and brackets: what is left of such a query is empty."""
        return {"pattern": QUERY_PATTERN}

    @classmethod
    def read(cls, field: AnswerField, evidence: list[Evidence], about: Sequence[str]) -> Reading | None:
        return read_gene_field(field, evidence, about)

    @classmethod
    def genes(cls, evidence: list[Evidence]) -> list[HeldGene]:
        """Each gene record's gene: its Gene ID, symbol, previous symbols and aliases."""
        return [HeldGene(ev.id, tuple(n for n in (rec.symbol, *rec.previous_symbols, *rec.aliases) if n))
                for ev, rec in GeneRecord.all_of(evidence)]
