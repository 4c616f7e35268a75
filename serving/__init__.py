"""HTTP service: QA (plain and streamed), direct search, index rebuild jobs, health,
metrics and the chat page. `create_app(settings)` builds the FastAPI app; `biorag serve`
runs it under uvicorn."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from biorag.settings import Settings


def create_app(settings: Settings, **kw) -> FastAPI:
    from serving.app import create_app as _create

    return _create(settings, **kw)


__all__ = ["create_app"]
