"""A disease's faulty gene product asked for by what it is: "Which enzyme is deficient in
Gaucher disease?", "Name the enzyme deficient in phenylketonuria", "What protein is
defective in cystic fibrosis?", "Gaucher disease is caused by a deficiency of which enzyme?".

The enzyme or protein a disease lacks is the product of the disease's gene, which the
curated gene–disease links state: the question asks for the disease's genes, not the
literature's "enzymes". It is read so only when a product word and a word saying the
product fails stand within a few words of each other, the question names a disease and no
gene ("Is phenylalanine hydroxylase deficient in PKU?" names its gene and is a claim).
Nutrients, hormones and vitamins are no gene products here: "Which vitamin is deficient in
coeliac disease?" stays the literature's.
"""

from __future__ import annotations

from collections.abc import Mapping

from biorag.contracts.sources import Source, declared_fields
from biorag.understanding.intent import normalise, plan
from biorag.understanding.question_model import Entity, Intent

#: what the question calls the missing thing: a gene's product
_PRODUCT_WORDS = frozenset({"enzyme", "enzymes", "protein", "proteins", "product", "products"})
#: what it says of it: it is lacking or faulty
_FAULT_WORDS = frozenset({"deficient", "deficiency", "deficiencies", "defective", "defect", "defects", "missing",
                          "lacking", "lacks", "lack", "absent", "nonfunctional", "faulty", "mutated", "mutant"})
#: at most this many words apart ("deficiency of which enzyme", "enzyme is deficient")
_NEAR = 3
_DISEASE_GENES = "disease_genes"


def asks_faulty_product(text: str, entities: list[Entity], sources: Mapping[str, Source] | None) -> Intent | None:
    """The disease-genes intent when `text` (its names blanked) asks which enzyme or protein
    fails in the disease it names; None otherwise."""
    if not sources or any(e.kind == "gene" and e.confident for e in entities) \
            or not any(e.kind == "disease" and e.confident for e in entities):
        return None
    tokens = normalise(text).split()
    products = [i for i, w in enumerate(tokens) if w in _PRODUCT_WORDS]
    faults = [i for i, w in enumerate(tokens) if w in _FAULT_WORDS]
    if not any(abs(p - f) <= _NEAR for p in products for f in faults):
        return None
    return plan(_DISEASE_GENES, {"disease"}, declared_fields(sources))
