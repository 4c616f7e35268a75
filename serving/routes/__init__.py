"""The API's routes, one router per area. Each module's `*_router(settings, guard)` builds
its router for one server: what the OpenAPI document declares (enums of this server's
sources and presets, the question limit, whether keys are needed) is fixed when the router
is built; the live objects (engine, runner, jobs, metrics) are read per request from
`app.state` through the dependencies in `serving.routes.state`.

  answer      POST /v1/answer, POST /v1/answer/stream
  chat        POST /v1/chat/completions, GET /v1/models, GET /v1/models/{model} (OpenAI's format)
  search      GET /v1/search/<source> (one per enabled source), GET /v1/sources, GET /v1/catalogues
  geneset     POST /v1/geneset
  jobs        POST /v1/jobs/index-rebuild, GET /v1/jobs/{job_id}, GET /v1/jobs
  operations  GET /healthz, /readyz, /metrics
  page        GET / (the chat page)
"""
