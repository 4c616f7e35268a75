"""`POST /v1/geneset`: gene-set interpretation over HTTP, the same object as
`biorag geneset --json` (enriched terms per library, the name, verified and removed claims)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from biorag.errors import InputError
from biorag.settings import Settings
from retrievers.geneset import LIBRARY_ORDER, GeneSetInterpreter
from serving.errors import FieldError
from serving.routes.openapi import Guard, errors

Library = Literal[LIBRARY_ORDER]  # type: ignore[valid-type]


class GeneSetRequest(BaseModel):
    #: a gene list is a list or a string: that it names at least two distinct known human genes
    #: is the interpreter's check, answered 422 naming body.genes with a message that says how
    #: to fix it (tests/serving/schemathesis.toml allows this route that 422)
    genes: list[str] | str = Field(
        description="gene symbols: a list, or one string separated by spaces or commas")
    exclude: list[Library] = Field(default_factory=list, description="term libraries to leave out")


def geneset_router(settings: Settings, guard: Guard) -> APIRouter:
    """The router, guarded like every /v1 route. Stores are opened per request (the term
    libraries themselves are read once per process)."""
    router = APIRouter()

    @router.post("/v1/geneset", dependencies=guard.dependencies,
                 responses=errors(400, *guard.auth, 413, 422),
                 summary="What do these genes do together? (same object as `biorag geneset --json`)")
    async def geneset(req: GeneSetRequest) -> Any:
        if isinstance(req.genes, str) and len(req.genes) > settings.serve.max_body_bytes:
            raise FieldError("body.genes", "the gene list is too long")

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
