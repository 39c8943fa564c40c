"""`create_app()`: the FastAPI application, built on demand (nothing at import).

Given a `Memory` and a `KeyStore` (tests, embedding in another app), the app
uses them and leaves closing them to the caller. Given neither, it builds both
from `Settings` (``GRAPHMEM_*``) when it starts and closes the `Memory` when
it stops: that is what each uvicorn worker does under ``graphmem serve
--workers N`` (uvicorn calls ``create_app`` as a factory in every worker). The
workers share one data dir (they join one embedded server, see
`graphmem.graph.embedded`) or one FalkorDB server (``GRAPHMEM_FALKORDB_URL``);
per-user write locks live in that server (`graphmem.graph.locking`) and warm
search indexes are checked against the graph's version on every search
(`graphmem.retrieval.index`), so every worker answers as one process would.

The memory browser (`graphmem.service.browse`, a router of its own) is mounted
when that module is present.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.concurrency import run_in_threadpool

from graphmem.config import Settings
from graphmem.memory import Memory
from graphmem.service import api
from graphmem.service.docs import install_docs
from graphmem.service.errors import BodyLimit, install_error_handlers
from graphmem.service.keys import KeyStore
from graphmem.service.models import ErrorBody, Health

ERROR_RESPONSES = {code: {"model": ErrorBody} for code in (400, 401, 403, 404, 413, 422, 503)}


def _open_memory(settings: Settings) -> Memory:
    """A Memory with its embedder and extractor loaded, so the first requests do not
    pay for them (~7 s for MiniLM, ~2 s to compile the rule patterns): both load lazily
    elsewhere, where a short-lived process should not pay for what it never uses."""
    memory = Memory(settings=settings)
    try:
        memory.warm()
    except BaseException:
        memory.close()
        raise
    return memory


def _lifespan(memory: Memory | None, settings: Settings):
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = memory is None
        app.state.memory = await run_in_threadpool(_open_memory, settings) if owned else memory
        try:
            yield
        finally:
            if owned:
                await run_in_threadpool(app.state.memory.close)

    return lifespan


def _include_browse(app: FastAPI) -> None:
    """Mount `graphmem.service.browse.router` if the browser module exists."""
    if importlib.util.find_spec("graphmem.service.browse") is None:
        return
    from graphmem.service import browse

    app.include_router(browse.router)


def create_app(memory: Memory | None = None, keys: KeyStore | None = None,
               settings: Settings | None = None) -> FastAPI:
    """The service: `/v1` routes, `/healthz`, `/openapi.json`, `/docs`, `/browse`.

    :param memory: serve this Memory (the caller closes it); default: one opened
        from `settings` at startup and closed at shutdown.
    :param keys: the API keys; default: the data dir's key file plus
        ``GRAPHMEM_API_KEYS``.
    :param settings: default `Settings()` (read from the environment now).
    :raises ConfigError: ``GRAPHMEM_API_KEYS`` is malformed or the key file cannot
        be read, so a worker with unusable keys stops at startup with the reason
        (a key file spoilt later answers 503, `graphmem.service.deps`).

    Example:
        >>> app = create_app(Memory(data_dir="/tmp/gm"))
        >>> uvicorn.run(app, host="127.0.0.1", port=8765)
    """
    settings = settings or (memory.settings if memory is not None else Settings())
    app = FastAPI(title="graphmem", version="1", lifespan=_lifespan(memory, settings), docs_url=None, redoc_url=None,
                  summary="Temporal knowledge-graph memory for LLM agents",
                  description="Send `Authorization: Bearer <key>` (`graphmem keys create`).")
    if memory is not None:
        app.state.memory = memory
    app.state.keys = keys or KeyStore.from_settings(settings)
    app.state.keys.list()  # reads the key file: ConfigError now rather than at the first request
    app.state.settings = settings
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=settings.max_request_bytes)
    app.include_router(api.router, responses=ERROR_RESPONSES)
    install_docs(app)
    _include_browse(app)

    @app.get("/healthz", response_model=Health, tags=["service"])
    def healthz() -> Health:
        """Liveness: the store answers a PING (no key needed)."""
        app.state.memory.store.execute("PING")
        return Health(status="ok")

    return app
