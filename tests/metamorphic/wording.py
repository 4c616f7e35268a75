"""How people word the same question: the templates and rewordings the relations draw from.

Every template has one slot per entity ({gene}, {genes}, {features}, {disease}, {variant})
and is grouped by its form (question, cloze, fragment, imperative), so a relation can keep
the meaning and change only the wording it is about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

FORMS = ("question", "cloze", "fragment", "imperative")

#: asked field -> form -> templates; {gene} is a symbol or an id
GENE_FIELD = {
    "chromosome": {
        "question": ("Which chromosome is {gene} on?", "On which chromosome is the {gene} gene located?"),
        "cloze": ("{gene} is located on chromosome", "The chromosome of {gene} is"),
        "fragment": ("chromosome of {gene}?", "{gene} chromosome"),
        "imperative": ("Tell me the chromosome of {gene}.", "Name the chromosome {gene} lies on."),
    },
    "full_name": {
        "question": ("What is the full name of {gene}?", "What is the official full name of gene {gene}?"),
        "cloze": ("The full name of {gene} is", "{gene} stands for"),
        "fragment": ("full name of {gene}?", "{gene} full name"),
        "imperative": ("Give the full name of {gene}.", "Spell out the gene name {gene}."),
    },
}

#: what a gene set shares; {genes} may be preceded by "the genes" (the genes-word relation)
GENE_SET = {
    "question": ("Which process do {genes} share?", "What do {genes} have in common?",
                 "Which biological process links {genes}?"),
    "cloze": ("The enriched gene ontology term associated with {genes} is", "{genes} are together involved in"),
    "fragment": ("shared process of {genes}?", "enriched GO term for {genes}"),
    "imperative": ("Name the biological process shared by {genes}.", "Find the enriched GO term of {genes}."),
}

#: a symptom list -> candidate genes; pairs (with the word "genes", without it)
PHENOTYPE_PAIRS = (
    ("Which genes are linked to {features}?", "What is linked to {features}?"),
    ("genes for {features}", "{features}"),
    ("A patient has {features}. Which genes could explain it?", "A patient has {features}. What could explain it?"),
    ("List candidate genes for a child with {features}.", "List candidates for a child with {features}."),
)

#: a disease -> its genes
DISEASE_GENES = {
    "question": ("Which genes are associated with {disease}?", "What gene causes {disease}?"),
    "cloze": ("The gene mutated in {disease} is", "{disease} is caused by mutations in"),
    "fragment": ("{disease}: which gene?", "genes of {disease}?"),
    "imperative": ("List the genes of {disease}.", "Tell me which gene is mutated in {disease}."),
}

#: a variant -> its gene
VARIANT_GENE = {
    "question": ("Which gene is {variant} in?", "In which gene does {variant} lie?"),
    "cloze": ("{variant} is located in the gene", "The gene of {variant} is"),
    "fragment": ("gene of {variant}?", "{variant} gene"),
    "imperative": ("Tell me the gene that contains {variant}.", "Name the gene of {variant}."),
}

MCQ_STEMS = ("Which gene is associated with {disease}?", "Mutations in which gene cause {disease}?")

#: list separators: name -> join(items)
SEPARATORS = {
    "comma": lambda xs: ", ".join(xs),
    "comma-and": lambda xs: ", ".join(xs[:-1]) + " and " + xs[-1],
    "spaces": lambda xs: " ".join(xs),
    "newlines": lambda xs: "\n" + "\n".join(xs) + "\n",
    "semicolons": lambda xs: "; ".join(xs),
    "slashes": lambda xs: "/".join(xs),
}

#: polite wrappers and extra words around a question
WRAPPERS = (
    "Hi! {q} Thanks.",
    "Could you tell me: {q}",
    "please, {q}",
    "I was wondering - {q}",
    "{q} I need it for a report, thank you!",
    "Quick question. {q}",
)

#: option letter styles: name -> line for (index, text)
OPTION_STYLES = {
    "A)": lambda i, t: f"{'ABCD'[i]}) {t}",
    "A.": lambda i, t: f"{'ABCD'[i]}. {t}",
    "(A)": lambda i, t: f"({'ABCD'[i]}) {t}",
    "(a)": lambda i, t: f"({'abcd'[i]}) {t}",
    "a)": lambda i, t: f"{'abcd'[i]}) {t}",
    "1.": lambda i, t: f"{i + 1}. {t}",
    "1)": lambda i, t: f"{i + 1}) {t}",
}


def options_block(style: str, options: Sequence[str], inline: bool = False) -> str:
    lines = [OPTION_STYLES[style](i, t) for i, t in enumerate(options)]
    return " ".join(lines) if inline else "\n".join(lines)


def wrap(q: str, wrapper: str) -> str:
    return wrapper.format(q=q)


def typo(name: str, at: int) -> str:
    """One typo in the longest word (7+ letters) of a name: letters `at`, `at+1` swapped
    inside the word (never its first or last letter, never two equal letters)."""
    words = name.split(" ")
    i = max(range(len(words)), key=lambda j: len(re.sub(r"[^A-Za-z]", "", words[j])))
    w = words[i]
    inner = [k for k in range(1, len(w) - 2) if w[k].isalpha() and w[k + 1].isalpha() and w[k] != w[k + 1]]
    if len(re.sub(r"[^A-Za-z]", "", w)) < 7 or not inner:
        raise ValueError(f"no word of 7+ letters to misspell in {name!r}")
    k = inner[at % len(inner)]
    words[i] = w[:k] + w[k + 1] + w[k] + w[k + 2:]
    return " ".join(words)


def long_word(name: str) -> bool:
    try:
        typo(name, 0)
    except ValueError:
        return False
    return True
