"""`POST /v1/geneset`: gene-set interpretation over HTTP, the same object as
`biorag geneset --json` (enriched terms per library, the name, verified and removed claims)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from biorag.settings import Settings
from retrievers.geneset import LIBRARY_ORDER
from serving.errors import FieldError

#: what OpenAPI can say of a gene list: at least two non-blank names. That they are two
#: distinct known human genes is checked by the interpreter (422 naming body.genes), which
#: tests/serving/schemathesis.toml allows for this route.
GeneName = Annotated[str, Field(min_length=1, max_length=64, pattern=r"\S")]
GeneList = Annotated[list[GeneName], Field(min_length=2)]
GeneText = Annotated[str, Field(min_length=3, pattern=r"\S+[\s,;]+\S+")]
Library = Literal[LIBRARY_ORDER]  # type: ignore[valid-type]


class GeneSetRequest(BaseModel):
    genes: GeneList | GeneText = Field(
        description="gene symbols: a list, or one string separated by spaces or commas")
    exclude: list[Library] = Field(default_factory=list, description="term libraries to leave out")


def geneset_router(settings: Settings, dependencies: list) -> APIRouter:
    """The router, guarded like every /v1 route. Stores are opened per request (the term
    libraries themselves are read once per process)."""
    router = APIRouter()

    @router.post("/v1/geneset", dependencies=dependencies,
                 summary="What do these genes do together? (same object as `biorag geneset --json`)")
    async def geneset(req: GeneSetRequest) -> Any:
        from biorag.errors import InputError
        from retrievers.geneset import GeneSetInterpreter

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
