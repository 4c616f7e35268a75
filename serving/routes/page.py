"""GET /: the chat page (static HTML that streams from /v1/answer/stream); not in the
OpenAPI document."""

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).resolve().parents[1] / "static"


def page_router() -> APIRouter:
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    async def chat_page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    return router
