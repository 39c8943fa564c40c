"""Request dependencies: the app's `Memory`, the caller's key, the user it may act for.

Routes declare what they need as type aliases (`MemoryDep`, `KeyDep`,
`CoveredUser`), FastAPI-template style; the browse router and the MCP HTTP
transport use the same ones.

Isolation: no key or an unknown key -> 401; a key that does not cover the user
in the path -> 403 with one fixed body (`NOT_COVERED`), decided from the key
alone before the store is touched, so the answer is the same whether or not
that user exists, and the time taken does not depend on it either.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from graphmem.memory import Memory
from graphmem.service.keys import ApiKey, KeyStore

NOT_COVERED = "this key does not cover that user"
NO_KEY = "missing or unknown API key; send Authorization: Bearer <key>"
USER_ID_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"

bearer = HTTPBearer(auto_error=False, description="an API key from `graphmem keys create`")


def get_memory(request: Request) -> Memory:
    return request.app.state.memory


def get_keys(request: Request) -> KeyStore:
    return request.app.state.keys


def get_key(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
) -> ApiKey:
    """The caller's key, or 401."""
    key = get_keys(request).authenticate(credentials.credentials if credentials else None)
    if key is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, NO_KEY, headers={"WWW-Authenticate": "Bearer"})
    return key


MemoryDep = Annotated[Memory, Depends(get_memory)]
KeyDep = Annotated[ApiKey, Depends(get_key)]


def covered_user(user_id: Annotated[str, Path(description="whose memory")], key: KeyDep) -> str:
    """The path's user id when the key covers it, else 403 (see the module docstring).

    The id's format is checked by `Memory` (422) only once the key covers it, so
    a key cannot probe ids it may not use.
    """
    if not key.covers(user_id):
        raise HTTPException(status.HTTP_403_FORBIDDEN, NOT_COVERED)
    return user_id


CoveredUser = Annotated[str, Depends(covered_user)]
