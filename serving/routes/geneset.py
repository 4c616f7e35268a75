"""`POST /v1/geneset`: gene-set interpretation over HTTP, the same object as
`biorag geneset --json` (enriched terms per library, the name, verified and removed claims)."""

# No `from __future__ import annotations`: the request model is built per server, and
# FastAPI must see the real class in the route signature.
import re
from typing import Annotated, Any, Literal

from fastapi import APIRouter
from pydantic import AfterValidator, BaseModel, Field, WithJsonSchema, create_model
from starlette.concurrency import run_in_threadpool

from biorag.contracts.errors import InputError
from biorag.settings import Settings
from retrievers.geneset.retriever import LIBRARY_ORDER, ONE_NAME, TWO_NAMES, GeneSetInterpreter
from serving.contract import body_limit, refused_although_valid
from serving.errors import FieldError
from serving.routes.openapi import Guard, errors

Library = Literal[LIBRARY_ORDER]  # type: ignore[valid-type]


def gene_set_request_model(settings: Settings) -> type[BaseModel]:
    """The request, its gene list narrowed as far as a schema can: at least two names (a
    list of at least two named items, or one string with two names), at most
    `geneset.max_genes` items. The model checks what the schema states, with one message
    naming body.genes. That they are distinct known human genes is the interpreter's check,
    answered 422 naming body.genes with a message that says how to fix it (stated in the
    route's description, `refusals`)."""
    most = settings.geneset.max_genes
    # the string's length is bounded by serve.max_body_bytes (413), not by a maxLength a
    # client would have to fit under the body limit itself
    schema = {"anyOf": [
        {"type": "array", "items": {"type": "string", "pattern": ONE_NAME}, "minItems": 2, "maxItems": most,
         "uniqueItems": True},
        {"type": "string", "pattern": TWO_NAMES},
    ]}

    def as_stated(genes: Any) -> list[str] | str:
        if isinstance(genes, str):
            ok = re.search(TWO_NAMES, genes)
        else:
            ok = (isinstance(genes, list) and 2 <= len(genes) <= most and len(set(map(str, genes))) == len(genes)
                  and all(isinstance(g, str) and re.search(ONE_NAME, g) for g in genes))
        if not ok:
            raise ValueError(f"give at least 2 distinct gene names (at most {most}): a list of names, or one string "
                             "of names separated by spaces, commas or semicolons, e.g. \"TP53 MDM2 CDKN1A\"")
        return genes

    return create_model(
        "GeneSetRequest",
        genes=(Annotated[Any, AfterValidator(as_stated), WithJsonSchema(schema)],
               Field(description="gene symbols: a list, or one string separated by spaces, commas or semicolons; "
                     "at least two distinct known human genes")),
        exclude=(list[Library], Field(default_factory=list, description="term libraries to leave out")),
    )


def refusals(settings: Settings) -> str:
    """What no schema can state, in the route's description (`serving.contract`)."""
    return refused_although_valid(
        (422, "fewer than two of the names are distinct known human genes: names are matched to the gene store's "
              "symbols, aliases and ids ignoring case (so 'TP53 tp53' is one gene), which is the store's data, not "
              "a pattern; or the one-string form holds more than geneset.max_genes names (a string's name count is "
              "no JSON Schema keyword). `fields` names body.genes and the message lists the names not recognised."),
        body_limit(settings.serve.max_body_bytes),
        intro="Enrichment of a gene set against GO Biological Process, Reactome, HPO and MeSH, named with verified "
              "claims.")


def geneset_router(settings: Settings, guard: Guard) -> APIRouter:
    """The router, guarded like every /v1 route. Stores are opened per request (the term
    libraries themselves are read once per process)."""
    router = APIRouter()
    GeneSetRequest = gene_set_request_model(settings)

    @router.post("/v1/geneset", dependencies=guard.dependencies,
                 responses=errors(400, *guard.auth, 413, 422),
                 summary="What do these genes do together? (same object as `biorag geneset --json`)",
                 description=refusals(settings))
    async def geneset(req: GeneSetRequest) -> Any:  # type: ignore[valid-type]
        def work() -> dict:
            interpreter = GeneSetInterpreter.from_settings(settings, exclude=req.exclude)
            try:
                return interpreter.interpret(req.genes).as_dict()
            except InputError as e:  # the genes themselves (too few known, too many): name the field
                raise FieldError("body.genes", str(e)) from None
            finally:
                interpreter.close()

        return await run_in_threadpool(work)

    return router
