"""`POST /v1/prioritise`: rank genes for a patient, the same object as one case of
`biorag prioritise --json` (per gene: disease with id, matched and unexplained features,
score). The case is a GA4GH Phenopacket v2 object, a list of HPO ids, or text."""

# No `from __future__ import annotations`: the request model is made per app (its text limit
# is the server's), and FastAPI must see it as a value, not a string.
from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from starlette.concurrency import run_in_threadpool

from biorag.contracts.errors import InputError
from biorag.knowledge.phenopackets import MAX_FEATURES, SEXES, PhenopacketError, read_input
from biorag.settings import Settings
from biorag.understanding.user_text import check_user_text, user_text_schema
from retrievers.hpo.prioritise import DEFAULT_TOP_K, MAX_TOP_K, prioritise
from retrievers.stores.hpo_store import HpoStore, hpo_store_path
from serving.contract import body_limit, refused_although_valid
from serving.errors import FieldError
from serving.routes.openapi import Guard, errors

#: an ISO 8601 duration as `biorag.knowledge.phenopackets.duration_years` reads it: P, then at least
#: one of years, months, weeks, days (a time part may follow)
_DURATION = r"^P(?=\d)(?:\d+(?:\.\d+)?Y)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?W)?(?:\d+(?:\.\d+)?D)?(?:T.*)?$"
_HPO_ID = {"type": "string", "pattern": r"^HP:\d{7}$"}
_AGE = {"type": "object", "required": ["iso8601duration"],
        "properties": {"iso8601duration": {"type": "string", "pattern": _DURATION}}}
#: a feature's onset: an HPO onset term, an age, or a gestational age
_ONSET = {"type": "object", "properties": {
    "ontologyClass": {"type": "object", "required": ["id"], "properties": {"id": _HPO_ID}},
    "age": _AGE}}

#: what the schema states of a phenopacket: every field the reader reads, in the form it
#: takes, and at least one observed (not excluded) feature
PHENOPACKET_SCHEMA: dict[str, Any] = {
    "required": ["phenotypicFeatures"],
    "properties": {
        "id": {"type": "string"},
        "phenotypicFeatures": {
            "type": "array", "minItems": 1, "maxItems": MAX_FEATURES,
            "items": {
                "type": "object", "required": ["type"],
                "properties": {"type": {"type": "object", "required": ["id"],
                                        "properties": {"id": _HPO_ID, "label": {"type": "string"}}},
                               "excluded": {"type": "boolean"},
                               "onset": _ONSET}},
            "contains": {"type": "object", "properties": {"excluded": {"const": False}}}},
        "subject": {"type": "object", "properties": {
            "sex": {"enum": list(SEXES)},
            "timeAtLastEncounter": {"type": "object", "properties": {"age": _AGE}}}},
    },
}

def refusals(settings: Settings) -> str:
    """What no schema can state, in the route's description (`serving.contract`)."""
    return refused_although_valid(
        (422, "the HPO store finds no observed phenotype in the case: no observed id is a term of the HPO release "
              "this server ships (unknown ids, and obsolete ids without a replacement, are skipped with a warning), "
              "or `text` names none (words the HPO lexicon cannot map to a term, or only negated ones); `fields` "
              "names the field. Which ids and words name a term is the store's data, not a pattern."),
        body_limit(settings.serve.max_body_bytes),
        intro="Exactly one of `phenopacket`, `terms` or `text`. The schema states each one's form; the HPO store "
              "decides the rest.")


def prioritise_router(settings: Settings, guard: Guard) -> APIRouter:
    """The router, guarded like every /v1 route. The HPO store opens per request; its
    phenotype model is built once per process."""

    class PrioritiseRequest(BaseModel):
        """Exactly one of `phenopacket`, `terms` or `text` (the schema's oneOf), and `top_k`."""

        # a field given as null is no way to give the case: each is absent or of its type
        model_config = ConfigDict(extra="forbid", json_schema_extra={"oneOf": [
            {"required": ["phenopacket"]}, {"required": ["terms"]}, {"required": ["text"]}]})
        phenopacket: dict[str, Any] = Field(
            None, description="a GA4GH Phenopacket v2 object (phenotypicFeatures, subject); "
                              "interpretations and diseases are never read",
            json_schema_extra=PHENOPACKET_SCHEMA)
        terms: list[Annotated[str, StringConstraints(pattern=r"^[-!]?HP:\d{7}$")]] = Field(
            None, min_length=1, max_length=MAX_FEATURES, description="HPO ids; '-HP:…' marks an excluded feature; "
            "at least one observed", json_schema_extra={"contains": {"pattern": r"^HP:\d{7}$"}})
        text: str = Field(None, description="the patient in words ('seizures, ataxia, no hearing loss')",
                          json_schema_extra=user_text_schema(settings))
        top_k: int = Field(DEFAULT_TOP_K, ge=1, le=MAX_TOP_K, description="genes to return")

    router = APIRouter()

    @router.post("/v1/prioritise", dependencies=guard.dependencies,
                 responses=errors(400, *guard.auth, 404, 413, 422, 503),
                 summary="Which genes could explain these features? (same object as `biorag prioritise --json`)",
                 description=refusals(settings))
    async def prioritise_case(req: PrioritiseRequest) -> Any:
        given = [k for k in ("phenopacket", "terms", "text") if k in req.model_fields_set]
        if len(given) != 1:
            raise FieldError("body", "give exactly one of phenopacket, terms or text")
        name = given[0]
        value = getattr(req, name)
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
