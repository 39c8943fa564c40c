"""Request dependencies: the app's `Memory`, the caller's key, the user it may act for.

Routes declare what they need as type aliases (`MemoryDep`, `KeyDep`,
`CoveredUser`), FastAPI-template style; the browse router and the MCP HTTP
transport use the same ones.

Isolation: no key or an unknown key -> 401; a key that does not cover the user
in the path -> 403 with one fixed body (`NOT_COVERED`), decided from the key
alone before the store is touched, so the answer is the same whether or not
that user exists, and the time taken does not depend on it either.

Scopes: a key limited to some memory scopes reads and writes only those
(`graphmem.service.scoping`); `WholeMemoryUser` is `CoveredUser` for the verbs
that act on every scope at once, refused (403) to such a key.

A key file that cannot be read answers 503 with a fixed message; the reason
(path, parse error) goes to the server log, not to an unauthenticated caller.
"""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from graphmem.memory import Memory
from graphmem.schema.errors import ConfigError
from graphmem.service.keys import ApiKey, KeyStore
from graphmem.service.scoping import require_every_scope

NOT_COVERED = "this key does not cover that user"
NO_KEY = "missing or unknown API key; send Authorization: Bearer <key>"
KEYS_UNREADABLE = "the service cannot read its API key file; the server log says why"
USER_ID_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"  # schema.models.USER_ID_RE, for the OpenAPI spec

log = logging.getLogger("graphmem.service")
bearer = HTTPBearer(auto_error=False, description="an API key from `graphmem keys create`")


def get_memory(request: Request) -> Memory:
    return request.app.state.memory


def get_keys(request: Request) -> KeyStore:
    return request.app.state.keys


def get_key(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> ApiKey:
    """The caller's key, or 401; 503 when the key file cannot be read."""
    try:
        key = get_keys(request).authenticate(credentials.credentials if credentials else None)
    except ConfigError as exc:
        log.error("%s", exc)
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, KEYS_UNREADABLE) from exc
    if key is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, NO_KEY, headers={"WWW-Authenticate": "Bearer"})
    return key


MemoryDep = Annotated[Memory, Depends(get_memory)]
KeyDep = Annotated[ApiKey, Depends(get_key)]


def covered_user(user_id: Annotated[str, Path(pattern=USER_ID_PATTERN, description="whose memory")],
                 key: KeyDep) -> str:
    """The path's user id when the key covers it, else 403 (see the module docstring).

    A malformed id gets 422 first, for any key: the format is public, and that
    answer says nothing about who exists.
    """
    if not key.covers(user_id):
        raise HTTPException(status.HTTP_403_FORBIDDEN, NOT_COVERED)
    return user_id


CoveredUser = Annotated[str, Depends(covered_user)]


def whole_memory_user(request: Request, user_id: CoveredUser, key: KeyDep) -> str:
    """`CoveredUser`, for a key of every scope: forget, purge, restore, rebuild and
    drop act on all of the user's scopes, so a key limited to some gets 403."""
    route = request.scope.get("route")
    require_every_scope(key.scopes, getattr(route, "name", "this verb"))
    return user_id


WholeMemoryUser = Annotated[str, Depends(whole_memory_user)]
