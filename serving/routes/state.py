"""The objects one app shares between its requests. `create_app` keeps them on `app.state`;
a route takes the ones it needs as parameters typed with these dependencies, so no route
reaches for a module global or a closure over another app's objects."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any

from fastapi import Depends, Request

from application.engine import Engine
from serving.jobs import JobManager
from serving.metrics import Metrics
from serving.runner import AgentRunner


def _from_state(attr: str) -> Callable[[Request], Any]:
    """A dependency that hands the route `request.app.state.<attr>`.

    A coroutine function, so FastAPI calls it on the event loop: a plain function would be
    sent to its worker threads and back, one round trip per dependency and request (three
    for a search; measured in a profile of the server under load)."""

    async def dependency(request: Request) -> Any:
        return getattr(request.app.state, attr)

    dependency.__name__ = f"app_state_{attr}"
    return dependency


EngineDep = Annotated[Engine, Depends(_from_state("engine"))]
RunnerDep = Annotated[AgentRunner, Depends(_from_state("runner"))]
JobsDep = Annotated[JobManager, Depends(_from_state("jobs"))]
MetricsDep = Annotated[Metrics, Depends(_from_state("metrics"))]
#: the bounded pool direct searches run on (sized to the cores), never one thread per request
SearchPoolDep = Annotated[ThreadPoolExecutor, Depends(_from_state("search_pool"))]
