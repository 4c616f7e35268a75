"""`biorag serve`: the HTTP API and chat page."""

from __future__ import annotations

import ipaddress
from typing import Annotated

import typer

from cli.commands.common import (
    DisableOpt,
    EnableOpt,
    PresetOpt,
    ReplayOpt,
    SetOpt,
    fail,
    friendly_errors,
    settings_from_options,
)
from serving import create_app

_LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@friendly_errors
def command(
    host: Annotated[str | None, typer.Option(help="Interface to bind (default serve.host, 127.0.0.1). Use 0.0.0.0 only behind API keys or a proxy.")] = None,
    port: Annotated[int | None, typer.Option(help="TCP port (default serve.port, 8000).")] = None,
    preset: PresetOpt = None,
    set_: SetOpt = None,
    disable: DisableOpt = None,
    enable: EnableOpt = None,
    replay: ReplayOpt = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level: critical, error, warning, info, debug.")] = "info",
) -> None:
    """Serve the QA API and the chat page (http://HOST:PORT/; API description at /docs).

    Routes, by family: answers: POST /v1/answer, POST /v1/answer/stream (Server-Sent Events). Chat (OpenAI-compatible): POST /v1/chat/completions, GET /v1/models. Search: GET /v1/search/{source}, GET /v1/sources, GET /v1/catalogues. Gene sets: POST /v1/geneset. Phenotypes: POST /v1/prioritise. Index jobs: POST /v1/jobs/index-rebuild, GET /v1/jobs, GET and DELETE (cancel) /v1/jobs/{id}. The index: POST /v1/index/gc, POST /v1/index/rollback. Operations: GET /healthz, /readyz, /metrics. MCP tools: /mcp (streamable HTTP). The chat page: GET /.

    API keys: --set 'serve.api_keys=["KEY"]' or BIORAG_SERVE__API_KEYS='["KEY"]'; clients send 'Authorization: Bearer KEY'.

    Host names: requests must name this server in their Host header (localhost, 127.0.0.1, [::1] and --host by default; serve.allowed_hosts to add names, ["*"] for any).

    Example: biorag serve --port 8080 --set serve.max_concurrent=2
    """
    if log_level not in _LOG_LEVELS:
        fail(f"--log-level must be one of {', '.join(_LOG_LEVELS)}, got '{log_level}'")
    settings = settings_from_options(preset, set_, disable, enable, replay)
    updates = {}
    if host is not None:
        updates["host"] = host
    if port is not None:
        updates["port"] = port
    if updates:  # validated like every other setting (model_copy would not check them)
        from pydantic import ValidationError

        try:
            settings.serve = type(settings.serve).model_validate({**settings.serve.model_dump(), **updates})
        except ValidationError as e:
            err = e.errors()[0]
            fail(f"--{err['loc'][0]} {err.get('input')!r}: {err['msg']}")
    serve = settings.serve
    if not _loopback(serve.host) and not serve.api_keys:
        typer.echo(
            f"warning: binding {serve.host} without API keys: anyone who can reach this port can use the API "
            "(set serve.api_keys or BIORAG_SERVE__API_KEYS)",
            err=True,
        )
    if not _loopback(serve.host) and not serve.allowed_hosts:
        typer.echo(
            f"note: clients must send Host: localhost, 127.0.0.1 or {serve.host}; to answer other names, "
            "set serve.allowed_hosts (e.g. BIORAG_SERVE__ALLOWED_HOSTS='[\"api.lab.example\"]', or '[\"*\"]' for any)",
            err=True,
        )

    import logging

    import uvicorn

    from biorag.host.device import available_cores, limit_torch_threads, serving_torch_threads

    if log_level in ("info", "debug") and logging.getLogger("biorag").level == logging.NOTSET:
        logging.getLogger("biorag").setLevel(logging.INFO)  # job starts, alias switches: an operator's record
    app = create_app(settings)
    # the whole server process: query encoding and in-process rebuild jobs (see serve.torch_threads)
    threads = limit_torch_threads(serving_torch_threads(serve.torch_threads))
    shown = "127.0.0.1" if serve.host in ("0.0.0.0", "::") else serve.host
    typer.echo(
        f"BioRAG ({settings.preset} preset) on http://{shown}:{serve.port}/  "
        f"(API docs /docs; {serve.max_concurrent} concurrent answers; "
        f"API keys {'required' if serve.api_keys else 'off'}; "
        f"torch threads {threads} of {available_cores()} cores)",
        err=True,
    )
    uvicorn.run(app, host=serve.host, port=serve.port, log_level=log_level, proxy_headers=False)
