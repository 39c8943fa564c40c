"""The HTTP service (`graphmem serve`): the `Memory` verbs as JSON under `/v1`.

    app.py     create_app(): the FastAPI app, built on demand
    api.py     the /v1 routes, one Memory verb each
    deps.py    MemoryDep, KeyDep, CoveredUser: the app's Memory, the caller's key, 401/403
    keys.py    KeyStore / ApiKey: hashed keys under the data dir and from GRAPHMEM_API_KEYS
    models.py  request bodies (responses are the Python API's own models)
    errors.py  every error as JSON, the request body limit
    browse.py  the memory browser at /browse (mounted when present)

Nothing is created at import; ``from graphmem.service import create_app`` loads
the app module on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from graphmem.service.app import create_app

        return create_app
    raise AttributeError(f"module 'graphmem.service' has no attribute {name!r}")
