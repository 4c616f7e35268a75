"""`POST /v1/prioritise`: rank genes for a patient, the same object as one case of
`biorag prioritise --json` (per gene: disease with id, matched and unexplained features,
score). The case is a GA4GH Phenopacket v2 object, a list of HPO ids, or text."""

# No `from __future__ import annotations`: the request model is made per app (its text limit
# is the server's), and FastAPI must see it as a value, not a string.
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from biorag.errors import InputError
from biorag.phenopackets import PhenopacketError, read_input
from biorag.settings import Settings
from biorag.user_text import check_user_text, user_text_schema
from retrievers.hpo import HpoStore, hpo_store_path
from retrievers.prioritise import DEFAULT_TOP_K, MAX_TOP_K, prioritise
from serving.errors import FieldError
from serving.routes.openapi import Guard, errors


def prioritise_router(settings: Settings, guard: Guard) -> APIRouter:
    """The router, guarded like every /v1 route. The HPO store opens per request; its
    phenotype model is built once per process."""

    class PrioritiseRequest(BaseModel):
        phenopacket: dict[str, Any] | None = Field(
            None, description="a GA4GH Phenopacket v2 object (phenotypicFeatures, subject); "
                              "interpretations and diseases are never read")
        terms: list[str] | None = Field(
            None, min_length=1, max_length=500,
            description="HPO ids instead of a phenopacket; '-HP:…' marks an excluded feature")
        text: str | None = Field(None, description="the patient in words ('seizures, ataxia, no hearing loss')",
                                 json_schema_extra=user_text_schema(settings))
        top_k: int = Field(DEFAULT_TOP_K, ge=1, le=MAX_TOP_K, description="genes to return")

    router = APIRouter()

    @router.post("/v1/prioritise", dependencies=guard.dependencies,
                 responses=errors(400, *guard.auth, 413, 422, 503),
                 summary="Which genes could explain these features? (same object as `biorag prioritise --json`)")
    async def prioritise_case(req: PrioritiseRequest) -> Any:
        given = {k: v for k, v in (("phenopacket", req.phenopacket), ("terms", req.terms), ("text", req.text))
                 if v is not None}
        if len(given) != 1:
            raise FieldError("body", "give exactly one of phenopacket, terms or text")
        (name, value), = given.items()
        if name == "text":
            try:
                value = check_user_text(value, settings, "text")
            except InputError as e:
                raise FieldError("body.text", str(e)) from None
        try:
            case = read_input(value, f"body.{name}")
        except PhenopacketError as e:
            raise FieldError(f"body.{name}", str(e)) from None

        def work() -> dict:
            store = HpoStore(hpo_store_path(settings))
            try:
                return prioritise(store, case, req.top_k).as_dict()
            except InputError as e:  # no usable feature: name the field it came from
                raise FieldError(f"body.{name}", str(e)) from None
            finally:
                store.close()

        return await run_in_threadpool(work)

    return router
